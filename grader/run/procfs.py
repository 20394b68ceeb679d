"""Reading /proc and the test's files from the trusted side, safely.

The test could have planted links or special files, or changed anything a moment later: every
reader here gives up quietly (a zero, an empty list) and never follows a link or blocks.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path


def children(pid: int) -> list[int]:
    """The children of every thread of `pid` (empty once it has gone)."""
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", "rb") as listing:
                found += [int(child) for child in listing.read().split()]
    except (OSError, ValueError):
        pass
    return found


def tree(pid: int) -> list[int]:
    """`pid` and all its descendants, as far as /proc shows them now."""
    tree: list[int] = []
    frontier = [pid]
    while frontier and len(tree) < 100_000:
        current = frontier.pop()
        tree.append(current)
        frontier += children(current)
    return tree


def threads(pids: list[int]) -> list[int]:
    """Every thread of `pids`, as far as /proc shows them now."""
    found: list[int] = []
    for pid in pids:
        with contextlib.suppress(OSError, ValueError):
            found += [int(tid) for tid in os.listdir(f"/proc/{pid}/task")]
    return found


def status_kb(pid: int, key: bytes) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def cpu_s(pid: int, waited: bool = True) -> float:
    """User + system time of `pid` and (`waited`) of its children it has waited for."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat_file:
            fields = stat_file.read().rsplit(b")", 1)[1].split()
        counted = fields[11:15] if waited else fields[11:13]
        return sum(int(value) for value in counted) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as comm:
            return comm.read().strip()
    except OSError:
        return ""


def open_untrusted(path: Path) -> int | None:
    """A read-only descriptor of `path` if it is a regular file reached without any link."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def read_capped(fd: int | None, cap: int) -> bytes:
    """Up to `cap` + 1 bytes from the start of an open file (+1 tells that there was more)."""
    if fd is None:
        return b""
    chunks, size = [], 0
    while size <= cap:
        chunk = os.pread(fd, min(1 << 20, cap + 1 - size), size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def file_size(fd: int | None) -> int:
    return os.fstat(fd).st_size if fd is not None else 0
