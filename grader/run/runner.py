"""The parent side of a run: one fork server per submission, each test watched by `watchdog`.

The parent is the trusted side. It starts the fork server (`box/worker.py`, inside bubblewrap or not),
hands it one request per test and takes nothing it says unchecked (`channel`, `protocol`).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from grader.run import policy, private, procfs, shared_folders
from grader.run.boundary import Boundary, namespaces_of, test_uid
from grader.run.box.protocol import (
    MINIMAL_ENV,
    CallRequest,
    DriverRequest,
    HelperCode,
    Request,
    RequestLimits,
    ServerConfig,
)
from grader.run.cgroup import SlotGroups, TestCgroup
from grader.run.channel import Channel, ServerFault, ServerStartError
from grader.run.exchange import Exchange
from grader.run.sandbox import BOX, bwrap_prefix, copy_box, interpreter, promise
from grader.run.watchdog import ANSWER_TIMEOUT_S, BoundaryShort, RunOutcome, Test
from grader.sandboxes import Confinement
from grader.suite.limits import Limits

START_TIMEOUT_S = 30.0
_slots = itertools.count()  # each fork server of this process gets its own tests' uid


class ForkServer:
    """One worker process that runs each test of a submission in fresh, confined processes."""

    def __init__(
        self,
        code_dir: Path,
        scratch: Path,
        sandbox: Confinement = "process",
        inputs: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
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
        self.server_rss_kb = 0
        self.server_cpu_s = 0.0  # the fork servers' own CPU time, once stopped
        self.namespaces = False
        self.why_no_namespaces = ""
        self.slot = SlotGroups()
        self.spare_cgroup: TestCgroup | None = None
        self.ending: list[TestCgroup] = []  # groups of tests that answered and are being ended
        self.test_uid = test_uid(next(_slots)) if os.geteuid() == 0 else None
        self.promise = promise(sandbox, self.test_uid)
        self.boundary: Boundary | None = None  # what the last test got, checked from outside
        self.outside_namespaces: dict[str, str] = {}

    # -- life cycle

    def start(self) -> None:
        shutil.rmtree(self.io_dir, ignore_errors=True)
        self.io_dir.mkdir(mode=0o700)
        try:
            self.open_to_tests()
        except OSError as error:
            raise ServerStartError(
                f"the scratch folder could not be opened to the tests' uid alone ({error.strerror or error})"
            ) from error
        if self.spare_cgroup is None:
            self.spare_cgroup = TestCgroup.create(self.slot)
        measured = self.spare_cgroup is not None and self.spare_cgroup.measures >= {"cpu", "memory"}
        try:
            program = policy.compiled().program
        except policy.PolicyUnavailable as error:
            raise ServerStartError(str(error)) from error
        inputs = [str(self.inputs)] if self.inputs else []
        config = ServerConfig(
            code_dir=str(self.code_dir),
            io_dir=str(self.io_dir),
            inputs=inputs,
            sandboxed=self.sandbox == "bwrap",
            namespaces=self.sandbox != "container",
            done_at_result=measured,
            test_uid=self.test_uid,
            seccomp=program.hex(),
            reach=[str(Path(sys.base_prefix).resolve()), str(self.code_dir), *inputs],
        )
        if self.sandbox == "bwrap":
            worker_dir = self.scratch / "worker"
            worker_dir.mkdir(mode=0o700, exist_ok=True)
            copy_box(worker_dir)
            read_only = [self.code_dir, worker_dir, *([self.inputs] if self.inputs else [])]
            prefix = bwrap_prefix(read_only, [self.io_dir], self.env)
            command = [*prefix, interpreter(), "-I", "-S", str(worker_dir / "worker.py"), json.dumps(config)]
        else:
            command = [sys.executable, "-I", "-S", str(BOX / "worker.py"), json.dumps(config)]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=self.scratch,
            start_new_session=True,
            env=self.env,
        )
        assert self.process.stdout is not None
        self.channel = Channel(self.process.stdout.fileno())
        try:
            ready = self.channel.ready(time.monotonic() + START_TIMEOUT_S)
        except ServerFault:
            ready = None
        if ready is None:
            self.stop()
            raise ServerStartError(f"the fork server did not start ({self.sandbox} sandbox)")
        self.namespaces = ready["namespaces"]
        self.why_no_namespaces = ready["why"]
        self.server_pid = self._find_server()
        if self.spare_cgroup is not None and not self.slot.enter(self.server_pid):
            self.stop()
            raise ServerStartError("the fork server could not be moved into its own cgroups")
        self.outside_namespaces = namespaces_of(self.server_pid)
        self.server_rss_kb = procfs.status_kb(self.server_pid, b"VmRSS:")  # tests share its pages

    def open_to_tests(self) -> None:
        """Let this server's tests (and nobody else: `private`) pass the scratch to their code,
        their inputs and the I/O folder (a test without namespaces reaches its own folder there)."""
        group = self.test_uid
        private.share_tree(self.code_dir, group)
        for folder in (self.io_dir, *([self.inputs] if self.inputs else [])):
            private.share(folder, group, private.PASSABLE)
        private.share(self.scratch, group, private.PASSABLE)

    def share_inputs(self, path: Path) -> None:
        """One test's input folder or file, readable by the tests and nobody else."""
        private.share_tree(path, self.test_uid)

    def _find_server(self) -> int:
        """The fork server's pid here: under bubblewrap, below bwrap and its namespace's init."""
        assert self.process is not None
        pid = self.process.pid
        for _ in range(4):
            children = procfs.children(pid)
            if procfs.comm(pid) != "bwrap" or len(children) != 1:
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
                view = view[os.write(fd, view) :]
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
        if self.sandbox == "container" and self.test_uid is not None:
            shared_folders.sweep(self.test_uid)  # the slot's last test; a failure shows next time
        if self.spare_cgroup is not None:
            self.spare_cgroup.remove()
            self.spare_cgroup = None
        if self.process is None:
            self.slot.remove()
            return
        if self.server_pid:  # its own time: its tests are counted by their cgroups
            self.server_cpu_s += procfs.cpu_s(self.server_pid, waited=False)
        for pid in reversed(procfs.tree(self.process.pid)):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        self.process = None
        self.channel = None
        self.slot.remove()

    # -- one test

    def run_calls(
        self, steps: list[dict[str, Any]], limits: Limits, helpers: list[HelperCode] | None = None
    ) -> RunOutcome:
        """Run a call test's steps under `limits` (with reference `helpers` swapped in); never
        raises for anything the test does."""
        request = CallRequest(kind="call", steps=steps, limits=_wire(limits), stdin=None, env=self.suite_env)
        if helpers:
            request["helpers"] = helpers
        return self._run(request, limits)

    def run_driver(
        self,
        driver: str,
        argv: list[str],
        stdin_file: Path | None,
        limits: Limits,
        helpers: list[HelperCode] | None = None,
    ) -> RunOutcome:
        """Run a driver as a program under `limits` (the submitted modules with reference
        `helpers` swapped in); never raises for anything the test does."""
        request = DriverRequest(
            kind="transcript",
            driver=driver,
            argv=argv,
            limits=_wire(limits),
            env=self.suite_env,
            stdin=str(stdin_file) if stdin_file else None,
        )
        if helpers:
            request["helpers"] = helpers
        return self._run(request, limits)

    def run_interactive(
        self, driver: str, argv: list[str], exchange: Exchange, limits: Limits, helpers: list[HelperCode]
    ) -> RunOutcome:
        """Run a driver whose stdin and stdout are `exchange`'s: its referee plays it, turn by
        turn, under `limits` (`grader.run.exchange`); never raises for anything the test does."""
        request = DriverRequest(
            kind="interactive", driver=driver, argv=argv, limits=_wire(limits), env=self.suite_env, stdin=None
        )
        if helpers:
            request["helpers"] = helpers
        return self._run(request, limits, exchange)

    def sweep_shared_folders(self) -> None:
        """At the container level: remove what the slot's earlier tests left in the host's
        world-writable folders (`shared_folders`); BoundaryShort if something stays."""
        if self.sandbox != "container" or self.test_uid is None:
            return
        stayed = shared_folders.sweep(self.test_uid)
        if stayed:
            raise BoundaryShort(f"what an earlier test left could not be removed ({stayed[0]})")

    def _run(self, request: Request, limits: Limits, exchange: Exchange | None = None) -> RunOutcome:
        if self.process is None or self.process.poll() is not None:
            self.stop()
            self.start()
        outcome = RunOutcome(limits=limits, exchange=exchange)
        try:
            self.sweep_shared_folders()
            Test(self, request, limits, outcome).run()
        except BoundaryShort as error:
            outcome.worker_failure = str(error)
            self.stop()
        except (ServerFault, OSError) as error:
            outcome.worker_failure = f"the grader's fork server failed during this test ({error})"
            self.stop()
        self._blame_the_disk(outcome, limits)
        return outcome

    def disk_problem(self, limits: Limits) -> str | None:
        """Why the grader's disk (its I/O folder's file system: the tests' stdout and stderr,
        and without namespaces their working folders) cannot hold what a test may write."""
        needed = 2 * int(limits.output_kb * 1024)
        if not self.namespaces:
            needed += int(limits.scratch_mb * 1024 * 1024)
        try:
            found = os.statvfs(self.io_dir)
        except OSError as error:
            return f"the grader's I/O folder cannot be read ({error.strerror})"
        free = found.f_bavail * found.f_frsize  # what an unprivileged writer may still use
        if free >= needed:
            return None
        return (
            f"the grader's disk {mount_point(self.io_dir)} is full: {free // 1024} kB free, "
            f"a test may write {needed // 1024} kB (output and scratch); free space there and "
            f"grade again"
        )

    def _blame_the_disk(self, outcome: RunOutcome, limits: Limits) -> None:
        """A test that could not write its output for lack of space (it says so, or the disk is
        full now and no limit of its own stopped it) is the grader's failure, not a WA."""
        lost = outcome.result.pop("output_lost", None) if isinstance(outcome.result, dict) else None
        if outcome.worker_failure is not None:
            return
        full = self.disk_problem(limits)
        if lost is not None:
            outcome.worker_failure = full or (
                f"the grader's disk {mount_point(self.io_dir)} refused the test's output ({lost})"
            )
        elif full is not None and outcome.killed_for is None:
            outcome.worker_failure = full


def mount_point(path: Path) -> Path:
    """The folder `path`'s file system is mounted on (`path` itself if that cannot be told)."""
    try:
        device = path.stat().st_dev
        for parent in path.parents:
            if parent.stat().st_dev != device:
                return path
            path = parent
    except OSError:
        pass
    return path


def _wire(limits: Limits) -> RequestLimits:
    """The limits the test process applies to itself (the parent judges all of them again)."""
    return RequestLimits(
        cpu_s=limits.cpu_s,
        output_bytes=int(limits.output_kb * 1024),
        scratch_bytes=int(limits.scratch_mb * 1024 * 1024),
        scratch_files=limits.scratch_files,
    )
