"""An interactive test's conversation, seen from the trusted parent: a referee talks with the
sandboxed driver over its stdin and stdout, turn by turn, while the watchdog watches the test.

The referee (trusted code of the fixtures, wrapped by `grader.judge.referees`) runs here, in the
parent, between the watchdog's samples: it is handed what the driver printed, as text, and says
what to type next, or rules on the game. Its time is not the test's: the test's CPU is its cgroup's,
the wall clock the test is judged by leaves out the referee's turns (`paused_s`), and a test that
waited for the referee is not asleep (`answered`). Whatever the driver prints is inert text,
counted against the output limit and kept with what was typed as the game's record.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import select
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol, TypeAlias

from grader.run.box.protocol import TALK_SUFFIXES, Done
from grader.run.channel import Channel, ServerFault

READ_CHUNK = 65536
READS_PER_WAIT = 16  # a flood is read 1 MB at a time between the watchdog's samples
Side: TypeAlias = Literal[">", "<"]  # ">" typed by the referee, "<" printed by the driver
StopReason: TypeAlias = Literal["output", "referee", "limit"]  # limit: the watchdog stopped it


@dataclass(frozen=True)
class Ruling:
    """The referee's word on a game: AC, WA, or JE (its own failure), with why."""

    verdict: Literal["AC", "WA", "JE"]
    message: str = ""
    details: str = ""  # for a JE: where the referee failed (file, line, function)


Reply: TypeAlias = str | Ruling  # what to type ("": nothing yet, wait for more output), or a ruling


class Referee(Protocol):
    """What the exchange needs of a referee (`grader.judge.referees.RefereeSession`); it never
    raises: its own failures are a `Ruling` with verdict JE."""

    def opening(self) -> Reply: ...

    def answer(self, printed: str | None) -> Reply:
        """The reply to what the driver printed since the last reply (None: its output ended)."""
        ...


@dataclass
class Exchange:
    """One game between a referee and a test's driver: the pipes, the record, the ruling."""

    referee: Referee
    output_cap: int  # bytes the driver may print
    game: list[tuple[Side, str]] = field(default_factory=list)
    ruling: Ruling | None = None
    turn: int = 0  # how many times the referee has typed
    printed_bytes: int = 0
    paused_s: float = 0.0  # the referee's time while the test ran
    answered: bool = False  # the referee replied since the watchdog last looked
    stop: StopReason | None = None  # why the test must end now
    ended: bool = False  # the driver's output ended
    stdin_fd: int | None = None
    stdout_fd: int | None = None
    pending: bytearray = field(default_factory=bytearray)
    decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")(errors="replace")
    )

    def open(self, io_dir: Path, number: int) -> None:
        """Open the parent's ends of test `number`'s pipes and remove their names (before the
        test may run: it reads the end of its input until then), then the referee's opening."""
        stdin_name, stdout_name = (io_dir / f"{number}{suffix}" for suffix in TALK_SUFFIXES)
        flags = os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            self.stdout_fd = os.open(stdout_name, os.O_RDONLY | flags)
            self.stdin_fd = os.open(stdin_name, os.O_WRONLY | flags)
        except OSError as error:
            raise ServerFault(f"the test's pipes could not be opened ({error.strerror})") from error
        finally:
            for name in (stdin_name, stdout_name):
                with contextlib.suppress(OSError):
                    name.unlink()
        self._reply(self.referee.opening())

    def wait(self, channel: Channel, deadline: float) -> Done | None:
        """Carry the conversation on until the test's `done` comes, `deadline` passes or the
        test must be stopped (`stop`)."""
        while True:
            if self.stop is not None:  # the watchdog stops the test: only its `done` matters
                return channel.done(deadline)
            done = channel.done(time.monotonic())  # one already read, without waiting
            remaining = deadline - time.monotonic()
            if done is not None or remaining <= 0:
                return done
            readable = [channel.fd, *([self.stdout_fd] if self.stdout_fd is not None else [])]
            writable = [self.stdin_fd] if self.pending and self.stdin_fd is not None else []
            ready_read, ready_write, _ = select.select(readable, writable, [], remaining)
            if ready_write:
                self._write()
            if self.stdout_fd is not None and self.stdout_fd in ready_read:
                self._read()
            if channel.fd in ready_read:
                return channel.done(time.monotonic() + 1.0)

    def finish(self) -> None:
        """After the test ended: what it printed last, the end of its output for the referee
        (unless it ruled already), and the pipes closed."""
        if self.stdout_fd is not None and self.stop is None:
            self._read(until_empty=True)
            if not self.ended and self.ruling is None and self.stop is None:
                self.ended = True  # the test has ended: so has its output
                self._heard(None)
        self.close()

    def close(self) -> None:
        for fd in (self.stdin_fd, self.stdout_fd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.stdin_fd = self.stdout_fd = None

    # -- the driver's side

    def _read(self, until_empty: bool = False) -> None:
        assert self.stdout_fd is not None
        for _ in range(READS_PER_WAIT if not until_empty else 1 + self.output_cap // READ_CHUNK):
            try:
                chunk = os.read(self.stdout_fd, READ_CHUNK)
            except BlockingIOError:
                return
            if not chunk:
                self.ended = True
                os.close(self.stdout_fd)
                self.stdout_fd = None
                if self.ruling is None:
                    self._heard(None)
                return
            # The referee hears every byte up to the output limit, however the pipe cut them, so
            # whether it rules before the limit is crossed depends on the bytes, never on timing.
            room = max(self.output_cap - self.printed_bytes, 0)
            self.printed_bytes += len(chunk)
            text = self.decoder.decode(chunk[:room])
            if text:
                self.game.append(("<", text))
                if self.ruling is None:
                    self._heard(text)
            if self.printed_bytes > self.output_cap:
                self.stop = self.stop or "output"  # unless the referee ruled on what came first
                return

    def _write(self) -> None:
        assert self.stdin_fd is not None
        try:
            written = os.write(self.stdin_fd, self.pending)
        except BlockingIOError:
            return
        except OSError:  # the driver closed its stdin or ended: what is left is not read
            self.pending.clear()
            return
        del self.pending[:written]
        if not self.pending and self.ruling is not None:
            self._close_stdin()

    def _close_stdin(self) -> None:
        if self.stdin_fd is not None:
            os.close(self.stdin_fd)
            self.stdin_fd = None

    # -- the referee's side

    def _heard(self, printed: str | None) -> None:
        started = time.monotonic()
        reply = self.referee.answer(printed)
        self.paused_s += time.monotonic() - started
        self.answered = True
        self._reply(reply)

    def _reply(self, reply: Reply) -> None:
        if isinstance(reply, Ruling):
            self.ruling = reply
            if reply.verdict != "AC":
                self.stop = self.stop or "referee"  # the game is decided: the test ends now
            elif not self.pending:
                self._close_stdin()  # the driver reads the end of its input
            return
        if reply:
            self.turn += 1
            self.game.append((">", reply))
            self.pending += reply.encode()
            if self.stdin_fd is not None:
                self._write()
