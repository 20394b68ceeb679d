"""The parent side of a run: a fork server per submission and a watchdog per test."""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from grader.cgroup import PidsCgroup
from grader.sandbox import bwrap_prefix, interpreter
from grader.suite import Limits

WORKER_SCRIPT = Path(__file__).with_name("worker.py")
SAMPLE_INTERVALS_S = (0.01, 0.01, 0.02)
THREAD_ALLOWANCE = 64


@dataclass
class RunOutcome:
    """What happened to one test process, before any comparison."""

    killed_for: str | None = None  # "time", "memory", "output", "processes"
    exit_code: int | None = None
    cpu_s: float = 0.0
    wall_s: float = 0.0
    peak_mb: float = 0.0
    result: Any = None
    result_error: str | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    worker_failure: str | None = None
    limits: Limits = field(default_factory=Limits)


class ServerStartError(OSError):
    """The fork server (and so no test) could start."""


def _high_water_kb(pid: int) -> int:
    """The kernel's peak resident size (VmHWM) of a live process in kB, or 0 once it has gone."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _kill_tree(processes: list[psutil.Process]) -> None:
    """Stop then kill every process (stopping first keeps a fork bomb from outrunning us)."""
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        for process in processes:
            with contextlib.suppress(psutil.Error, OSError):
                process.send_signal(sig)


class ForkServer:
    """One worker process that forks a fresh child for each test of a submission."""

    def __init__(self, code_dir: Path, scratch: Path, uid: int | None,
                 sandbox: str = "process", inputs: Path | None = None) -> None:
        self.code_dir = code_dir
        self.scratch = scratch
        self.uid = None if sandbox == "bwrap" else uid
        self.sandbox = sandbox
        self.inputs = inputs
        self.infrastructure: set[int] = set()
        self.cgroup: PidsCgroup | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.counter = 0
        self.pending = b""

    def start(self) -> None:
        test_dir = self._fresh_test_dir()
        if self.sandbox == "bwrap":
            worker = self.scratch / "worker.py"
            shutil.copyfile(WORKER_SCRIPT, worker)
            read_only = [self.code_dir, worker, *([self.inputs] if self.inputs else [])]
            prefix = bwrap_prefix(read_only, [test_dir])
            command = [*prefix, interpreter(), "-I", "-S", str(worker), str(self.code_dir), "-"]
        else:
            command = [sys.executable, "-I", "-S", str(WORKER_SCRIPT), str(self.code_dir),
                       str(self.uid) if self.uid is not None else "-"]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, cwd=self.scratch,
                                        start_new_session=True)
        try:
            ready = self._read_line(timeout=30.0)
        except (EOFError, ValueError):
            ready = None
        if ready is None or ready.get("event") != "ready":
            self.stop()
            raise ServerStartError(f"the fork server did not start ({self.sandbox} sandbox)")
        outer = psutil.Process(self.process.pid)
        self.infrastructure = {outer.pid, *(p.pid for p in outer.children(recursive=True))}
        self.cgroup = PidsCgroup.create()
        if self.cgroup is not None:
            self.cgroup.adopt(self.infrastructure)

    def stop(self) -> None:
        if self.process is None:
            return
        self._kill_namespace()
        try:
            worker = psutil.Process(self.process.pid)
            _kill_tree(worker.children(recursive=True))
        except psutil.Error:
            pass
        self.process.kill()
        self.process.wait()
        if self.cgroup is not None:
            self.cgroup.destroy()
            self.cgroup = None
        self.pending = b""
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        self.process = None

    def _kill_namespace(self) -> None:
        """Under bubblewrap, kill the sandbox's PID 1: the kernel then kills all inside at once."""
        if self.sandbox != "bwrap" or self.process is None:
            return
        try:
            for inner in psutil.Process(self.process.pid).children():
                inner.kill()
        except psutil.Error:
            pass

    def _read_line(self, timeout: float) -> dict[str, Any] | None:
        """The next message of the fork server, or None when none came within `timeout`."""
        assert self.process is not None and self.process.stdout is not None
        deadline = time.monotonic() + timeout
        fd = self.process.stdout.fileno()
        while b"\n" not in self.pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise EOFError("the fork server exited")
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        message: dict[str, Any] = json.loads(line)
        return message

    def run(self, request: dict[str, Any], limits: Limits,
            stdin_file: Path | None = None) -> RunOutcome:
        """Run one test request under `limits`; never raises for anything the child does."""
        if self.process is None or self.process.poll() is not None:
            self.stop()
            self.start()
        self.counter += 1
        test_dir = self._fresh_test_dir()
        outcome = RunOutcome(limits=limits)
        request = {**request, "test_dir": str(test_dir),
                   "stdin": str(stdin_file) if stdin_file else None,
                   "limits": {"cpu_s": limits.cpu_s, "processes": limits.processes,
                              "output_bytes": int(limits.output_kb * 1024)}}
        refused_before = 0
        if self.cgroup is not None:
            # pids counts threads too: the server's own, its result reader, and room for the
            # test's threads; the sampler still enforces `processes`, this is the hard backstop.
            self.cgroup.limit(self.cgroup.task_count() + 1 + limits.processes + THREAD_ALLOWANCE)
            refused_before = self.cgroup.refused_forks()
        try:
            self._supervise(request, limits, test_dir, outcome)
        except (EOFError, OSError, ValueError) as error:
            outcome.worker_failure = f"the fork server failed: {error}"
            self.stop()
        if self.cgroup is not None and self.cgroup.refused_forks() > refused_before:
            outcome.killed_for = outcome.killed_for or "processes"
        if outcome.killed_for == "processes":
            self.stop()  # whatever a fork bomb left goes with the server; the next test starts anew
        outcome.stdout = _read_capped(test_dir / "stdout", int(limits.output_kb * 1024))
        outcome.stderr = _read_capped(test_dir / "stderr", 64 * 1024)
        return outcome

    def _fresh_test_dir(self) -> Path:
        """The test's working folder, emptied of whatever the previous test left in it."""
        test_dir = self.scratch / "test"
        if test_dir.exists():
            for entry in os.scandir(test_dir):
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)
        else:
            test_dir.mkdir()
            if self.uid is not None:
                os.chown(test_dir, self.uid, self.uid)
        return test_dir

    def _supervise(self, request: dict[str, Any], limits: Limits, test_dir: Path,
                   outcome: RunOutcome) -> None:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write((json.dumps(request) + "\n").encode())
        self.process.stdin.flush()
        started_message = self._read_line(timeout=30.0)
        if started_message is None:
            raise OSError("the fork server did not start the test")
        baseline_kb = started_message["baseline_kb"]
        worker = psutil.Process(self.process.pid)
        started = time.monotonic()
        peak_kb = 0
        output_path = test_dir / "stdout"
        output_cap = int(limits.output_kb * 1024)
        samples = 0
        done: dict[str, Any] | None = None
        while done is None:
            interval = SAMPLE_INTERVALS_S[min(samples // 20, len(SAMPLE_INTERVALS_S) - 1)]
            try:
                done = self._read_line(timeout=interval)
            except EOFError:
                # Only the test runs untrusted code: if the fork server died now, the test killed it.
                outcome.killed_for = outcome.killed_for or "sabotage"
                _kill_tree([p for p in worker.children(recursive=True)
                            if p.pid not in self.infrastructure])
                self.stop()
                return
            if done is not None:
                break
            samples += 1
            try:
                tree = [p for p in worker.children(recursive=True)
                        if p.pid not in self.infrastructure]
            except psutil.Error:
                tree = []
            tree_kb = 0
            cpu = 0.0
            for process in tree:
                hwm = _high_water_kb(process.pid)
                tree_kb += max(hwm - baseline_kb, 0)
                try:
                    times = process.cpu_times()
                    cpu += times.user + times.system
                except psutil.Error:
                    pass
            peak_kb = max(peak_kb, tree_kb)
            reason = None
            if tree_kb > limits.memory_mb * 1024:
                reason = "memory"
            elif time.monotonic() - started > limits.wall_s or cpu > limits.cpu_s + 0.05:
                reason = "time"
            elif len(tree) > limits.processes:
                reason = "processes"
            elif _size(output_path) >= output_cap:
                reason = "output"
            if reason is not None:
                outcome.killed_for = reason
                if reason == "processes":
                    self._kill_namespace()
                _kill_tree(tree)
        outcome.exit_code = done["exit_code"]
        outcome.cpu_s = round(done["cpu_s"], 4)
        outcome.wall_s = round(done["wall_s"], 4)
        kernel_peak_kb = max(done["maxrss_kb"] - baseline_kb, 0)
        outcome.peak_mb = round(max(peak_kb, kernel_peak_kb) / 1024, 2)
        if done["result_too_big"]:
            outcome.killed_for = outcome.killed_for or "output"
        elif done["result"]:
            try:
                outcome.result = json.loads(done["result"])
            except ValueError:
                outcome.result_error = "the test process sent back something unreadable"


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _read_capped(path: Path, cap: int) -> bytes:
    try:
        with path.open("rb") as stream:
            return stream.read(cap + 1)
    except OSError:
        return b""
