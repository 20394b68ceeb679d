"""Reading and writing the files of the cgroup file system.

Bare descriptors, not file objects: the parent samples these files every few milliseconds while
a test runs, and a text file object costs several times the system calls themselves. A file that
cannot be read reads as empty; a write that fails is False (a group removed meanwhile, a
controller the kernel refuses).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def read(path: Path) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return ""
    chunks = []
    try:
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    except OSError:
        return ""
    finally:
        _close(fd)
    return b"".join(chunks).decode(errors="replace")


def write(path: Path, text: str) -> bool:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        os.write(fd, text.encode())
    except OSError:
        return False
    finally:
        _close(fd)
    return True


def _close(fd: int) -> None:
    """Close, never raising: an error here says nothing about what was read or written (and
    the grader's exit path may already have closed it)."""
    with contextlib.suppress(OSError):
        os.close(fd)
