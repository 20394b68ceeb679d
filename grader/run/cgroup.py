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
def every_hierarchy() -> dict[str, Hierarchy]:
    """Every mounted hierarchy whose grader group we may write, keyed as /proc/PID/cgroup names
    it ('cpu,cpuacct', 'name=systemd', '' for v2): a test gets a group of its own in each, so
    that it never shares the grader's group anywhere (freezer, cpu, cpuset ... included)."""
    if os.geteuid() != 0:
        return {}
    try:
        own, mounts = _own_lines(), _mounts()
    except (OSError, ValueError):
        return {}
    found: dict[str, Hierarchy] = {}
    for key, path in own.items():
        wanted = set(key.split(",")) if key else set()
        for point, kind, options in mounts:
            if (kind == "cgroup2") != (key == "") or (key and not wanted <= options):
                continue
            base = point / path.lstrip("/")
            if os.access(base, os.W_OK):
                found[key] = Hierarchy(base, 2 if key == "" else 1)
            break
    return found


def _own_lines() -> dict[str, str]:
    """The controllers field of each line of /proc/self/cgroup -> the grader's group path."""
    paths: dict[str, str] = {}
    with open("/proc/self/cgroup") as listing:
        for line in listing:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            paths[controllers] = path
    return paths


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
            for stale in base.glob(f"{GROUP_PREFIX}*"):
                with contextlib.suppress(OSError):
                    if time.time() - stale.stat().st_mtime > STALE_AFTER_S:
                        for child in stale.iterdir():
                            if child.is_dir():
                                child.rmdir()
                        stale.rmdir()  # only empty groups go: those of graders that were killed
            path = base / f"{GROUP_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
            try:
                path.mkdir()
            except OSError:
                return None
            if (base / "cpuset.cpus").exists():  # v1 cpuset: children start with no CPU at all
                for name in ("cpuset.cpus", "cpuset.mems"):
                    _write(path / name, _read(base / name).strip())
                _write(path / "cgroup.clone_children", "1")
            if base in {h.base for h in hierarchies().values() if h.version == 2}:
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

    def __init__(self, folders: dict[str, tuple[Path, int]], contained: dict[str, Path],
                 missing: list[str], own: set[Path]) -> None:
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

    def set_limits(self, memory_bytes: int, tasks: int) -> bool:
        """The kernel's hard backstops: memory (no swap) and tasks (threads count); False if a
        write was refused."""
        written = True
        if "memory" in self.folders:
            folder, version = self.folders["memory"]
            written &= _write(folder / ("memory.limit_in_bytes" if version == 1 else "memory.max"),
                              str(memory_bytes))
            if version == 2 and (folder / "memory.swap.max").exists():
                written &= _write(folder / "memory.swap.max", "0")
        if "pids" in self.folders:
            written &= _write(self.folders["pids"][0] / "pids.max", str(tasks))
        return written

    @property
    def measures(self) -> set[str]:
        """Which of 'memory', 'cpu', 'pids' the kernel counts for this test."""
        return set(self.folders) & set(CONTROLLERS)

    def add(self, pid: int) -> bool:
        """Move `pid` into its group in every hierarchy; False if any refused."""
        return all(_write(folder / "cgroup.procs", str(pid))
                   for folder in self.own | set(self.contained.values()))

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
        if not self.folders:
            return set()
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
