"""A pids cgroup around a fork server: the kernel itself caps how many processes a test may have.

Used when the grader may create cgroups (root on a machine with the cgroup v1 `pids` controller or
cgroup v2 with it enabled); elsewhere the runner's sampling alone enforces the process limit.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from pathlib import Path

V1_ROOT = Path("/sys/fs/cgroup/pids")
V2_ROOT = Path("/sys/fs/cgroup")
GROUP_PREFIX = "gametree-grader-"
STALE_AFTER_S = 600


def _pids_root() -> Path | None:
    if (V1_ROOT / "cgroup.procs").exists():
        return V1_ROOT
    controllers = V2_ROOT / "cgroup.subtree_control"
    if controllers.exists() and "pids" in controllers.read_text().split():
        return V2_ROOT
    return None


class PidsCgroup:
    """One cgroup per fork server; its pids.max is set before each test."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def create(cls) -> PidsCgroup | None:
        root = _pids_root()
        if root is None or os.geteuid() != 0:
            return None
        for stale in root.glob(f"{GROUP_PREFIX}*"):
            with contextlib.suppress(OSError):
                if time.time() - stale.stat().st_mtime > STALE_AFTER_S:
                    stale.rmdir()  # only empty groups go: those of graders that were killed
        path = root / f"{GROUP_PREFIX}{uuid.uuid4().hex[:12]}"
        try:
            path.mkdir()
        except OSError:
            return None
        return cls(path)

    def adopt(self, pids: set[int]) -> None:
        for pid in sorted(pids):
            with contextlib.suppress(OSError):
                (self.path / "cgroup.procs").write_text(f"{pid}\n")

    def limit(self, count: int) -> None:
        with contextlib.suppress(OSError):
            (self.path / "pids.max").write_text(f"{count}\n")

    def refused_forks(self) -> int:
        """How often a fork failed against pids.max so far."""
        try:
            for line in (self.path / "pids.events").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "max":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def task_count(self) -> int:
        """Threads in the group now (what pids.max counts)."""
        try:
            return int((self.path / "pids.current").read_text())
        except (OSError, ValueError):
            return 0

    def members(self) -> list[int]:
        try:
            return [int(pid) for pid in (self.path / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def destroy(self) -> None:
        """Kill everything still in the group, then remove it."""
        for _ in range(200):
            members = self.members()
            if not members:
                break
            for pid in members:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.005)
        with contextlib.suppress(OSError):
            self.path.rmdir()
