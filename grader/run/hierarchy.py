"""Where the grader's cgroups live: each mounted hierarchy, found from /proc, as the grader sees it.

`hierarchies` are those that measure a test (memory, CPU time, tasks; v1 preferred over v2);
`every_hierarchy` all of them, in each of which a test gets a group of its own (grader/run/cgroup.py).
Only a root grader makes groups: for anyone else both are empty.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

CONTROLLERS = ("memory", "cpu", "pids")
V1_NAMES = {"memory": "memory", "cpu": "cpuacct", "pids": "pids"}


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


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
