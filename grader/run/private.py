"""Who may reach a grading's scratch: the grader, and its own tests' uid while they run.

A scratch folder is made 0700 (`tempfile.mkdtemp`) and everything below it the grader's alone.
A fork server's tests run as an unprivileged uid of their own (`boundary.test_uid`) whose group
is the same number and has nobody else in it: what they must reach goes to that group. The
scratch and the folders holding things of several tests (inputs, I/O) can be passed, never
listed (0710); the code and one test's inputs can be read (0750, 0640); nothing is open to
others, so another grading's tests (at the container level, the host's /tmp is theirs to list)
and local accounts cannot enter the scratch, whatever path they read in /proc or guess.
Without a tests' uid (the grader is not root) the tests run as the grader: 0700 and 0600.
"""

from __future__ import annotations

import os
from pathlib import Path

PASSABLE = 0o710
READABLE_FOLDER = 0o750
READABLE_FILE = 0o640


def share(path: Path, group: int | None, mode: int) -> None:
    """`path` (not what is below it) at `mode` for the tests' `group` (None: the owner only)."""
    if group is None:
        mode &= 0o700
    else:
        os.chown(path, -1, group, follow_symlinks=False)
    path.chmod(mode)


def share_tree(path: Path, group: int | None) -> None:
    """`path` and everything below it readable by the tests' `group`: folders 0750, files 0640
    (links are left as they are: nothing of a submission is a link)."""
    below = sorted(path.rglob("*"), reverse=True) if path.is_dir() else []
    for item in [*below, path]:
        if item.is_symlink():
            continue
        share(item, group, READABLE_FOLDER if item.is_dir() else READABLE_FILE)
