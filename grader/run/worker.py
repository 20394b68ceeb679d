"""The fork server: runs the tests of one submission, each in fresh processes behind the boundary.

This file runs as a script (``python worker.py CONFIG_JSON``), standard library only, and never
imports student code itself: only the test processes do. Protocol on stdin/stdout, one JSON
object per line (the parent is `grader.run.runner`):

    <- {"event": "ready", "pid": ..., "namespaces": true, "why": ""}
    -> {"kind": "call", "steps": [...], "limits": {...}, "stdin": ..., "env": {...}}
    <- {"event": "started", "test": N}           (the parent moves the test into its cgroup)
    -> {"go": true}
    <- {"event": "done", "exit_code": ..., "cpu_s": ..., "maxrss_kb": ..., "result_bytes": K, ...}
       followed by exactly K bytes: what the test process sent back, unread and unchecked.
       With "done_at_result" in the config, `done` comes as soon as the test closed its result,
       exit_code null (the test was ending; the parent's cgroup measures it and ends it).

The next test's processes are prepared ahead (forked, namespaces entered, file system sealed)
while the current one runs: each test waits, in a pipe read, for its request. With namespaces,
the test is the first process (pid 1) of its own pid namespace, so everything it starts dies
with it; its parent, outside the namespace and out of its reach, reports its exit status.
The test's stdout and stderr are files `IO/N.out`, `IO/N.err`, opened here and hidden from the
test by an empty mount. The fork server is not dumpable, so even a process of the same user
outside the namespace could not read its memory or descriptors.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import resource
import runpy
import select
import signal
import sys
import time
import traceback
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grader.run import confine
else:  # a sibling file: the worker runs as a script (-I: its folder is not on sys.path)
    sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
    import confine

RESULT_CAP_BYTES = 8 * 1024 * 1024
DRAIN_AFTER_EXIT_S = 2.0
_encode_result = json.JSONEncoder().encode  # bound before any student code can patch json
MINIMAL_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "HOME": "/tmp", "TMPDIR": "/tmp"}


class StepFailed(Exception):
    """A value that depends on an earlier step that raised."""


# ---------------------------------------------------------------- child side: plain data


def to_plain(value: Any, depth: int = 0) -> Any:
    """Convert a result to JSON-able data without trusting any method of the value."""
    if depth > 200:
        raise TypeError("nested too deeply")
    kind = type(value)
    if value is None or kind is bool or kind is str or kind is float:
        return value
    if kind is int:
        return value
    if isinstance(value, bool):
        return bool.__bool__(value)
    if isinstance(value, int):
        return int.__index__(value) if kind is not int else value
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, str):
        return str.__str__(value)
    if kind is list or kind is tuple:
        return [to_plain(item, depth + 1) for item in (list.__iter__(value) if kind is list
                                                        else tuple.__iter__(value))]
    if kind is dict:
        items = list(dict.items(value))
        if all(type(key) is str and not key.startswith("$") for key, _ in items):
            return {key: to_plain(item, depth + 1) for key, item in items}
        return {"$dict": [[to_plain(key, depth + 1), to_plain(item, depth + 1)]
                          for key, item in items]}
    if kind is set or kind is frozenset:
        members = [to_plain(item, depth + 1) for item in (set.__iter__(value) if kind is set
                                                          else frozenset.__iter__(value))]
        return {"$set": sorted(members, key=lambda m: json.dumps(m, sort_keys=True))}
    raise TypeError(f"returned a {kind.__name__}, which is not plain data")


# ---------------------------------------------------------------- child side: running steps


class Namespace:
    """Resolves dotted targets against `let` names first, then submission modules."""

    def __init__(self) -> None:
        self.names: dict[str, Any] = {}

    def resolve(self, target: str) -> Any:
        head, *rest = target.split(".")
        if head in self.names:
            value = self.names[head]
            if isinstance(value, StepFailed):
                raise StepFailed(str(value))
        else:
            value = importlib.import_module(head)
        for part in rest:
            value = getattr(value, part)
        return value

    def evaluate(self, arg: Any) -> Any:
        if isinstance(arg, list):
            return [self.evaluate(item) for item in arg]
        if isinstance(arg, dict):
            if len(arg) >= 1 and any(key.startswith("$") for key in arg):
                return self.special(arg)
            return {key: self.evaluate(item) for key, item in arg.items()}
        return arg

    def special(self, form: dict[str, Any]) -> Any:
        if "$call" in form:
            target = self.resolve(form["$call"])
            return target(*self.evaluate(form.get("args", [])),
                          **self.evaluate(form.get("kwargs", {})))
        if "$get" in form:
            return self.resolve(form["$get"])
        if "$ref" in form:
            return self.resolve(form["$ref"])
        if "$tuple" in form:
            return tuple(self.evaluate(form["$tuple"]))
        if "$set" in form:
            return set(self.evaluate(form["$set"]))
        if "$path" in form:
            return form["$path"]
        raise ValueError(f"unknown argument form {sorted(form)}")


def shown(value: Any, step: dict[str, Any]) -> Any:
    show = step.get("show", "plain")
    if show == "str":
        return str.__str__(str(value))
    if show == "repr":
        return str.__str__(repr(value))
    if show == "attrs":
        out = {}
        for dotted in step["attrs"]:
            item = value
            for part in dotted.split("."):
                item = getattr(item, part)
            out[dotted] = to_plain(item)
        return out
    return to_plain(value)


def describe_exception(error: BaseException, code_dir: str) -> dict[str, Any]:
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if frame.filename.startswith(code_dir)]
    for frame in frames:
        frame.filename = os.path.relpath(frame.filename, code_dir)
    lines = ["Traceback (most recent call last):\n", *traceback.format_list(frames)]
    try:
        message = str(error)
    except BaseException:
        message = "<unprintable>"
    lines.append(f"{type(error).__name__}: {message}\n" if message else f"{type(error).__name__}\n")
    is_import = isinstance(error, (ImportError, SyntaxError)) or (
        isinstance(error, AttributeError) and getattr(error, "_grader_missing", False))
    return {"raises": type(error).__name__, "message": message[:2000],
            "traceback": "".join(lines)[-6000:],
            "ni": isinstance(error, NotImplementedError), "import": is_import}


def run_steps(steps: list[dict[str, Any]], code_dir: str) -> dict[str, Any]:
    names = Namespace()
    outcomes: list[dict[str, Any]] = []
    for step in steps:
        target_text = step.get("call") or step.get("get") or ""
        try:
            try:
                target = names.resolve(target_text)
            except AttributeError as error:
                error._grader_missing = True  # type: ignore[attr-defined]
                raise
            if "call" in step:
                value = target(*names.evaluate(step.get("args", [])),
                               **names.evaluate(step.get("kwargs", {})))
            else:
                value = target
            if "let" in step:
                names.names[step["let"]] = value
                if not step.get("check"):
                    continue
            outcomes.append({"value": shown(value, step)})
        except BaseException as error:
            if isinstance(error, TypeError) and "not plain data" in str(error):
                outcomes.append({"unplain": str(error)})
                continue
            if "let" in step:
                names.names[step["let"]] = StepFailed(f"step '{step['let']}' raised")
                if not step.get("check"):
                    outcomes.append({"let_failed": True, **describe_exception(error, code_dir)})
                    continue
            outcomes.append(describe_exception(error, code_dir))
    return {"steps": outcomes}


def run_driver(request: dict[str, Any], code_dir: str) -> dict[str, Any]:
    script = os.path.join(code_dir, request["driver"] + ".py")
    sys.argv = [script, *request.get("argv", [])]
    exit_code: int | str = 0
    error = None
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as stop:
        code = stop.code
        exit_code = code if isinstance(code, int) else (0 if code is None else 1)
        if not isinstance(code, int) and code is not None:
            sys.stderr.write(f"{code}\n")
    except BaseException as failure:
        error = describe_exception(failure, code_dir)
        exit_code = 1
    with contextlib.suppress(BaseException):
        sys.stdout.flush()
    return {"exit": exit_code, "error": error}


# ---------------------------------------------------------------- the test process


def _read_to_end(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _keep_only(fds: set[int]) -> None:
    """Close every descriptor but `fds` (and 0, 1, 2)."""
    low = 0
    for fd in sorted({0, 1, 2} | fds):
        if low < fd:  # closerange(n, n) would close everything from n: it calls close_range(n, n-1)
            os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 20)


def test_process(config: dict[str, Any], request_fd: int, result_fd: int, out_fd: int, err_fd: int,
                 ready_fd: int, work_dir: str, namespaces: bool) -> None:
    """Runs as the test: wait for the request, set limits, redirect, run, send back, exit."""
    os.write(ready_fd, b"r")
    os.close(ready_fd)
    with contextlib.suppress(OSError):
        confine.drop_bounding_set()
    request = json.loads(_read_to_end(request_fd))
    os.close(request_fd)
    limits = request["limits"]
    os.setsid()
    for sig in (signal.SIGXFSZ, signal.SIGXCPU, signal.SIGPIPE, signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)
    if namespaces:
        if (limits["scratch_bytes"], limits["scratch_files"]) != confine.DEFAULT_SCRATCH:
            confine.size_scratch(limits["scratch_bytes"], limits["scratch_files"])
        work_dir = "/tmp"
    stdin_fd = os.open(request.get("stdin") or os.devnull, os.O_RDONLY)
    os.dup2(stdin_fd, 0)
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    _keep_only({result_fd})
    os.chdir(work_dir)
    backstop = int(limits["cpu_s"] * 1.25) + 2  # the parent judges; the kernel only backs it up
    resource.setrlimit(resource.RLIMIT_CPU, (backstop, backstop + 1))
    # stdout's own cap is the parent's to judge; the kernel caps any one file at the larger space
    largest = max(limits["output_bytes"], limits["scratch_bytes"]) + 1
    resource.setrlimit(resource.RLIMIT_FSIZE, (largest, largest))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    with contextlib.suppress(OSError):
        confine.drop_capabilities()  # after /tmp was sized: that needs one
    os.environ.clear()
    os.environ.update({**MINIMAL_ENV, "HOME": work_dir, "TMPDIR": work_dir, **request.get("env", {})})
    code_dir = config["code_dir"]
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8",
                                 errors="replace")
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8",
                                  errors="backslashreplace", line_buffering=False)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                  errors="backslashreplace", line_buffering=True)
    sys.path[0:0] = [code_dir]
    if request["kind"] == "call":
        result = run_steps(request["steps"], code_dir)
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
    else:
        result = run_driver(request, code_dir)
    payload = _encode_result(result).encode()
    view = memoryview(payload)
    while view:
        written = os.write(result_fd, view[:65536])
        view = view[written:]
    os.close(result_fd)  # the answer is complete before the (slower) exit
    os._exit(0)


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

    def __init__(self, number: int, waited: int, request_fd: int, result_fd: int,
                 report_fd: int | None, ready_fd: int) -> None:
        self.number = number
        self.ready_fd = ready_fd
        self.waited = waited  # the process reporting the test's exit, or the test itself
        self.request_fd = request_fd
        self.result_fd = result_fd
        self.report_fd = report_fd


class Server:
    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.io_dir: str = config["io_dir"]
        self.counter = 0
        self.namespaces = bool(config.get("namespaces", True))
        self.why = "" if self.namespaces else "namespaces were not asked for"
        self.control_fds: set[int] = set()
        self.ahead: Prepared | None = None

    # -- preparing a test

    def prepare(self) -> Prepared:
        """Fork the next test's processes and wait until they wait for their request."""
        prepared = self.finish(self.launch())
        return prepared if prepared is not None else self.prepare()

    def launch(self) -> Prepared:
        """Fork the next test's processes; with namespaces, `finish` collects what they report."""
        self.counter += 1
        number = self.counter
        base = os.path.join(self.io_dir, str(number))
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        out_fd = os.open(base + ".out", flags, 0o600)
        err_fd = os.open(base + ".err", flags, 0o600)
        work_dir = base + ".d"
        if not self.namespaces:
            os.mkdir(work_dir, 0o700)
        request_r, request_w = os.pipe()
        result_r, result_w = os.pipe()
        report_r, report_w = os.pipe()
        ready_r, ready_w = os.pipe()
        for fd in (request_w, result_r, report_r, ready_r):
            os.set_inheritable(fd, False)
        child_fds = {request_r, result_w, report_w, out_fd, err_fd, ready_w}
        pid = os.fork()
        if pid == 0:
            try:
                _keep_only(child_fds)
                if self.namespaces:
                    self._enter(request_r, result_w, report_w, out_fd, err_fd, ready_w)
                else:
                    os.close(report_w)
                    test_process(self.config, request_r, result_w, out_fd, err_fd, ready_w,
                                 work_dir, False)
            except BaseException as error:
                with contextlib.suppress(BaseException):
                    os.write(report_w, f"error {error}\n".encode())
            finally:
                os._exit(70)
        for fd in child_fds:
            os.close(fd)
        if not self.namespaces:
            os.close(report_r)
            return Prepared(number, pid, request_w, result_r, None, ready_r)
        return Prepared(number, pid, request_w, result_r, report_r, ready_r)

    def finish(self, prepared: Prepared) -> Prepared | None:
        """The launched test once it waits for its request, or None if the namespaces failed."""
        ready = os.read(prepared.ready_fd, 1)  # the test has done all it can before its request
        os.close(prepared.ready_fd)
        if prepared.report_fd is None:
            return prepared
        kind, _, value = _read_line(prepared.report_fd).strip().partition(" ")
        if kind != "student" or ready != b"r":
            for fd in (prepared.request_fd, prepared.result_fd, prepared.report_fd):
                os.close(fd)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(prepared.waited, 0)
            self.namespaces = False
            self.why = value if kind == "error" else "the test's namespaces failed"
            return None
        return prepared

    def _enter(self, request_r: int, result_w: int, report_w: int, out_fd: int, err_fd: int,
               ready_w: int) -> None:
        """In the first child: enter the namespaces, seal the file system, fork the test, report.

        The test is the first process (pid 1) of its pid namespace: when it ends, the kernel kills
        whatever it left there. This child stays outside, waits for it and reports its status.
        """
        in_user_namespace = confine.enter_namespaces(own_network=not self.config.get("sandboxed"))
        kept = [self.config["code_dir"], *self.config.get("inputs", [])]
        confine.seal_file_system([self.io_dir], kept, in_user_namespace)
        student = os.fork()
        if student == 0:
            os.close(report_w)
            confine.private_proc(bool(self.config.get("sandboxed")))
            test_process(self.config, request_r, result_w, out_fd, err_fd, ready_w, "/tmp", True)
        for fd in (request_r, result_w, out_fd, err_fd, ready_w):
            os.close(fd)
        os.write(report_w, f"student {student}\n".encode())
        report_exit(student, report_w)

    # -- running a test

    def run(self, prepared: Prepared, request: bytes, control_in: io.BufferedReader,
            control_out: io.BufferedWriter) -> None:
        send(control_out, {"event": "started", "test": prepared.number})
        go = control_in.readline()
        if not go:
            raise EOFError
        started = time.monotonic()
        with contextlib.suppress(OSError):
            os.write(prepared.request_fd, request)
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
        early = prepared.report_fd is not None and bool(self.config.get("done_at_result"))
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
                elif len(result) + len(chunk) <= RESULT_CAP_BYTES:
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
        if exited is None:
            usage = {"exit_code": None, "cpu_s": 0.0, "maxrss_kb": 0}
        else:
            usage = {"exit_code": os.waitstatus_to_exitcode(exited[0]), "cpu_s": exited[1],
                     "maxrss_kb": exited[2]}
        send(control_out, {"event": "done", "test": prepared.number, **usage, "wall_s": wall,
                           "result_bytes": len(result), "result_truncated": truncated},
             bytes(result))
        if exited is None:
            exited = self._exited(prepared)
        reporter_alive = exited[3]
        if prepared.report_fd is not None:
            os.close(prepared.report_fd)
        if reporter_alive:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(prepared.waited, 0)
        os.close(pidfd)

    def _exited(self, prepared: Prepared) -> tuple[int, float, int, bool]:
        """(wait status, CPU s, max RSS kB, whether the reporter is still to reap): its report, or wait4."""
        if prepared.report_fd is not None:
            fields = _read_line(prepared.report_fd).split()
            if len(fields) == 3 and fields[0].isdigit() and fields[2].isdigit():
                with contextlib.suppress(ValueError):
                    return int(fields[0]), float(fields[1]), int(fields[2]), True
        _, status, usage = os.wait4(prepared.waited, 0)
        if prepared.report_fd is None:
            reap_strays(prepared.waited)
        return status, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, False

    def serve(self) -> None:
        confine.set_not_dumpable()
        become_subreaper()
        control_in = os.fdopen(os.dup(0), "rb")
        control_out = os.fdopen(os.dup(1), "wb")
        self.control_fds = {control_in.fileno(), control_out.fileno()}
        for fd in self.control_fds:
            os.set_inheritable(fd, False)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
        prepared = self.prepare()
        send(control_out, {"event": "ready", "pid": os.getpid(), "namespaces": self.namespaces,
                           "why": self.why})
        while request := control_in.readline():
            reap_orphans()
            self.ahead = None
            self.run(prepared, request, control_in, control_out)
            launched = self.ahead
            prepared = (self.finish(launched) if launched else None) or self.prepare()


def _read_line(fd: int) -> str:
    """One short line from a pipe, read a byte at a time so that nothing after it is consumed."""
    data = b""
    while not data.endswith(b"\n") and len(data) < 4096:
        byte = os.read(fd, 1)
        if not byte:
            break
        data += byte
    return data.decode("utf-8", "replace")


def send(stream: io.BufferedWriter, message: dict[str, Any], payload: bytes = b"") -> None:
    stream.write(json.dumps(message).encode() + b"\n" + payload)
    stream.flush()


def reap_orphans() -> None:
    """Reap children that ended on their own (a test whose reporter died before it)."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass


def become_subreaper() -> None:
    """Make orphaned descendants of a test our children, so none can escape the cleanup."""
    confine.become_subreaper()


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
    config = json.loads(sys.argv[1])
    here = os.path.dirname(os.path.realpath(__file__))
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) != here]
    sys.dont_write_bytecode = True
    Server(config).serve()


if __name__ == "__main__":
    main()
