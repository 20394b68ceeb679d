"""The fork server: runs tests of one submission, each in a fresh forked child.

This file runs as a script (``python worker.py CODE_DIR``), standard library only, and never
imports student code itself: only the forked children do. It reads one JSON request per line on
stdin and answers JSON lines on stdout:

    -> {"test_dir": ..., "kind": "call", "steps": [...], "limits": {...}, ...}
    <- {"event": "started", "pid": ..., "baseline_kb": ...}
    <- {"event": "done", "exit_code": ..., "cpu_s": ..., "maxrss_kb": ..., "result": ...}

The parent watches the child (time, memory, processes, output) and kills it when over a limit;
the child hands back plain data on a pipe of its own, which this process relays untouched.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import resource
import runpy
import signal
import sys
import threading
import time
import traceback
from typing import Any

RESULT_CAP_BYTES = 32 * 1024 * 1024
_encode_result = json.JSONEncoder().encode  # bound before any student code can patch json
UNPRIVILEGED_UID_BASE = 61000


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
        if all(type(key) is str for key, _ in items):
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


def child_main(request: dict[str, Any], code_dir: str, result_fd: int, uid: int | None) -> None:
    """Runs in the forked child: set limits, redirect, run, hand the result back, exit."""
    os.setsid()
    test_dir = request["test_dir"]
    limits = request["limits"]
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    stdin_path = request.get("stdin") or os.devnull
    stdin_fd = os.open(stdin_path, os.O_RDONLY)
    out_fd = os.open(os.path.join(test_dir, "stdout"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    err_fd = os.open(os.path.join(test_dir, "stderr"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(stdin_fd, 0)
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    for fd in (stdin_fd, out_fd, err_fd):
        os.close(fd)
    os.chdir(test_dir)
    cpu = max(1, int(limits["cpu_s"] + 0.999))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["output_bytes"], limits["output_bytes"]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if uid is not None:
        resource.setrlimit(resource.RLIMIT_NPROC, (limits["processes"], limits["processes"]))
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
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
    os._exit(0)


# ---------------------------------------------------------------- server side


def resident_kb() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def read_all(fd: int, sink: list[bytes]) -> None:
    size = 0
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        size += len(chunk)
        if size <= RESULT_CAP_BYTES:
            sink.append(chunk)
    os.close(fd)


def become_subreaper() -> None:
    """Make orphaned descendants of a test our children, so none can escape the cleanup."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def reap_strays(group: int) -> None:
    """Kill the test's process group and every orphan left behind, then reap them all."""
    children_file = f"/proc/self/task/{os.getpid()}/children"
    for _ in range(1000):
        with contextlib.suppress(OSError):
            os.killpg(group, signal.SIGKILL)
        try:
            with open(children_file) as listing:
                strays = [int(pid) for pid in listing.read().split()]
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


def serve(code_dir: str, uid: int | None) -> None:
    become_subreaper()
    control_in = os.fdopen(os.dup(0), "r")
    control_out = os.fdopen(os.dup(1), "w")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    control_out.write(json.dumps({"event": "ready"}) + "\n")
    control_out.flush()
    for line in control_in:
        request = json.loads(line)
        reader_fd, writer_fd = os.pipe()
        go_reader, go_writer = os.pipe()
        baseline = resident_kb()
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            try:
                control_in.close()
                control_out.close()
                os.close(reader_fd)
                os.close(go_writer)
                os.read(go_reader, 1)  # no student code runs before the parent knows of the test
                os.close(go_reader)
                child_main(request, code_dir, writer_fd, uid)
            finally:
                os._exit(70)
        os.close(writer_fd)
        os.close(go_reader)
        chunks: list[bytes] = []
        reader = threading.Thread(target=read_all, args=(reader_fd, chunks), daemon=True)
        reader.start()
        started_message = {"event": "started", "pid": pid, "baseline_kb": baseline}
        control_out.write(json.dumps(started_message) + "\n")
        control_out.flush()
        os.write(go_writer, b"g")
        os.close(go_writer)
        _, status, usage = os.wait4(pid, 0)
        wall = time.monotonic() - started
        reap_strays(pid)
        reader.join(timeout=2.0)
        raw = b"".join(chunks) if not reader.is_alive() else b""
        answer = {
            "event": "done",
            "exit_code": os.waitstatus_to_exitcode(status),
            "cpu_s": usage.ru_utime + usage.ru_stime,
            "wall_s": wall,
            "maxrss_kb": usage.ru_maxrss,
            "baseline_kb": baseline,
            "result": raw.decode("utf-8", "replace") if raw else None,
            "result_too_big": sum(map(len, chunks)) >= RESULT_CAP_BYTES,
        }
        control_out.write(json.dumps(answer) + "\n")
        control_out.flush()


def main() -> None:
    code_dir = os.path.realpath(sys.argv[1])
    uid = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] != "-" else None
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) != os.path.dirname(
        os.path.realpath(__file__))]
    sys.dont_write_bytecode = True
    serve(code_dir, uid)


if __name__ == "__main__":
    main()
