"""One test in flight, seen from the trusted parent: enclose it, watch it, collect what it did.

The parent measures the test from outside (its cgroup, else wait4 and /proc of processes the test
cannot reach), stops it at the first limit it crosses, and decides the verdict's inputs itself.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, TypeAlias

from grader.run import boundary, procfs
from grader.run.asleep import SleepWatch
from grader.run.boundary import Boundary, Promise
from grader.run.box.protocol import GO, RESULT_CAP_BYTES, TALK_SUFFIXES, Done, Request
from grader.run.cgroup import SlotGroups, TestCgroup
from grader.run.channel import Channel, ServerFault
from grader.run.exchange import Exchange
from grader.run.received import decode_result
from grader.suite.limits import Limits

SAMPLE_INTERVALS_S = ((0.25, 0.01), (2.0, 0.02), (float("inf"), 0.05))  # (until s, every s)
THREAD_ALLOWANCE = 64  # tasks above the process limit (pids.max), but in a test that counts work
STDERR_CAP_BYTES = 64 * 1024
ANSWER_TIMEOUT_S = 10.0
AFTER_KILL_TIMEOUT_S = 10.0
MEMORY_BACKSTOP = (1.25, 32 * 1024 * 1024)  # the kernel's hard limit: limit x 1.25 + 32 MB
KillReason: TypeAlias = Literal["cpu", "wall", "memory", "output", "processes", "asleep", "referee"]


def counts_work(request: Request) -> bool:
    """Whether the test counts a call's work (`count:`): it then runs as one task, no thread
    or process besides its own, so that no work escapes the tracer of its one thread."""
    return request["kind"] == "call" and any(step.get("count") for step in request["steps"])


class BoundaryShort(ServerFault):
    """A test did not get the boundary its sandbox level promises: it runs nothing (JE)."""


@dataclass
class RunOutcome:
    """What happened to one test process, before any comparison."""

    killed_for: KillReason | None = None
    exit_code: int | None = None
    cpu_s: float = 0.0
    wall_s: float = 0.0
    peak_mb: float = 0.0
    memory_measured: bool = False  # peak_mb is a memory cgroup's peak (else a sampled estimate)
    resident_mb: float = 0.0  # the test's own peak resident size (the kernel's maxrss), absolute
    result: Any = None
    result_error: str | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    worker_failure: str | None = None
    limits: Limits = field(default_factory=Limits)
    asleep_s: float = 0.0  # the longest the test was seen asleep (grader.run.asleep)
    napped: bool = False  # asleep by the nap rule: mostly not runnable, little CPU
    exchange: Exchange | None = None  # an interactive test's game with its referee


class Server(Protocol):
    """What a test needs of its fork server (`grader.run.runner.ForkServer`)."""

    channel: Channel | None
    server_pid: int
    server_rss_kb: int
    namespaces: bool
    why_no_namespaces: str
    io_dir: Path
    spare_cgroup: TestCgroup | None
    slot: SlotGroups
    promise: Promise
    boundary: Boundary | None
    outside_namespaces: dict[str, str]

    def send(self, data: bytes) -> None: ...

    def end_later(self, cgroup: TestCgroup) -> None: ...

    def sweep(self) -> None: ...


class Test:
    """One test in flight: hand over the request, watch, collect, clean up."""

    def __init__(self, server: Server, request: Request, limits: Limits, outcome: RunOutcome) -> None:
        self.server = server
        self.request = request
        self.limits = limits
        self.outcome = outcome
        self.cgroup: TestCgroup | None = None
        self.student = 0
        self.reporter: int | None = None
        self.out_fd: int | None = None
        self.err_fd: int | None = None
        self.number = 0
        self.baseline_kb = 0
        self.exchange = outcome.exchange

    def run(self) -> None:
        server = self.server
        assert server.channel is not None
        try:
            server.send(json.dumps(self.request).encode() + b"\n")
            started = server.channel.started(time.monotonic() + ANSWER_TIMEOUT_S)
            self.number = started["test"]
            if started["confined"]:
                raise BoundaryShort(f"the test could not confine itself: {started['confined']}")
            self._enclose()
            if self.exchange is not None:
                self.exchange.open(server.io_dir, self.number)
            server.send(GO)
            done = self._watch(time.monotonic())
            self._collect(done)
            if self.exchange is not None and self.outcome.killed_for is None:
                self.exchange.finish()  # a test stopped by a limit: its verdict is the limit's
        finally:
            if self.exchange is not None:
                self.exchange.close()
            if self.cgroup is not None and self.outcome.exit_code is None:
                server.end_later(self.cgroup)  # it answered and was exiting (or a fault)
            elif self.cgroup is not None:
                self.cgroup.kill()
                self.cgroup.remove()
            self._clean_files()

    def _enclose(self) -> None:
        """Find the test's processes, put them in a fresh cgroup, open its output files."""
        server = self.server
        waited = procfs.children(server.server_pid)
        if len(waited) != 1:
            raise ServerFault(f"the fork server has {len(waited)} test processes, not one")
        if server.namespaces:
            self.reporter = waited[0]
            students = procfs.children(self.reporter)
            if len(students) != 1:
                raise ServerFault("the test's namespace does not hold exactly one test process")
            self.student = students[0]
        else:
            self.student = waited[0]
        memory = self.limits.memory_mb * 1024 * 1024
        backstop = int(memory * MEMORY_BACKSTOP[0] + MEMORY_BACKSTOP[1])
        self.cgroup = server.spare_cgroup or TestCgroup.create(server.slot)
        server.spare_cgroup = None
        if self.cgroup is not None:  # the reporter stays out: it only waits, and must outlive a kill
            threads = 0 if counts_work(self.request) else THREAD_ALLOWANCE
            refused = self.cgroup.set_limits(backstop, self.limits.processes + threads)
            if refused:
                raise BoundaryShort(f"the kernel refused the test's limit ({refused})")
            if not self.cgroup.add(self.student):
                raise ServerFault("could not move the test into its cgroup")
        self._check_boundary()
        if self.cgroup is None or "memory" not in self.cgroup.measures:
            self.baseline_kb = procfs.status_kb(server.server_pid, b"VmRSS:")
        base = server.io_dir / str(self.number)
        self.out_fd = procfs.open_untrusted(base.with_suffix(".out"))
        self.err_fd = procfs.open_untrusted(base.with_suffix(".err"))

    def _check_boundary(self) -> None:
        """Read what the test got from outside; refuse to let it run when it falls short."""
        server = self.server
        groups = self.cgroup.contained if self.cgroup is not None else {}
        try:
            got = boundary.read(self.student, server.outside_namespaces, groups)
        except boundary.BoundaryUnreadable as error:
            raise BoundaryShort(f"the test's boundary could not be checked: {error.strerror}") from error
        server.boundary = got
        problems = boundary.shortfalls(got, server.promise)
        if self.cgroup is not None and self.cgroup.missing:
            problems.append(f"no cgroup of its own in {', '.join(self.cgroup.missing)}")
        if problems:
            why = f" (namespaces: {server.why_no_namespaces})" if server.why_no_namespaces else ""
            raise BoundaryShort(
                f"the test's boundary is weaker than the sandbox promises: it {'; it '.join(problems)}{why}"
            )

    def _sample(self, started: float, sleep: SleepWatch) -> KillReason | None:
        """Why the test must be stopped now, if it must."""
        limits, cgroup = self.limits, self.cgroup
        measures = cgroup.measures if cgroup is not None else set()
        tree = [] if measures >= {"cpu", "memory"} and cgroup is not None else procfs.tree(self.student)
        cpu = cgroup.cpu_s() if cgroup is not None and "cpu" in measures else None
        if cpu is None:
            cpu = sum(procfs.cpu_s(pid) for pid in tree)
        memory_kb = None
        if cgroup is not None and "memory" in measures:
            now = cgroup.memory_bytes()
            memory_kb = now // 1024 if now is not None else None
        if memory_kb is None:
            memory_kb = sum(max(procfs.status_kb(pid, b"VmHWM:") - self.baseline_kb, 0) for pid in tree)
            self.outcome.peak_mb = max(self.outcome.peak_mb, memory_kb / 1024)
        processes = len(cgroup.processes()) if cgroup is not None else len(tree)
        output_cap = limits.output_kb * 1024
        if procfs.file_size(self.out_fd) > output_cap or procfs.file_size(self.err_fd) > output_cap:
            return "output"  # before memory: a flood's pages are charged to the test's memory too
        if memory_kb > limits.memory_mb * 1024:
            return "memory"
        if cpu > limits.cpu_s:
            return "cpu"
        if processes > limits.processes or (cgroup is not None and cgroup.refused_forks()):
            return "processes"
        threads = cgroup.threads if cgroup is not None else lambda: procfs.threads(tree)
        moment = time.monotonic()
        asleep = sleep.asleep(moment, cpu, threads)
        self.outcome.asleep_s = max(self.outcome.asleep_s, round(sleep.longest_s, 3))
        self.outcome.napped = sleep.napped
        if asleep:
            return "asleep"
        if moment - started > limits.wall_s:
            return "wall"
        return None

    def _watch(self, started: float) -> Done:
        channel = self.server.channel
        assert channel is not None
        deadline: float | None = None
        if self.server.spare_cgroup is None:  # made while the test runs, for the next one
            self.server.spare_cgroup = TestCgroup.create(self.server.slot)
        self.server.sweep()
        sleep = SleepWatch(started)
        while True:
            elapsed = time.monotonic() - started
            interval = next(step for until, step in SAMPLE_INTERVALS_S if elapsed < until)
            exchange = self.exchange
            if exchange is None:
                done = channel.done(time.monotonic() + interval)
            else:  # the referee's turns are neither the test's wall time nor its sleep
                done = exchange.wait(channel, time.monotonic() + interval)
                started, exchange.paused_s = started + exchange.paused_s, 0.0
                if exchange.answered:
                    self.outcome.asleep_s = max(self.outcome.asleep_s, round(sleep.longest_s, 3))
                    sleep, exchange.answered = SleepWatch(time.monotonic()), False
                if exchange.stop is not None and deadline is None and done is None:
                    self.outcome.killed_for = "output" if exchange.stop == "output" else "referee"
                    self._kill()
                    deadline = time.monotonic() + AFTER_KILL_TIMEOUT_S
            if done is not None:
                if done["test"] != self.number:
                    raise ServerFault("the fork server answered out of turn")
                self.outcome.wall_s = round(time.monotonic() - started, 4)
                return done
            if deadline is not None:
                if time.monotonic() > deadline:
                    raise ServerFault("the fork server did not report a test it was told to end")
                continue
            reason = self._sample(started, sleep)
            if reason is not None:
                if self.exchange is not None:  # the game ends with the test: no more turns
                    self.exchange.stop = self.exchange.stop or "limit"
                self.outcome.killed_for = reason
                self._kill()
                deadline = time.monotonic() + AFTER_KILL_TIMEOUT_S

    def _kill(self) -> None:
        """Kill the test and all it started; its reporter outside the namespace stays to report."""
        if self.cgroup is not None:
            self.cgroup.kill()
        targets = procfs.tree(self.student)
        for sig in (signal.SIGSTOP, signal.SIGKILL):  # stop first: a fork bomb cannot outrun it
            for pid in targets:
                if pid:
                    with contextlib.suppress(OSError):
                        os.kill(pid, sig)

    def _collect(self, done: Done) -> None:
        channel = self.server.channel
        assert channel is not None
        outcome, cgroup = self.outcome, self.cgroup
        size = done["result_bytes"]
        if size > RESULT_CAP_BYTES:
            raise ServerFault("the fork server announced an oversized result")
        raw = channel.payload(size, time.monotonic() + ANSWER_TIMEOUT_S)
        exit_code = done["exit_code"]
        if exit_code is None and (
            cgroup is None or not cgroup.measures >= {"cpu", "memory"} or not raw
        ):  # it answered and is exiting: only a cgroup measures it
            raise ServerFault("the fork server did not wait for a test it cannot measure")
        outcome.exit_code = exit_code
        cpu = cgroup.cpu_s() if cgroup is not None else None
        outcome.cpu_s = round(cpu if cpu is not None else done["cpu_s"], 4)
        peak = cgroup.memory_peak_bytes() if cgroup is not None else None
        if peak is not None:
            outcome.peak_mb = round(peak / (1024 * 1024), 2)
            outcome.memory_measured = True
        else:
            kernel_kb = max(done["maxrss_kb"] - self.baseline_kb, 0)
            outcome.peak_mb = round(max(outcome.peak_mb, kernel_kb / 1024), 2)
        # Absolute: the kernel's maxrss when the server waited for the test, else what the test
        # added to the pages it shares with the fork server it was forked from.
        outcome.resident_mb = round(
            max(done["maxrss_kb"] / 1024, outcome.peak_mb + self.server.server_rss_kb / 1024), 2
        )
        if cgroup is not None and cgroup.oom_kills():
            outcome.killed_for = outcome.killed_for or "memory"
        if cgroup is not None and cgroup.refused_forks():
            outcome.killed_for = outcome.killed_for or "processes"
        if done["result_truncated"]:
            outcome.killed_for = outcome.killed_for or "output"
        output_cap = int(self.limits.output_kb * 1024)
        outcome.stdout = procfs.read_capped(self.out_fd, output_cap)
        outcome.stderr = procfs.read_capped(self.err_fd, STDERR_CAP_BYTES)
        if raw:
            outcome.result, outcome.result_error = decode_result(raw)

    def _clean_files(self) -> None:
        for fd in (self.out_fd, self.err_fd):
            if fd is not None:
                os.close(fd)
        if self.number:
            base = self.server.io_dir / str(self.number)
            for suffix in (".out", ".err", *TALK_SUFFIXES):
                with contextlib.suppress(OSError):
                    base.with_suffix(suffix).unlink()
            shutil.rmtree(base.with_suffix(".d"), ignore_errors=True)
