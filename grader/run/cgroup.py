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
import itertools
import os
import signal
import threading
import time
import uuid
from pathlib import Path

from grader import owners
from grader.run.cgroupfs import read as _read
from grader.run.cgroupfs import write as _write
from grader.run.hierarchy import CONTROLLERS
from grader.run.hierarchy import Hierarchy as Hierarchy
from grader.run.hierarchy import every_hierarchy as every_hierarchy
from grader.run.hierarchy import hierarchies as hierarchies

GROUP_PREFIX = "gametree-grader-"
STALE_AFTER_S = 600


def _placed(pid: int) -> dict[str, str]:
    """Each hierarchy (as /proc/PID/cgroup names it) -> the group `pid` is in there."""
    placed = {}
    for line in _read(Path(f"/proc/{pid}/cgroup")).splitlines():
        _, controllers, path = line.split(":", 2) if line.count(":") >= 2 else ("", "", "")
        if path.startswith("/") and path != "/":
            placed[controllers] = path
    return placed


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
            if (base / "cpuset.cpus").exists():  # v1 cpuset: children start with no CPU at all
                for name in ("cpuset.cpus", "cpuset.mems"):
                    _write(path / name, _read(base / name).strip())
                _write(path / "cgroup.clone_children", "1")
            if v2:
                enabled = _read(base / "cgroup.subtree_control").split()
                _write(
                    path / "cgroup.subtree_control",
                    " ".join(f"+{c}" for c in ("memory", "pids") if c in enabled),
                )
            self.parents[base] = path
        return self.parents[base]

    def remove(self) -> None:
        """At exit: every group of this process with all it still holds, registered or not (a
        signal may land between a folder's mkdir and its registration, or while a test's group
        is being made or removed)."""
        mine = f"{GROUP_PREFIX}{owners.me().tag}-"
        bases = {hierarchy.base: hierarchy.version for hierarchy in every_hierarchy().values()}
        for base, version in bases.items():
            for group in base.glob(f"{mine}*"):
                end_group(group, version == 2)
        self.parents.clear()


def _sweep_stale(base: Path, v2: bool) -> None:
    """Remove the groups that graders which died left in `base`: a group names its owner (pid,
    start time), and one whose owner is not running goes now, with any test still in it. A group
    of an older grader (a pid only) goes once empty and untouched for STALE_AFTER_S."""
    for stale in base.glob(f"{GROUP_PREFIX}*"):
        if owners.left_by_the_dead(stale.name, GROUP_PREFIX):
            end_group(stale, v2)
        elif owners.owner_in(stale.name, GROUP_PREFIX) is None:
            with contextlib.suppress(OSError):
                if time.time() - stale.stat().st_mtime > STALE_AFTER_S:
                    for child in stale.iterdir():
                        if child.is_dir():
                            child.rmdir()
                    stale.rmdir()  # only empty groups go: they may be a live grader's


def end_group(group: Path, v2: bool = False) -> None:
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


def _make_test_folder(base: Path, number: int, made: dict[Path, Path]) -> Path | None:
    """The test's folder below the grader's group in the hierarchy at `base` (made once)."""
    if base not in made:
        parent = _groups.parent_in(base)
        if parent is None:
            return None
        folder = parent / f"t{number}"
        try:
            folder.mkdir()
        except OSError:
            return None
        made[base] = folder
    return made[base]


class SlotGroups:
    """One fork server's groups in the hierarchies that measure nothing (freezer, cpu, cpuset,
    devices, blkio, named ones): each test is moved into them in turn, so it never shares the
    grader's group there, without a folder made and removed per test. Tests run one at a time and
    each ends with all it started (its measuring group is killed), so nothing passes between them.
    """

    def __init__(self) -> None:
        self.folders: dict[str, Path] = {}
        self.number = next(_groups.numbers)

    def folder(self, key: str, base: Path) -> Path | None:
        if key not in self.folders:
            made = _make_test_folder(base, self.number, {})
            if made is None:
                return None
            self.folders[key] = made
        return self.folders[key]

    def enter(self, pid: int) -> bool:
        """Move `pid` (the fork server) into the slot's groups: the tests it forks from then on
        start in them, and no write is needed per test there. False if any was refused."""
        measuring = {hierarchy.base for hierarchy in hierarchies().values()}
        entered = True
        for key, hierarchy in every_hierarchy().items():
            if hierarchy.base not in measuring:
                folder = self.folder(key, hierarchy.base)
                entered &= folder is not None and _write(folder / "cgroup.procs", str(pid))
        return entered

    def remove(self) -> None:
        for folder in self.folders.values():
            for _ in range(100):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    for pid in _read(folder / "cgroup.procs").split():
                        with contextlib.suppress(OSError):
                            os.kill(int(pid), signal.SIGKILL)
                    time.sleep(0.002)
        self.folders.clear()


class TestCgroup:
    """The group of one test, in every available hierarchy."""

    def __init__(
        self,
        folders: dict[str, tuple[Path, int]],
        contained: dict[str, Path],
        missing: list[str],
        own: set[Path],
    ) -> None:
        self.folders = folders  # controller -> (folder, version)
        self.contained = contained  # every hierarchy (as /proc/PID/cgroup names it) -> folder
        self.missing = missing  # hierarchies where no group could be made for the test
        self.own = own  # the folders made for this test alone (the others are its slot's)

    @classmethod
    def create(cls, slot: SlotGroups | None = None) -> TestCgroup | None:
        """A fresh, empty group, or None where cgroups are not ours to make; in the hierarchies
        that measure nothing, the fork server's `slot` groups (or fresh ones without)."""
        found = hierarchies()
        if not found:
            return None
        number = next(_groups.numbers)
        folders: dict[str, tuple[Path, int]] = {}
        made: dict[Path, Path] = {}
        for controller, hierarchy in found.items():
            measuring = _make_test_folder(hierarchy.base, number, made)
            if measuring is not None:
                folders[controller] = (measuring, hierarchy.version)
        contained: dict[str, Path] = {}
        missing: list[str] = []
        for key, hierarchy in sorted(every_hierarchy().items()):
            if hierarchy.base in made or slot is None:
                folder = _make_test_folder(hierarchy.base, number, made)
            else:
                folder = slot.folder(key, hierarchy.base)
            if folder is None:
                missing.append(key or "unified")
            else:
                contained[key] = folder
        return cls(folders, contained, missing, set(made.values()))

    def set_limits(self, memory_bytes: int, tasks: int) -> str:
        """The kernel's hard backstops: memory (no swap) and tasks (threads count); '' when set,
        else which write the kernel refused and why."""
        writes: list[tuple[Path, str]] = []
        if "memory" in self.folders:
            folder, version = self.folders["memory"]
            writes.append(
                (folder / ("memory.limit_in_bytes" if version == 1 else "memory.max"), str(memory_bytes))
            )
            if version == 2 and (folder / "memory.swap.max").exists():
                writes.append((folder / "memory.swap.max", "0"))
        if "pids" in self.folders:
            writes.append((self.folders["pids"][0] / "pids.max", str(tasks)))
        for path, value in writes:
            try:
                path.write_text(value)
            except OSError as error:
                return f"{path.parent.name}/{path.name} = {value}: {error.strerror}"
        return ""

    @property
    def measures(self) -> set[str]:
        """Which of 'memory', 'cpu', 'pids' the kernel counts for this test."""
        return set(self.folders) & set(CONTROLLERS)

    def add(self, pid: int) -> bool:
        """Move `pid` into its group in every hierarchy (where it is not there already, as in
        its fork server's slot groups); False if any refused."""
        placed = _placed(pid)
        targets = set(self.own)
        for key, folder in self.contained.items():
            path = placed.get(key)
            if folder in self.own or not path or not str(folder).endswith(path):
                targets.add(folder)
        return all(_write(folder / "cgroup.procs", str(pid)) for folder in targets)

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
        return _keyed(_read(folder / ("memory.oom_control" if version == 1 else "memory.events")), "oom_kill")

    def refused_forks(self) -> int:
        if "pids" not in self.folders:
            return 0
        return _keyed(_read(self.folders["pids"][0] / "pids.events"), "max")

    def processes(self) -> set[int]:
        if not self.folders:
            return set()
        folder = next(iter(self.folders.values()))[0]
        return {int(pid) for pid in _read(folder / "cgroup.procs").split() if pid.isdigit() and int(pid) > 0}

    def threads(self) -> set[int]:
        """Every thread of the test's processes (v1 `tasks`, v2 `cgroup.threads`)."""
        if not self.folders:
            return set()
        folder, version = next(iter(self.folders.values()))
        listing = _read(folder / ("tasks" if version == 1 else "cgroup.threads")).split()
        return {int(tid) for tid in listing if tid.isdigit() and int(tid) > 0}

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
        for folder in self.own:
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
