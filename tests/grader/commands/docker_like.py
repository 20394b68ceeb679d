"""Run a command the way a Docker container with the default seccomp profile runs it.

`python docker_like.py COMMAND ARGS...`, as root: namespaces, setns and mounts are refused (EPERM;
clone3 ENOSYS), as Docker's default profile refuses them to a container without CAP_SYS_ADMIN. As
in Gradescope's images, the interpreter is readable by every user: where a folder above it is
closed to others (/root holding pyenv), a private mount namespace made first opens the way to
it (and only to it), before the filter is installed.
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys
import tempfile

import pyseccomp  # type: ignore[import-untyped]

MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 0x40000
CLONE_NEWNS = 0x00020000
NAMESPACE_FLAGS = (
    0x00020000,
    0x02000000,
    0x04000000,
    0x08000000,
    0x10000000,
    0x20000000,
    0x40000000,
    0x00000080,
)
libc = ctypes.CDLL(None, use_errno=True)


def _mount(source: str | None, target: str, kind: str | None, flags: int, data: str = "") -> None:
    if (
        libc.mount(
            source and source.encode(),
            target.encode(),
            kind and kind.encode(),
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        )
        != 0
    ):
        raise OSError(ctypes.get_errno(), f"mount {target}")


def open_the_interpreter() -> None:
    prefix = os.path.realpath(sys.base_prefix)
    parts = prefix.split("/")[1:]
    for depth in range(1, len(parts)):
        closed = "/" + "/".join(parts[:depth])
        if not os.stat(closed).st_mode & 0o001:
            kept = "/" + "/".join(parts[: depth + 1])
            if libc.unshare(CLONE_NEWNS) != 0:
                raise OSError(ctypes.get_errno(), "unshare")
            _mount(None, "/", None, MS_REC | MS_PRIVATE)
            staging = tempfile.mkdtemp()
            _mount(kept, staging, None, MS_BIND | MS_REC)
            _mount("tmpfs", closed, "tmpfs", 0, "mode=0755")
            os.makedirs(kept)
            _mount(staging, kept, None, MS_BIND | MS_REC)
            return


def refuse_namespaces() -> None:
    rules = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    for call in (
        "unshare",
        "setns",
        "mount",
        "umount2",
        "pivot_root",
        "open_tree",
        "move_mount",
        "fsopen",
        "fsmount",
        "fsconfig",
        "fspick",
        "mount_setattr",
    ):
        rules.add_rule(pyseccomp.ERRNO(errno.EPERM), call)
    for flag in NAMESPACE_FLAGS:
        rules.add_rule(
            pyseccomp.ERRNO(errno.EPERM), "clone", pyseccomp.Arg(0, pyseccomp.MASKED_EQ, flag, flag)
        )
    rules.add_rule(pyseccomp.ERRNO(errno.ENOSYS), "clone3")
    rules.load()


if __name__ == "__main__":
    open_the_interpreter()
    refuse_namespaces()
    os.execvp(sys.argv[1], sys.argv[1:])
