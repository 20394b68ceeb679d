"""The parent's end of the fork server's stdout: JSON header lines, then payloads of known length.

Nothing the fork server says is taken unchecked: every read has a size cap and a deadline, and
every message is checked on receipt against the shapes of the box's protocol
(`grader.run.box.protocol`, the one module of the box the parent imports).
"""

from __future__ import annotations

import json
import os
import select
import time
from collections.abc import Callable
from typing import Any, TypeVar

from grader.run.box.protocol import REASON_CAP, Done, Ready, Started

HEADER_CAP_BYTES = 64 * 1024
T = TypeVar("T")


class ServerStartError(OSError):
    """The fork server (and so no test) could not start."""


class ProtocolError(ValueError):
    """A message from the fork server that does not have the shape of the protocol."""


class ServerFault(OSError):
    """The fork server broke the protocol, died or stopped answering (never the test's doing)."""


class Channel:
    """The fork server's stdout, read without ever blocking past a deadline."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()
        self.scanned = 0  # bytes of `buffer` known to hold no newline: each byte is looked at once

    def _fill(self, deadline: float) -> bool:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([self.fd], [], [], remaining)[0]:
            return False
        chunk = os.read(self.fd, 1 << 20)
        if not chunk:
            raise ServerFault("the fork server exited")
        self.buffer += chunk
        return True

    def message(self, deadline: float) -> Any:
        """The next header as JSON data (unchecked), or None if none came before `deadline`."""
        while (end := self.buffer.find(b"\n", self.scanned)) < 0:
            self.scanned = len(self.buffer)
            if self.scanned > HEADER_CAP_BYTES:
                raise ServerFault("the fork server sent an overlong message")
            if not self._fill(deadline):
                return None
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        self.scanned = 0
        try:
            return json.loads(line)
        except ValueError as error:
            raise ServerFault("the fork server sent an unreadable message") from error

    def ready(self, deadline: float) -> Ready | None:
        """The fork server's `ready`, or None if it did not come in time."""
        message = self.message(deadline)
        return None if message is None else _checked(ready, message)

    def started(self, deadline: float) -> Started:
        message = self.message(deadline)
        if message is None:
            raise ServerFault("the fork server did not start the test")
        return _checked(started, message)

    def done(self, deadline: float) -> Done | None:
        """The test's `done`, or None if it has not come by `deadline`."""
        message = self.message(deadline)
        return None if message is None else _checked(done, message)

    def payload(self, size: int, deadline: float) -> bytes:
        while len(self.buffer) < size:
            if not self._fill(deadline):
                raise ServerFault("the fork server stopped in the middle of a result")
        data = bytes(self.buffer[:size])
        del self.buffer[:size]
        return data


def _checked(parse: Callable[[Any], T], message: Any) -> T:
    try:
        return parse(message)
    except ProtocolError as error:
        raise ServerFault(f"the fork server sent a malformed message: {error}") from error


# ---------------------------------------------------------------- each message checked on receipt


def _field(message: dict[str, Any], key: str, kinds: tuple[type, ...], nonnegative: bool = True) -> Any:
    value = message.get(key)
    if type(value) not in kinds or (nonnegative and value is not None and value < 0):
        raise ProtocolError(f"a malformed '{key}'")
    return value


def _event(message: Any, event: str) -> dict[str, Any]:
    if not isinstance(message, dict) or message.get("event") != event:
        raise ProtocolError(f"expected '{event}'")
    return message


def ready(message: Any) -> Ready:
    """A `ready` message, checked."""
    data = _event(message, "ready")
    return Ready(
        event="ready",
        pid=_field(data, "pid", (int,)),
        namespaces=data.get("namespaces") is True,
        why=str(data.get("why", ""))[:REASON_CAP],
    )


def started(message: Any) -> Started:
    """A `started` message, checked."""
    data = _event(message, "started")
    return Started(
        event="started",
        test=_field(data, "test", (int,)),
        confined=str(data.get("confined", "no confinement report"))[:REASON_CAP],
    )


def done(message: Any) -> Done:
    """A `done` message, checked (`exit_code` may be negative: a signal)."""
    data = _event(message, "done")
    return Done(
        event="done",
        test=_field(data, "test", (int,)),
        exit_code=_field(data, "exit_code", (int, type(None)), nonnegative=False),
        cpu_s=float(_field(data, "cpu_s", (int, float))),
        maxrss_kb=_field(data, "maxrss_kb", (int,)),
        wall_s=float(_field(data, "wall_s", (int, float))),
        result_bytes=_field(data, "result_bytes", (int,)),
        result_truncated=_field(data, "result_truncated", (bool,)),
    )
