"""What a test without a mount namespace leaves in the host's shared writable folders.

At the `container` level a test sees the host's file system (namespaces are refused there), so it
can write wherever everyone may write: /tmp, /dev/shm, /var/tmp and any other world-writable
folder. Its uid is its fork server's slot's own (`boundary.test_uid`) and it has no groups, so
everything it can create sits in such a folder (or in one it created itself, inside one) and is
owned by that uid. Before each test of the slot and when the slot stops, the parent removes
every entry of those folders the uid owns: nothing a test wrote reaches the next test.

The world-writable folders are found once per grader by walking the file system (/proc and /sys
aside, of /dev only shm and mqueue); a folder made world-writable later by someone else is not
swept (docs/isolation.md, "Not covered").
"""

from __future__ import annotations

import functools
import os
import shutil
import stat

SKIPPED_TOPS = frozenset({"proc", "sys"})
KEPT_IN_DEV = frozenset({"shm", "mqueue"})


@functools.cache
def world_writable_folders() -> tuple[str, ...]:
    """Every folder anyone may write in, as this grader found them at its first use."""
    found: list[str] = []
    for top, folders, _files in os.walk("/", topdown=True, onerror=None):
        if top == "/":
            folders[:] = [name for name in folders if name not in SKIPPED_TOPS]
        elif top == "/dev":
            folders[:] = [name for name in folders if name in KEPT_IN_DEV]
        kept = []
        for name in folders:
            path = os.path.join(top, name)
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISDIR(mode):  # never follows a link
                kept.append(name)
                if mode & stat.S_IWOTH:
                    found.append(path)
        folders[:] = kept
    if os.lstat("/").st_mode & stat.S_IWOTH:
        found.append("/")
    return tuple(found)


def remove_owned(uid: int, folders: tuple[str, ...]) -> list[str]:
    """Remove every entry of `folders` that `uid` owns (a folder with all it holds); what could
    not be removed is returned, one line each."""
    failed: list[str] = []
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
                if info.st_uid != uid:
                    continue
                if stat.S_ISDIR(info.st_mode):
                    shutil.rmtree(entry.path)  # fd-based: links inside are removed, not followed
                else:
                    os.unlink(entry.path)
            except FileNotFoundError:
                continue
            except OSError as error:
                failed.append(f"{entry.path}: {error.strerror or error}")
    return failed


def sweep(uid: int) -> list[str]:
    """Remove what `uid` left in the host's world-writable folders; what could not be removed
    is returned."""
    return remove_owned(uid, world_writable_folders())
