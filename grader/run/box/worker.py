"""The fork server: runs the tests of one submission, each in fresh processes behind the boundary.

This file runs as a script (``python worker.py CONFIG_JSON``), standard library only, and never
imports student code itself: only the test processes (`testprocess.py`) do. It talks to its parent
(`grader.run.runner`) on stdin/stdout, and to each test on its pipes, in the messages of
`protocol.py` (both protocols); `done` is followed by the test's result bytes, unread and
unchecked. With `done_at_result` in the config, `done` comes as soon as the test closed its
result, exit_code null (the test was ending; the parent's cgroup measures it and ends it).

The next test's processes are prepared ahead (forked, namespaces entered, file system sealed)
while the current one runs: each test waits, in a pipe read, for its request. With namespaces,
the test is the first process (pid 1) of its own pid namespace, so everything it starts dies
with it; its parent, outside the namespace and out of its reach, reports its exit status.
The test's stdout and stderr are files `IO/N.out`, `IO/N.err`, opened here and hidden from the
test by an empty mount (an interactive test's are named pipes to the parent: `talk.py`).
The fork server is not dumpable, so even a process of the same user
outside the namespace could not read its memory or descriptors.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import select
import signal
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grader.run.box import confine, protocol
    from grader.run.box.channels import read_confined, read_line, send, write_all
    from grader.run.box.protocol import Done, Ready, ServerConfig, Started
    from grader.run.box.talk import asked, open_talk
    from grader.run.box.testprocess import keep_only, test_process
else:  # an entry script of the box: its folder first on sys.path, then its siblings (__init__.py)
    sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
    import confine
    import protocol
    from channels import read_confined, read_line, send, write_all
    from protocol import Done, Ready, Started
    from talk import asked, open_talk
    from testprocess import keep_only, test_process

DRAIN_AFTER_EXIT_S = 2.0


def report_exit(student: int, report_fd: int) -> None:
    """Outside the test's namespace: wait for the test, report its status and usage, end."""
    while True:
        try:
            pid, status, usage = os.wait4(student, 0)
        except ChildProcessError:
            os._exit(0)
        except InterruptedError:
            continue
        if pid == student:
            break
    cpu = usage.ru_utime + usage.ru_stime
    os.write(report_fd, f"{status} {cpu} {usage.ru_maxrss}\n".encode())
    os._exit(0)


# ---------------------------------------------------------------- the fork server


class Prepared:
    """A test's processes, forked ahead and waiting for their request."""

    def __init__(
        self,
        number: int,
        waited: int,
        request_fd: int,
        result_fd: int,
        report_fd: int | None,
        ready_fd: int,
        scratch: tuple[int, int],
        interactive: bool = False,
    ) -> None:
        self.number = number
        self.scratch = scratch  # the /tmp it got: (bytes, files)
        self.interactive = interactive  # its stdin and stdout are the parent's pipes (talk.py)
        self.ready_fd = ready_fd
        self.waited = waited  # the process reporting the test's exit, or the test itself
        self.request_fd = request_fd
        self.result_fd = result_fd
        self.report_fd = report_fd


class Server:
    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.io_dir: str = config["io_dir"]
        self.counter = 0
        self.namespaces = config["namespaces"]
        self.why = "" if self.namespaces else "namespaces were not asked for"
        self.ahead: Prepared | None = None
        self.scratch = confine.DEFAULT_SCRATCH  # what the next prepared test's /tmp holds
        self.interactive = False  # whether the next prepared test talks with the parent

    # -- preparing a test

    def prepare(self) -> Prepared:
        """Fork the next test's processes and wait until they wait for their request."""
        prepared = self.finish(self.launch())
        return prepared if prepared is not None else self.prepare()

    def launch(self) -> Prepared:
        """Fork the next test's processes; with namespaces, `finish` collects what they report."""
        scratch, interactive = self.scratch, self.interactive
        self.counter += 1
        number = self.counter
        base = os.path.join(self.io_dir, str(number))
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        out_fd = os.open(base + ".out", flags, 0o600)
        err_fd = os.open(base + ".err", flags, 0o600)
        in_fd = None
        if interactive:  # stdout becomes the pipe; the .out file stays, empty
            os.close(out_fd)
            in_fd, out_fd = open_talk(base)
        work_dir = base + ".d"
        if not self.namespaces:
            os.mkdir(work_dir, 0o700)
            if self.config["test_uid"] is not None:
                os.chown(work_dir, self.config["test_uid"], self.config["test_uid"])
        request_r, request_w = os.pipe()
        result_r, result_w = os.pipe()
        report_r, report_w = os.pipe()
        ready_r, ready_w = os.pipe()
        for fd in (request_w, result_r, report_r, ready_r):
            os.set_inheritable(fd, False)
        child_fds = {request_r, result_w, report_w, out_fd, err_fd, ready_w, *([in_fd] if in_fd else [])}
        pid = os.fork()
        if pid == 0:
            try:
                keep_only(child_fds)
                if self.namespaces:
                    self._enter(request_r, result_w, report_w, out_fd, err_fd, ready_w, scratch, in_fd)
                else:
                    os.close(report_w)
                    test_process(
                        self.config, request_r, result_w, out_fd, err_fd, ready_w, work_dir, False, in_fd
                    )
            except BaseException as error:
                with contextlib.suppress(BaseException):
                    os.write(report_w, f"{protocol.REPORT_ERROR} {error}\n".encode())
            finally:
                os._exit(70)
        for fd in child_fds:
            os.close(fd)
        if not self.namespaces:
            os.close(report_r)
            return Prepared(number, pid, request_w, result_r, None, ready_r, scratch, interactive)
        return Prepared(number, pid, request_w, result_r, report_r, ready_r, scratch, interactive)

    def finish(self, prepared: Prepared) -> Prepared | None:
        """The launched test once it waits for its request, or None if the namespaces failed."""
        ready = os.read(prepared.ready_fd, 1)  # the test has done all it can before its request
        if prepared.report_fd is None:
            return prepared
        kind, _, value = read_line(prepared.report_fd).strip().partition(" ")
        if kind != protocol.REPORT_STUDENT or ready != protocol.READY:
            for fd in (prepared.request_fd, prepared.result_fd, prepared.report_fd, prepared.ready_fd):
                os.close(fd)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(prepared.waited, 0)
            self.namespaces = False
            self.why = value if kind == protocol.REPORT_ERROR else "the test's namespaces failed"
            return None
        return prepared

    def _enter(
        self,
        request_r: int,
        result_w: int,
        report_w: int,
        out_fd: int,
        err_fd: int,
        ready_w: int,
        scratch: tuple[int, int],
        in_fd: int | None,
    ) -> None:
        """In the first child: enter the namespaces, seal the file system, fork the test, report.

        The test is the first process (pid 1) of its pid namespace: when it ends, the kernel kills
        whatever it left there. This child stays outside, waits for it and reports its status.
        """
        in_user_namespace = confine.enter_namespaces(own_network=not self.config["sandboxed"])
        kept = [self.config["code_dir"], *self.config["inputs"]]
        confine.seal_file_system([self.io_dir], kept, in_user_namespace, scratch)
        student = os.fork()
        if student == 0:
            os.close(report_w)
            confine.private_proc(self.config["sandboxed"])
            test_process(self.config, request_r, result_w, out_fd, err_fd, ready_w, "/tmp", True, in_fd)
        for fd in (request_r, result_w, out_fd, err_fd, ready_w, *([in_fd] if in_fd else [])):
            os.close(fd)
        os.write(report_w, f"{protocol.REPORT_STUDENT} {student}\n".encode())
        report_exit(student, report_w)

    # -- running a test

    def run(
        self,
        prepared: Prepared,
        request: bytes,
        control_in: io.BufferedReader,
        control_out: io.BufferedWriter,
    ) -> None:
        with contextlib.suppress(OSError):
            write_all(prepared.request_fd, protocol.frame(request))
        confined = read_confined(prepared.ready_fd)
        os.close(prepared.ready_fd)
        send(control_out, Started(event="started", test=prepared.number, confined=confined))
        go = control_in.readline()
        if not go:
            raise EOFError
        started = time.monotonic()
        with contextlib.suppress(OSError):
            os.write(prepared.request_fd, protocol.TEST_GO if not confined else b"")
        os.close(prepared.request_fd)
        if self.namespaces:  # the next test's processes are forked while this one runs
            self.ahead = self.launch()
        result = bytearray()
        truncated = False
        # With namespaces, the reporter sends the status and usage; it is reaped after `done`
        # (the namespace's teardown is off the critical path). Without, we wait for the test.
        pidfd = os.pidfd_open(prepared.waited)
        ended_fd = pidfd if prepared.report_fd is None else prepared.report_fd
        watched = [prepared.result_fd, ended_fd]
        exited: tuple[int, float, int, bool] | None = None
        # With namespaces and a parent that measures through cgroups, `done` goes out as soon as
        # the result is in: the test's exit (its memory torn down, ~1 ms) is off the critical path.
        early = prepared.report_fd is not None and self.config["done_at_result"]
        deadline = None
        while prepared.result_fd in watched or exited is None:
            timeout: float | None = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = select.select(watched, [], [], timeout)[0]
            if not ready:
                break
            if prepared.result_fd in ready:
                chunk = os.read(prepared.result_fd, 65536)
                if not chunk:
                    watched.remove(prepared.result_fd)
                    if early and result and exited is None:
                        break  # its whole answer is in; the parent measures and ends it
                elif len(result) + len(chunk) <= protocol.RESULT_CAP_BYTES:
                    result += chunk
                else:
                    truncated = True
            if exited is None and ended_fd in ready:
                watched.remove(ended_fd)
                exited = self._exited(prepared)
                deadline = time.monotonic() + DRAIN_AFTER_EXIT_S
        os.close(prepared.result_fd)
        wall = time.monotonic() - started
        if exited is None and not early:
            exited = self._exited(prepared)
        status, cpu_s, maxrss_kb = (None, 0.0, 0) if exited is None else exited[:3]
        send(
            control_out,
            Done(
                event="done",
                test=prepared.number,
                exit_code=None if status is None else os.waitstatus_to_exitcode(status),
                cpu_s=cpu_s,
                maxrss_kb=maxrss_kb,
                wall_s=wall,
                result_bytes=len(result),
                result_truncated=truncated,
            ),
            bytes(result),
        )
        if exited is None:
            exited = self._exited(prepared)
        reporter_alive = exited[3]
        if prepared.report_fd is not None:
            os.close(prepared.report_fd)
        if reporter_alive:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(prepared.waited, 0)
        os.close(pidfd)

    def discard(self, prepared: Prepared) -> None:
        """End a prepared test that will not run (it reads the end of its request and exits)."""
        for fd in (
            prepared.request_fd,
            prepared.result_fd,
            prepared.ready_fd,
            *([prepared.report_fd] if prepared.report_fd is not None else []),
        ):
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(prepared.waited, 0)

    def _exited(self, prepared: Prepared) -> tuple[int, float, int, bool]:
        """(wait status, CPU s, max RSS kB, whether the reporter is still to reap): its report, or wait4."""
        if prepared.report_fd is not None:
            fields = read_line(prepared.report_fd).split()
            if len(fields) == 3 and fields[0].isdigit() and fields[2].isdigit():
                with contextlib.suppress(ValueError):
                    return int(fields[0]), float(fields[1]), int(fields[2]), True
        _, status, usage = os.wait4(prepared.waited, 0)
        if prepared.report_fd is None:
            reap_strays(prepared.waited)
        return status, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, False

    def open_the_way(self) -> None:
        """Once, in a mount namespace of the server's own that every test's copies: cover the
        closed folders above what the tests' uid must reach (`confine.reach`)."""
        if self.namespaces and self.config["test_uid"] is not None and self.config["reach"]:
            try:
                confine.private_mounts()
                confine.reach(self.config["reach"], [self.io_dir])
            except OSError as error:
                self.namespaces = False
                self.why = f"the way to the interpreter could not be opened: {error}"

    def serve(self) -> None:
        confine.prepare_seccomp(bytes.fromhex(self.config["seccomp"]))
        confine.set_not_dumpable()
        confine.become_subreaper()  # orphans of a test become ours, so none escape the cleanup
        self.open_the_way()
        control_in = os.fdopen(os.dup(0), "rb")
        control_out = os.fdopen(os.dup(1), "wb")
        for fd in (control_in.fileno(), control_out.fileno()):
            os.set_inheritable(fd, False)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
        prepared = self.prepare()
        send(control_out, Ready(event="ready", pid=os.getpid(), namespaces=self.namespaces, why=self.why))
        while request := control_in.readline():
            reap_orphans()
            self.ahead = None
            wanted, talks = asked(request)
            if (self.namespaces and wanted is not None and wanted != prepared.scratch) or (
                talks != prepared.interactive
            ):
                self.discard(prepared)  # its /tmp or its stdin/stdout differ: a fresh one
                self.scratch, self.interactive = wanted or self.scratch, talks
                prepared = self.prepare()
            self.run(prepared, request, control_in, control_out)
            launched = self.ahead
            prepared = (self.finish(launched) if launched else None) or self.prepare()


def reap_orphans() -> None:
    """Reap children that ended on their own (a test whose reporter died before it)."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass


def reap_strays(pid: int) -> None:
    """Without namespaces: kill the test's session and every orphan left behind, then reap them."""
    children_file = f"/proc/self/task/{os.getpid()}/children"
    for _ in range(1000):
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
        try:
            with open(children_file) as listing:
                strays = [int(stray) for stray in listing.read().split()]
        except OSError:
            strays = []
        if not strays:
            return
        for stray in strays:
            with contextlib.suppress(OSError):
                os.kill(stray, signal.SIGKILL)
        for stray in strays:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(stray, 0)


def main() -> None:
    config: ServerConfig = json.loads(sys.argv[1])
    here = os.path.dirname(os.path.realpath(__file__))
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) != here]
    sys.dont_write_bytecode = True
    Server(config).serve()


if __name__ == "__main__":
    main()
