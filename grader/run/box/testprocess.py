"""The test process: it receives its request, confines itself, runs the submission, sends back.

Standard library only, part of the box (`grader.run.box`) like the fork server (`worker.py`) that
forks it and imports this file as a sibling. Everything here after the request arrives runs next
to student code: it converts what the code returned into plain data without trusting any of its
methods, and the parent checks all of it again (`grader.run.received`).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import json
import os
import resource
import runpy
import signal
import sys
import traceback
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grader.run.box import confine, counting
    from grader.run.box.plain import Unplain, shown
    from grader.run.box.protocol import (
        CONFINED,
        LENGTH_HEADER_BYTES,
        MESSAGE_CAP,
        MINIMAL_ENV,
        ORIGIN_CAP,
        RAISES_CAP,
        READY,
        REASON_CAP,
        REFUSED,
        STEP_MARKER,
        TEST_GO,
        TRACEBACK_CAP,
        DriverRequest,
        DriverResult,
        HelperCode,
        Raised,
        Request,
        ServerConfig,
        StepOutcome,
        StepsResult,
        cut,
    )
    from grader.run.box.streams import output_lost, standard_streams
    from grader.run.box.swap import install_helpers
else:  # siblings (see __init__.py): this runs in the fork server, a script
    sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
    import confine
    import counting
    from plain import Unplain, shown
    from protocol import (
        CONFINED,
        LENGTH_HEADER_BYTES,
        MESSAGE_CAP,
        MINIMAL_ENV,
        ORIGIN_CAP,
        RAISES_CAP,
        READY,
        REASON_CAP,
        REFUSED,
        STEP_MARKER,
        TEST_GO,
        TRACEBACK_CAP,
        cut,
    )
    from streams import output_lost, standard_streams
    from swap import install_helpers

_encode_result = json.JSONEncoder().encode  # bound before any student code can patch json


class StepFailed(Exception):
    """A value that depends on an earlier step that raised."""


# ---------------------------------------------------------------- running steps or a driver


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
            return target(*self.evaluate(form.get("args", [])), **self.evaluate(form.get("kwargs", {})))
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


def describe_exception(error: BaseException, code_dir: str) -> Raised:
    frames = [
        frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename.startswith(code_dir)
    ]
    for frame in frames:
        frame.filename = os.path.relpath(frame.filename, code_dir)
    lines = ["Traceback (most recent call last):\n", *traceback.format_list(frames)]
    try:
        message = str(error)
    except BaseException:
        message = "<unprintable>"
    name = cut(type(error).__name__, RAISES_CAP)  # a class may be named with megabytes
    lines.append(f"{name}: {cut(message, MESSAGE_CAP)}\n" if message else f"{name}\n")
    is_import = isinstance(error, (ImportError, SyntaxError)) or (
        isinstance(error, AttributeError) and getattr(error, "_grader_missing", False)
    )
    described: Raised = {
        "raises": name,
        "message": message[:MESSAGE_CAP],
        "traceback": "".join(lines)[-TRACEBACK_CAP:],
        "ni": isinstance(error, NotImplementedError),
        "import": is_import,
    }
    if frames:  # where in the submitted or given files it was raised
        described["origin"] = cut(f"{frames[-1].filename}, in {frames[-1].name}", ORIGIN_CAP)
    return described


def run_steps(
    steps: list[dict[str, Any]], code_dir: str, helpers: list[HelperCode] | None = None
) -> StepsResult:
    names = Namespace()
    outcomes: list[StepOutcome] = []
    if helpers:
        try:
            install_helpers(helpers, code_dir)
        except BaseException as error:  # the student's module does not import, most likely
            return {"steps": [{"let_failed": True, **describe_exception(error, code_dir)}]}
    for index, step in enumerate(steps):
        with contextlib.suppress(OSError):
            os.write(2, STEP_MARKER + b"%d\n" % index)
        target_text = step.get("call") or step.get("get") or ""
        try:
            try:
                target = names.resolve(target_text)
            except AttributeError as error:
                error._grader_missing = True  # type: ignore[attr-defined]
                raise
            if "call" in step:
                args = names.evaluate(step.get("args", []))
                kwargs = names.evaluate(step.get("kwargs", {}))
                if step.get("count") == "recursive_calls":
                    counting.ensure_one_thread()
                    value = counting.recursive_calls(
                        functools.partial(target, *args, **kwargs), code_dir, step.get("budget")
                    )
                else:
                    value = target(*args, **kwargs)
            else:
                value = target
            if "let" in step:
                names.names[step["let"]] = value
                if not step.get("check"):
                    continue
            outcomes.append({"value": shown(value, step)})
        except Unplain as unplain:
            outcomes.append({"unplain": str(unplain)})
        except BaseException as error:
            if "let" in step:
                names.names[step["let"]] = StepFailed(f"step '{step['let']}' raised")
                if not step.get("check"):
                    outcomes.append({"let_failed": True, **describe_exception(error, code_dir)})
                    continue
            outcomes.append(describe_exception(error, code_dir))
    return {"steps": outcomes}


def run_driver(request: DriverRequest, code_dir: str) -> DriverResult:
    script = os.path.join(code_dir, request["driver"] + ".py")
    sys.argv = [script, *request["argv"]]
    exit_code = 0
    error: Raised | None = None
    try:
        helpers = request.get("helpers")
        if helpers:
            install_helpers(helpers, code_dir)
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


# ---------------------------------------------------------------- the process


def keep_only(fds: set[int]) -> None:
    """Close every descriptor but `fds` (and 0, 1, 2)."""
    low = 0
    for fd in sorted({0, 1, 2} | fds):
        if low < fd:  # closerange(n, n) would close everything from n: it calls close_range(n, n-1)
            os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 20)


def _read_exactly(fd: int, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = os.read(fd, min(65536, size - len(data)))
        if not chunk:
            raise EOFError("the request ended early")
        data += chunk
    return bytes(data)


def read_request(fd: int) -> Request:
    """The request: its length (`protocol.frame`), then its JSON."""
    size = int(_read_exactly(fd, LENGTH_HEADER_BYTES))
    return json.loads(_read_exactly(fd, size))  # type: ignore[no-any-return]


def confine_ahead(config: ServerConfig, work_dir: str, namespaces: bool) -> str:
    """What the prepared test does to itself before its request exists: its own session and
    signals, its working folder, then for good its uid, no capability and the seccomp filter.
    Its working folder is returned."""
    os.setsid()
    for sig in (signal.SIGXFSZ, signal.SIGXCPU, signal.SIGPIPE, signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)
    if namespaces:
        work_dir = "/tmp"
    os.chdir(work_dir)
    confine.lock_down(config["test_uid"])  # the filter the fork server prepared
    return work_dir


def apply_request(request: Request, out_fd: int, err_fd: int, in_fd: int | None = None) -> None:
    """What the request decides, all within the test's own reach: stdin (`in_fd`, the pipe of an
    interactive test, else its file), output, limits."""
    limits = request["limits"]
    stdin_fd = in_fd if in_fd is not None else os.open(request["stdin"] or os.devnull, os.O_RDONLY)
    os.dup2(stdin_fd, 0)
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    backstop = int(limits["cpu_s"] * 1.25) + 2  # the parent judges; the kernel only backs it up
    resource.setrlimit(resource.RLIMIT_CPU, (backstop, backstop + 1))
    # stdout's own cap is the parent's to judge; the kernel caps any one file at the larger space
    largest = max(limits["output_bytes"], limits["scratch_bytes"]) + 1
    resource.setrlimit(resource.RLIMIT_FSIZE, (largest, largest))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def test_process(
    config: ServerConfig,
    request_fd: int,
    result_fd: int,
    out_fd: int,
    err_fd: int,
    ready_fd: int,
    work_dir: str,
    namespaces: bool,
    in_fd: int | None = None,
) -> None:
    """Runs as the test: confine, wait for the request, say so, wait for TEST_GO, run, send back.

    The privileged steps happen while the test is prepared ahead, off the critical path. Nothing
    of the request runs before the parent has checked the boundary from outside and moved the
    test into its cgroups: the fork server says TEST_GO only then. A step that failed ends the
    test with the reason on its ready pipe (REFUSED...), before any of the request's code ran.
    """
    failed = ""
    try:
        work_dir = confine_ahead(config, work_dir, namespaces)
    except BaseException as error:
        failed = f"{type(error).__name__}: {error}"
    os.write(ready_fd, READY)
    try:
        request = read_request(request_fd)
        if failed:
            raise confine.ConfineError(1, failed)
        apply_request(request, out_fd, err_fd, in_fd)
        keep_only({result_fd, request_fd, ready_fd})
    except BaseException as error:
        with contextlib.suppress(BaseException):
            os.write(ready_fd, REFUSED + f"{type(error).__name__}: {error}".encode()[:REASON_CAP])
        os._exit(71)
    os.write(ready_fd, CONFINED)
    os.close(ready_fd)
    if os.read(request_fd, len(TEST_GO)) != TEST_GO:
        os._exit(0)
    os.close(request_fd)
    os.environ.clear()
    os.environ.update({**MINIMAL_ENV, "HOME": work_dir, "TMPDIR": work_dir, **request["env"]})
    code_dir = config["code_dir"]
    standard_streams()
    sys.path[0:0] = [code_dir]
    result: StepsResult | DriverResult
    if request["kind"] == "call":
        result = run_steps(request["steps"], code_dir, request.get("helpers"))
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
    else:
        result = run_driver(request, code_dir)
    if (lost := output_lost()) is not None:
        result["output_lost"] = lost
    payload = _encode_result(result).encode()
    view = memoryview(payload)
    while view:
        written = os.write(result_fd, view[:65536])
        view = view[written:]
    os.close(result_fd)  # the answer is complete before the (slower) exit
    os._exit(0)
