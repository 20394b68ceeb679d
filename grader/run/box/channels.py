"""The fork server's side of its pipes: messages to the parent, and what a test process says.

Standard library only, part of the box (`grader.run.box`): the fork server imports it as a sibling.
"""

from __future__ import annotations

import io
import json
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grader.run.box import protocol
    from grader.run.box.protocol import Done, Ready, Started
else:  # siblings (see __init__.py); the doctests import this module alone
    sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
    import protocol


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def read_confined(fd: int) -> str:
    """'' when the test confined itself (it wrote CONFINED), else why not (REFUSED... or its end)."""
    answer = b""
    longest = len(protocol.REFUSED) + protocol.REASON_CAP
    while len(answer) < longest:
        chunk = os.read(fd, longest - len(answer))
        if not chunk:
            break
        answer += chunk
        if answer == protocol.CONFINED:
            return ""
    if answer.startswith(protocol.REFUSED):
        why = answer[len(protocol.REFUSED) :].decode("utf-8", "replace")
        return why or "the test could not confine itself"
    return "the test ended before it confined itself"


def read_line(fd: int) -> str:
    """One short line from a pipe, read a byte at a time so that nothing after it is consumed."""
    data = b""
    while not data.endswith(b"\n") and len(data) < protocol.REPORT_LINE_CAP:
        byte = os.read(fd, 1)
        if not byte:
            break
        data += byte
    return data.decode("utf-8", "replace")


def send(stream: io.BufferedWriter, message: Ready | Started | Done, payload: bytes = b"") -> None:
    stream.write(json.dumps(message).encode() + b"\n" + payload)
    stream.flush()
