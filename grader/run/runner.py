"""The parent side of a run: a fork server per submission, and a watchdog per test.

The parent is the trusted side. It never follows a link or opens a special file the test could
have planted, reads every file and message with a size cap and a deadline, measures the test
from outside (the test's cgroup, else wait4 and /proc of processes the test cannot reach), and
decides the verdict's inputs itself. Nothing the fork server says is taken unchecked either.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.run.cgroup import TestCgroup
from grader.run.sandbox import bwrap_prefix, interpreter
from grader.suite.schema import Limits

WORKER_FILES = ("worker.py", "confine.py")
SAMPLE_INTERVALS_S = ((0.25, 0.01), (2.0, 0.02), (float("inf"), 0.05))  # (until s, every s)
THREAD_ALLOWANCE = 64
HEADER_CAP_BYTES = 64 * 1024
RESULT_CAP_BYTES = 8 * 1024 * 1024
STDERR_CAP_BYTES = 64 * 1024
START_TIMEOUT_S = 30.0
ANSWER_TIMEOUT_S = 10.0
AFTER_KILL_TIMEOUT_S = 10.0
MEMORY_BACKSTOP = (1.25, 32 * 1024 * 1024)  # the kernel's hard limit: limit x 1.25 + 32 MB
MINIMAL_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "HOME": "/tmp", "TMPDIR": "/tmp"}


@dataclass
class RunOutcome:
    """What happened to one test process, before any comparison."""

    killed_for: str | None = None  # "cpu", "wall", "memory", "output", "processes"
    exit_code: int | None = None
    cpu_s: float = 0.0
    wall_s: float = 0.0
    peak_mb: float = 0.0
    resident_mb: float = 0.0  # the test's own peak resident size (the kernel's maxrss), absolute
    result: Any = None
    result_error: str | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    worker_failure: str | None = None
    limits: Limits = field(default_factory=Limits)


class ServerStartError(OSError):
    """The fork server (and so no test) could start."""


class ServerFault(OSError):
    """The fork server broke the protocol, died or stopped answering (never the test's doing)."""


# ---------------------------------------------------------------- reading /proc, safely


def _children(pid: int) -> list[int]:
    """The children of every thread of `pid` (empty once it has gone)."""
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", "rb") as listing:
                found += [int(child) for child in listing.read().split()]
    except (OSError, ValueError):
        pass
    return found


def _tree(pid: int) -> list[int]:
    """`pid` and all its descendants, as far as /proc shows them now."""
    tree: list[int] = []
    frontier = [pid]
    while frontier and len(tree) < 100_000:
        current = frontier.pop()
        tree.append(current)
        frontier += _children(current)
    return tree


def _status_kb(pid: int, key: bytes) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _cpu_s(pid: int) -> float:
    """User + system time of `pid` and of its children it has waited for."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat_file:
            fields = stat_file.read().rsplit(b")", 1)[1].split()
        return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _comm(pid: int) -> str:
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


def _file_size(fd: int | None) -> int:
    return os.fstat(fd).st_size if fd is not None else 0


# ---------------------------------------------------------------- the channel


class Channel:
    """The fork server's stdout: JSON header lines, and byte payloads of announced length."""

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

    def message(self, deadline: float) -> dict[str, Any] | None:
        """The next header, or None if none came before `deadline`."""
        while (end := self.buffer.find(b"\n", self.scanned)) < 0:
            self.scanned = len(self.buffer)
            if self.scanned > HEADER_CAP_BYTES:
                raise ServerFault("the fork server sent an overlong message")
            if not self._fill(deadline):
                return None
        line = bytes(self.buffer[:end])
        del self.buffer[:end + 1]
        self.scanned = 0
        try:
            message = json.loads(line)
        except ValueError as error:
            raise ServerFault("the fork server sent an unreadable message") from error
        if not isinstance(message, dict) or not isinstance(message.get("event"), str):
            raise ServerFault("the fork server sent a malformed message")
        return message

    def payload(self, size: int, deadline: float) -> bytes:
        while len(self.buffer) < size:
            if not self._fill(deadline):
                raise ServerFault("the fork server stopped in the middle of a result")
        data = bytes(self.buffer[:size])
        del self.buffer[:size]
        return data


def _number(message: dict[str, Any], key: str, kind: type = float) -> Any:
    value = message.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (value < 0 \
            and key != "exit_code"):
        raise ServerFault(f"the fork server sent a malformed '{key}'")
    return kind(value)


# ---------------------------------------------------------------- the fork server


class ForkServer:
    """One worker process that runs each test of a submission in fresh, confined processes."""

    def __init__(self, code_dir: Path, scratch: Path, sandbox: str = "process",
                 inputs: Path | None = None, env: dict[str, str] | None = None) -> None:
        self.code_dir = code_dir
        self.scratch = scratch
        self.sandbox = sandbox
        self.inputs = inputs
        self.suite_env = dict(env or {})
        self.env = {**MINIMAL_ENV, **self.suite_env}
        self.io_dir = scratch / "io"
        self.process: subprocess.Popen[bytes] | None = None
        self.channel: Channel | None = None
        self.server_pid = 0
        self.namespaces = False
        self.why_no_namespaces = ""
        self.spare_cgroup: TestCgroup | None = None
        self.ending: list[TestCgroup] = []  # groups of tests that answered and are being ended

    # -- life cycle

    def start(self) -> None:
        shutil.rmtree(self.io_dir, ignore_errors=True)
        self.io_dir.mkdir(mode=0o700)
        if self.spare_cgroup is None:
            self.spare_cgroup = TestCgroup.create()
        measured = self.spare_cgroup is not None and self.spare_cgroup.measures >= {"cpu", "memory"}
        config = {"code_dir": str(self.code_dir), "io_dir": str(self.io_dir),
                  "inputs": [str(self.inputs)] if self.inputs else [],
                  "sandboxed": self.sandbox == "bwrap", "namespaces": True,
                  "done_at_result": measured}
        if self.sandbox == "bwrap":
            worker_dir = self.scratch / "worker"
            worker_dir.mkdir(exist_ok=True)
            for name in WORKER_FILES:
                shutil.copyfile(Path(__file__).with_name(name), worker_dir / name)
            read_only = [self.code_dir, worker_dir, *([self.inputs] if self.inputs else [])]
            prefix = bwrap_prefix(read_only, [self.io_dir], self.env)
            command = [*prefix, interpreter(), "-I", "-S", str(worker_dir / "worker.py"),
                       json.dumps(config)]
        else:
            command = [sys.executable, "-I", "-S", str(Path(__file__).with_name("worker.py")),
                       json.dumps(config)]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, cwd=self.scratch,
                                        start_new_session=True, env=self.env)
        assert self.process.stdout is not None
        self.channel = Channel(self.process.stdout.fileno())
        try:
            ready = self.channel.message(time.monotonic() + START_TIMEOUT_S)
        except ServerFault:
            ready = None
        if ready is None or ready.get("event") != "ready":
            self.stop()
            raise ServerStartError(f"the fork server did not start ({self.sandbox} sandbox)")
        self.namespaces = ready.get("namespaces") is True
        self.why_no_namespaces = str(ready.get("why", ""))[:300]
        self.server_pid = self._find_server()

    def _find_server(self) -> int:
        """The fork server's pid here: under bubblewrap, below bwrap and its namespace's init."""
        assert self.process is not None
        pid = self.process.pid
        for _ in range(4):
            children = _children(pid)
            if _comm(pid) != "bwrap" or len(children) != 1:
                return pid
            pid = children[0]
        return pid

    def send(self, data: bytes) -> None:
        """Write to the fork server's stdin, giving up (ServerFault) if it stops reading."""
        assert self.process is not None and self.process.stdin is not None
        fd = self.process.stdin.fileno()
        os.set_blocking(fd, False)
        deadline = time.monotonic() + ANSWER_TIMEOUT_S
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([], [fd], [], remaining)[1]:
                raise ServerFault("the fork server stopped reading its requests")
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                continue

    def end_later(self, cgroup: TestCgroup) -> None:
        """Kill a finished test's group now; remove it once empty, off the critical path."""
        cgroup.signal_kill()
        self.ending.append(cgroup)

    def sweep(self) -> None:
        """Remove the groups of ended tests that are empty by now."""
        self.ending = [cgroup for cgroup in self.ending if not cgroup.try_remove()]

    def stop(self) -> None:
        for cgroup in self.ending:
            cgroup.remove()
        self.ending.clear()
        if self.spare_cgroup is not None:
            self.spare_cgroup.remove()
            self.spare_cgroup = None
        if self.process is None:
            return
        for pid in reversed(_tree(self.process.pid)):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        self.process = None
        self.channel = None

    # -- one test

    def run(self, request: dict[str, Any], limits: Limits,
            stdin_file: Path | None = None) -> RunOutcome:
        """Run one test request under `limits`; never raises for anything the test does."""
        if self.process is None or self.process.poll() is not None:
            self.stop()
            self.start()
        outcome = RunOutcome(limits=limits)
        request = {**request, "stdin": str(stdin_file) if stdin_file else None,
                   "env": self.suite_env, "limits": {
                       "cpu_s": limits.cpu_s, "output_bytes": int(limits.output_kb * 1024),
                       "scratch_bytes": int(limits.scratch_mb * 1024 * 1024),
                       "scratch_files": limits.scratch_files}}
        try:
            Test(self, request, limits, outcome).run()
        except (ServerFault, OSError) as error:
            outcome.worker_failure = f"the grader's fork server failed during this test ({error})"
            self.stop()
        return outcome


class Test:
    """One test in flight: hand over the request, watch, collect, clean up."""

    def __init__(self, server: ForkServer, request: dict[str, Any], limits: Limits,
                 outcome: RunOutcome) -> None:
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
        self.server_rss_kb = 0

    def run(self) -> None:
        server = self.server
        assert server.process is not None and server.process.stdin is not None
        assert server.channel is not None
        try:
            server.send(json.dumps(self.request).encode() + b"\n")
            started = server.channel.message(time.monotonic() + ANSWER_TIMEOUT_S)
            if started is None or started.get("event") != "started":
                raise ServerFault("the fork server did not start the test")
            self.number = _number(started, "test", int)
            self._enclose()
            server.send(b'{"go": true}\n')
            done = self._watch(time.monotonic())
            self._collect(done)
        finally:
            if self.cgroup is not None and self.outcome.exit_code is None:
                server.end_later(self.cgroup)  # it answered and was exiting (or a fault)
            elif self.cgroup is not None:
                self.cgroup.kill()
                self.cgroup.remove()
            self._clean_files()

    def _enclose(self) -> None:
        """Find the test's processes, put them in a fresh cgroup, open its output files."""
        server = self.server
        waited = _children(server.server_pid)
        if len(waited) != 1:
            raise ServerFault(f"the fork server has {len(waited)} test processes, not one")
        if server.namespaces:
            self.reporter = waited[0]
            students = _children(self.reporter)
            if len(students) != 1:
                raise ServerFault("the test's namespace does not hold exactly one test process")
            self.student = students[0]
        else:
            self.student = waited[0]
        memory = self.limits.memory_mb * 1024 * 1024
        backstop = int(memory * MEMORY_BACKSTOP[0] + MEMORY_BACKSTOP[1])
        self.cgroup = server.spare_cgroup or TestCgroup.create()
        server.spare_cgroup = None
        if self.cgroup is not None:  # the reporter stays out: it only waits, and must outlive a kill
            self.cgroup.set_limits(backstop, self.limits.processes + THREAD_ALLOWANCE)
            if not self.cgroup.add(self.student):
                raise ServerFault("could not move the test into its cgroup")
        self.server_rss_kb = _status_kb(server.server_pid, b"VmRSS:")
        if self.cgroup is None or "memory" not in self.cgroup.measures:
            self.baseline_kb = self.server_rss_kb
        base = server.io_dir / str(self.number)
        self.out_fd = open_untrusted(base.with_suffix(".out"))
        self.err_fd = open_untrusted(base.with_suffix(".err"))

    def _sample(self, started: float) -> str | None:
        """Why the test must be stopped now, if it must."""
        limits, cgroup = self.limits, self.cgroup
        measures = cgroup.measures if cgroup is not None else set()
        tree = [] if measures >= {"cpu", "memory"} and cgroup is not None else _tree(self.student)
        cpu = cgroup.cpu_s() if cgroup is not None and "cpu" in measures else None
        if cpu is None:
            cpu = sum(_cpu_s(pid) for pid in tree)
        memory_kb = None
        if cgroup is not None and "memory" in measures:
            now = cgroup.memory_bytes()
            memory_kb = now // 1024 if now is not None else None
        if memory_kb is None:
            memory_kb = sum(max(_status_kb(pid, b"VmHWM:") - self.baseline_kb, 0) for pid in tree)
            self.outcome.peak_mb = max(self.outcome.peak_mb, memory_kb / 1024)
        processes = len(cgroup.processes()) if cgroup is not None else len(tree)
        output_cap = limits.output_kb * 1024
        if _file_size(self.out_fd) > output_cap or _file_size(self.err_fd) > output_cap:
            return "output"  # before memory: a flood's pages are charged to the test's memory too
        if memory_kb > limits.memory_mb * 1024:
            return "memory"
        if cpu > limits.cpu_s:
            return "cpu"
        if processes > limits.processes or (cgroup is not None and cgroup.refused_forks()):
            return "processes"
        if time.monotonic() - started > limits.wall_s:
            return "wall"
        return None

    def _watch(self, started: float) -> dict[str, Any]:
        channel = self.server.channel
        assert channel is not None
        deadline: float | None = None
        if self.server.spare_cgroup is None:  # made while the test runs, for the next one
            self.server.spare_cgroup = TestCgroup.create()
        self.server.sweep()
        while True:
            elapsed = time.monotonic() - started
            interval = next(step for until, step in SAMPLE_INTERVALS_S if elapsed < until)
            done = channel.message(time.monotonic() + interval)
            if done is not None:
                if done.get("event") != "done" or done.get("test") != self.number:
                    raise ServerFault("the fork server answered out of turn")
                self.outcome.wall_s = round(time.monotonic() - started, 4)
                return done
            if deadline is not None:
                if time.monotonic() > deadline:
                    raise ServerFault("the fork server did not report a test it was told to end")
                continue
            reason = self._sample(started)
            if reason is not None:
                self.outcome.killed_for = reason
                self._kill()
                deadline = time.monotonic() + AFTER_KILL_TIMEOUT_S

    def _kill(self) -> None:
        """Kill the test and all it started; its reporter outside the namespace stays to report."""
        if self.cgroup is not None:
            self.cgroup.kill()
        targets = _tree(self.student)
        for sig in (signal.SIGSTOP, signal.SIGKILL):  # stop first: a fork bomb cannot outrun it
            for pid in targets:
                if pid:
                    with contextlib.suppress(OSError):
                        os.kill(pid, sig)

    def _collect(self, done: dict[str, Any]) -> None:
        channel = self.server.channel
        assert channel is not None
        outcome, cgroup = self.outcome, self.cgroup
        size = _number(done, "result_bytes", int)
        if size > RESULT_CAP_BYTES:
            raise ServerFault("the fork server announced an oversized result")
        raw = channel.payload(size, time.monotonic() + ANSWER_TIMEOUT_S)
        exit_code = done.get("exit_code")
        if exit_code is None:  # it answered and is exiting: only the cgroup can measure it
            if cgroup is None or not cgroup.measures >= {"cpu", "memory"} or not raw:
                raise ServerFault("the fork server did not wait for a test it cannot measure")
        elif not isinstance(exit_code, int) or isinstance(exit_code, bool):
            raise ServerFault("the fork server sent a malformed exit code")
        outcome.exit_code = exit_code
        cpu = cgroup.cpu_s() if cgroup is not None else None
        outcome.cpu_s = round(cpu if cpu is not None else _number(done, "cpu_s"), 4)
        peak = cgroup.memory_peak_bytes() if cgroup is not None else None
        if peak is not None:
            outcome.peak_mb = round(peak / (1024 * 1024), 2)
        else:
            kernel_kb = max(_number(done, "maxrss_kb", int) - self.baseline_kb, 0)
            outcome.peak_mb = round(max(outcome.peak_mb, kernel_kb / 1024), 2)
        # Absolute: the kernel's maxrss when the server waited for the test, else what the test
        # added to the pages it shares with the fork server it was forked from.
        maxrss_kb = done.get("maxrss_kb")
        kernel_mb = maxrss_kb / 1024 if isinstance(maxrss_kb, int) else 0.0
        outcome.resident_mb = round(max(kernel_mb, outcome.peak_mb + self.server_rss_kb / 1024), 2)
        if cgroup is not None and cgroup.oom_kills():
            outcome.killed_for = outcome.killed_for or "memory"
        if cgroup is not None and cgroup.refused_forks():
            outcome.killed_for = outcome.killed_for or "processes"
        if done.get("result_truncated") is True:
            outcome.killed_for = outcome.killed_for or "output"
        output_cap = int(self.limits.output_kb * 1024)
        outcome.stdout = read_capped(self.out_fd, output_cap)
        outcome.stderr = read_capped(self.err_fd, STDERR_CAP_BYTES)
        if raw:
            outcome.result, outcome.result_error = decode_result(raw)

    def _clean_files(self) -> None:
        for fd in (self.out_fd, self.err_fd):
            if fd is not None:
                os.close(fd)
        if self.number:
            base = self.server.io_dir / str(self.number)
            for suffix in (".out", ".err"):
                with contextlib.suppress(OSError):
                    base.with_suffix(suffix).unlink()
            shutil.rmtree(base.with_suffix(".d"), ignore_errors=True)


MAX_CONTAINERS = 200_000


def decode_result(raw: bytes) -> tuple[Any, str | None]:
    """The test's answer as data, or why it cannot be read (linear in its size, bounded)."""
    if raw.count(b"[") + raw.count(b"{") > MAX_CONTAINERS:
        return None, "the test process sent back a result with too many parts"
    try:
        return json.loads(raw), None
    except (ValueError, RecursionError):
        return None, "the test process sent back something unreadable"
