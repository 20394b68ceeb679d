"""An interactive test's stdin and stdout: named pipes between the test and the parent.

Standard library only, part of the box (`grader.run.box`): the fork server imports it as a
sibling. The fork server makes the two pipes in its I/O folder (which the test cannot see) and
opens the test's ends before forking it: the test inherits them and never opens anything by name.
The parent opens the other ends once the test has started (`grader.run.exchange`) and removes
the names: nobody else ever holds an end.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grader.run.box.protocol import TALK_SUFFIXES
else:  # siblings (see __init__.py)
    from protocol import TALK_SUFFIXES


def open_talk(base: str) -> tuple[int, int]:
    """Make BASE.stdin and BASE.stdout (mode 0600) and open the test's ends: (stdin's read end,
    stdout's write end), both blocking. Until the parent opens its ends a read sees the end of
    input; the parent opens them before the test may run."""
    stdin_name, stdout_name = (base + suffix for suffix in TALK_SUFFIXES)
    os.mkfifo(stdin_name, 0o600)
    os.mkfifo(stdout_name, 0o600)
    flags = os.O_NOFOLLOW | os.O_CLOEXEC
    stdin_fd = os.open(stdin_name, os.O_RDONLY | os.O_NONBLOCK | flags)  # no writer needed
    holder = os.open(stdout_name, os.O_RDONLY | os.O_NONBLOCK | flags)  # a reader, so that
    stdout_fd = os.open(stdout_name, os.O_WRONLY | flags)  # this open does not wait for one
    os.close(holder)
    os.set_blocking(stdin_fd, True)
    return stdin_fd, stdout_fd


def asked(request: bytes) -> tuple[tuple[int, int] | None, bool]:
    """The scratch limits (bytes, files) a request asks for (the parent's own message), and
    whether the test talks with the parent (stdin and stdout its pipes)."""
    try:
        asked = json.loads(request)
        limits = asked["limits"]
        return (int(limits["scratch_bytes"]), int(limits["scratch_files"])), asked["kind"] == "interactive"
    except (ValueError, KeyError, TypeError):
        return None, False
