"""A cgroup per test: the kernel counts its CPU, memory and tasks, and enforces hard backstops.

The parent (the trusted side) creates the group, moves the test's processes into it before they
run any student code, reads the counters and removes the group. Works with cgroup v1 controllers
(`memory`, `cpuacct`, `pids`, as on hybrid hosts) and with cgroup v2 (one folder; CPU time and
`cgroup.kill` are always there, memory and pids where the controllers are enabled for us). Where
the grader may not create cgroups (not root, no cgroup file system), `TestCgroup.create` returns
None and the runner measures through wait4 and /proc instead.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import os
import signal
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from grader import owners

GROUP_PREFIX = "gametree-grader-"
STALE_AFTER_S = 600
CONTROLLERS = ("memory", "cpu", "pids")
V1_NAMES = {"memory": "memory", "cpu": "cpuacct", "pids": "pids"}


@dataclass(frozen=True)
class Hierarchy:
    """Where one controller lives: the folder of the grader's own group, and the cgroup version."""

    base: Path
    version: int


def _own_paths() -> dict[str, str]:
    """Controller (or '' for v2) -> the grader's group path, from /proc/self/cgroup."""
    paths: dict[str, str] = {}
    with open("/proc/self/cgroup") as listing:
        for line in listing:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                paths[controller] = path
    return paths


def _mounts() -> list[tuple[Path, str, set[str]]]:
    """(mount point, file system type, super options) of every cgroup mount."""
    found = []
    with open("/proc/self/mountinfo") as listing:
        for line in listing:
            fields = line.split()
            separator = fields.index("-")
            kind, options = fields[separator + 1], fields[separator + 3]
            if kind in ("cgroup", "cgroup2") and fields[3] == "/":
                found.append((Path(fields[4]), kind, set(options.split(","))))
    return found


@functools.cache
def hierarchies() -> dict[str, Hierarchy]:
    """Each usable controller's hierarchy ('memory', 'cpu', 'pids'), v1 preferred over v2."""
    if os.geteuid() != 0:
        return {}
    try:
        own, mounts = _own_paths(), _mounts()
    except (OSError, ValueError):
        return {}
    found: dict[str, Hierarchy] = {}
    for controller in CONTROLLERS:
        name = V1_NAMES[controller]
        for point, kind, options in mounts:
            if kind == "cgroup" and name in options and name in own:
                base = point / own[name].lstrip("/")
                if os.access(base, os.W_OK):
                    found[controller] = Hierarchy(base, 1)
                break
    for point, kind, _ in mounts:
        if kind != "cgroup2" or "" not in own:
            continue
        base = point / own[""].lstrip("/")
        if not os.access(base, os.W_OK):
            break
        enabled = _read(base / "cgroup.subtree_control").split()
        for controller in CONTROLLERS:
            if controller not in found and (controller == "cpu" or controller in enabled):
                found[controller] = Hierarchy(base, 2)  # cpu.stat is there without the controller
        found.setdefault("kill", Hierarchy(base, 2))
        break
    return found


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _write(path: Path, text: str) -> bool:
    try:
        path.write_text(text)
    except OSError:
        return False
    return True


def _keyed(text: str, key: str) -> int:
    """The number after `key` in a 'key value' per line file (memory.events, pids.events)."""
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return 0


class GraderGroups:
    """This grader process's parent groups, one per hierarchy; tests get sub-groups of them."""

    def __init__(self) -> None:
        self.parents: dict[Path, Path] = {}
        self.lock = threading.Lock()
        self.numbers = itertools.count(1)  # next() is atomic: graders in threads share it

    def parent_in(self, base: Path) -> Path | None:
        with self.lock:  # graders in threads of one process share the parent groups
            return self._parent_in(base)

    def _parent_in(self, base: Path) -> Path | None:
        if base not in self.parents:
            v2 = base in {h.base for h in hierarchies().values() if h.version == 2}
            _sweep_stale(base, v2)
            path = base / f"{GROUP_PREFIX}{owners.me().tag}-{uuid.uuid4().hex[:8]}"
            try:
                path.mkdir()
            except OSError:
                return None
            if v2:
                enabled = _read(base / "cgroup.subtree_control").split()
                _write(path / "cgroup.subtree_control",
                       " ".join(f"+{c}" for c in ("memory", "pids") if c in enabled))
            self.parents[base] = path
        return self.parents[base]

    def remove(self) -> None:
        for path in self.parents.values():
            with contextlib.suppress(OSError):
                path.rmdir()
        self.parents.clear()


def _sweep_stale(base: Path, v2: bool) -> None:
    """Remove the groups that graders which died left in `base`: a group names its owner (pid,
    start time), and one whose owner is not running goes now, with any test still in it. A group
    of an older grader (a pid only) goes once empty and untouched for STALE_AFTER_S."""
    for stale in base.glob(f"{GROUP_PREFIX}*"):
        if owners.left_by_the_dead(stale.name, GROUP_PREFIX):
            _end_group(stale, v2)
        elif owners.owner_in(stale.name, GROUP_PREFIX) is None:
            with contextlib.suppress(OSError):
                if time.time() - stale.stat().st_mtime > STALE_AFTER_S:
                    for child in stale.iterdir():
                        if child.is_dir():
                            child.rmdir()
                    stale.rmdir()  # only empty groups go: they may be a live grader's


def _end_group(group: Path, v2: bool) -> None:
    """Kill what is left in a dead grader's group and its test groups, and remove them (bounded:
    what will not go now is left to the next run)."""
    if v2:
        _write(group / "cgroup.kill", "1")  # the whole subtree
    for _ in range(200):
        folders = [*_subfolders(group), group]
        for folder in folders:
            for pid in _read(folder / "cgroup.procs").split():
                if pid.isdigit() and int(pid) > 0:  # never 0: that is our own process group
                    with contextlib.suppress(OSError):
                        os.kill(int(pid), signal.SIGKILL)
        for folder in folders:
            with contextlib.suppress(OSError):
                folder.rmdir()
        if not group.exists():
            return
        time.sleep(0.005)


def _subfolders(group: Path) -> list[Path]:
    try:
        return [child for child in group.iterdir() if child.is_dir() and not child.is_symlink()]
    except OSError:
        return []


_groups = GraderGroups()
atexit.register(_groups.remove)


class TestCgroup:
    """The group of one test, in every available hierarchy."""

    def __init__(self, folders: dict[str, tuple[Path, int]]) -> None:
        self.folders = folders  # controller -> (folder, version)

    @classmethod
    def create(cls) -> TestCgroup | None:
        """A fresh, empty group, or None where cgroups are not ours to make."""
        found = hierarchies()
        if not found:
            return None
        number = next(_groups.numbers)
        folders: dict[str, tuple[Path, int]] = {}
        made: dict[Path, Path] = {}
        for controller, hierarchy in found.items():
            if hierarchy.base not in made:
                parent = _groups.parent_in(hierarchy.base)
                if parent is None:
                    continue
                folder = parent / f"t{number}"
                try:
                    folder.mkdir()
                except OSError:
                    continue
                made[hierarchy.base] = folder
            folders[controller] = (made[hierarchy.base], hierarchy.version)
        return cls(folders)

    def set_limits(self, memory_bytes: int, tasks: int) -> None:
        """The kernel's hard backstops: memory (no swap) and tasks (threads count)."""
        if "memory" in self.folders:
            folder, version = self.folders["memory"]
            _write(folder / ("memory.limit_in_bytes" if version == 1 else "memory.max"),
                   str(memory_bytes))
            if version == 2:
                _write(folder / "memory.swap.max", "0")
        if "pids" in self.folders:
            _write(self.folders["pids"][0] / "pids.max", str(tasks))

    @property
    def measures(self) -> set[str]:
        """Which of 'memory', 'cpu', 'pids' the kernel counts for this test."""
        return set(self.folders) & set(CONTROLLERS)

    def add(self, pid: int) -> bool:
        """Move `pid` into every hierarchy's group; False if any refused."""
        return all(_write(folder / "cgroup.procs", str(pid))
                   for folder in {folder for folder, _ in self.folders.values()})

    def cpu_s(self) -> float | None:
        if "cpu" not in self.folders:
            return None
        folder, version = self.folders["cpu"]
        if version == 1:
            text = _read(folder / "cpuacct.usage").strip()
            return int(text) / 1e9 if text.isdigit() else None
        usage = _keyed(_read(folder / "cpu.stat"), "usage_usec")
        return usage / 1e6

    def memory_bytes(self) -> int | None:
        """Memory charged to the test now (anonymous, page cache, tmpfs, kernel)."""
        return self._memory_counter("memory.usage_in_bytes", "memory.current")

    def memory_peak_bytes(self) -> int | None:
        """The most memory charged to the test at any moment."""
        return self._memory_counter("memory.max_usage_in_bytes", "memory.peak")

    def _memory_counter(self, v1_name: str, v2_name: str) -> int | None:
        if "memory" not in self.folders:
            return None
        folder, version = self.folders["memory"]
        text = _read(folder / (v1_name if version == 1 else v2_name)).strip()
        return int(text) if text.isdigit() else None

    def oom_kills(self) -> int:
        if "memory" not in self.folders:
            return 0
        folder, version = self.folders["memory"]
        return _keyed(_read(folder / ("memory.oom_control" if version == 1 else "memory.events")),
                      "oom_kill")

    def refused_forks(self) -> int:
        if "pids" not in self.folders:
            return 0
        return _keyed(_read(self.folders["pids"][0] / "pids.events"), "max")

    def processes(self) -> set[int]:
        folder = next(iter(self.folders.values()))[0]
        return {int(pid) for pid in _read(folder / "cgroup.procs").split()}

    def signal_kill(self) -> bool:
        """SIGKILL everything in the group once, without waiting; False if it was empty."""
        if self._v2_kill():
            return True
        members = self.processes()
        for pid in members:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        return bool(members)

    def kill(self) -> None:
        """SIGKILL everything in the group, until it is empty (bounded)."""
        if self._v2_kill():
            return
        for _ in range(200):
            if not self.signal_kill():
                return
            time.sleep(0.002)

    def _v2_kill(self) -> bool:
        v2 = [folder for folder, version in self.folders.values() if version == 2]
        return bool(v2) and _write(v2[0] / "cgroup.kill", "1")

    def try_remove(self) -> bool:
        """Remove the group's folders if it is empty now; True once they are all gone."""
        gone = True
        for folder in {folder for folder, _ in self.folders.values()}:
            try:
                folder.rmdir()
            except FileNotFoundError:
                pass
            except OSError:
                gone = False
        return gone

    def remove(self) -> None:
        """Remove the group's folders, killing what is left in it (bounded)."""
        for _ in range(100):
            if self.try_remove():
                return
            self.kill()
            time.sleep(0.002)
