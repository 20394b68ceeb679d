"""Compiling a submission's modules in a child process under limits, never in the grader's own.

Compiling is not running: `py_compile` executes nothing of the student's. But what it costs is
the student's: a 2 MB line `x = f()()()...` makes the compiler build an AST of a million nodes
(about 700 MB resident here), and N batch workers compiling such files at once would hold N such
spikes in the trusted parent. So the parent hands the files to a fresh interpreter that limits
its own address space (`RLIMIT_AS`) and CPU time first; what the parent reads back is a few
lines of JSON. A file the compiler cannot finish within those limits is the student's `CE`, with
a message saying which limit it needed more of. The child also writes each module's `.pyc` (as
`py_compile` always did), which the test processes then load instead of compiling again.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

COMPILE_MEMORY_MB = 512.0  # the default test memory limit (`Limits.memory_mb`)
COMPILE_MEMORY_FLOOR_MB = 128.0  # the least a suite's limit gives (an address space: the
# interpreter's own mappings count, about 11 MB here)
COMPILE_CPU_S = 30  # a 2 MB file of plain data or functions compiles in 1-2 s here
COMPILE_WALL_S = 120.0  # only if the child stops using CPU (it cannot, short of a stopped machine)
MESSAGE_CHARS = 4000  # of a compiler's message (a syntax error quotes the student's line)

# Runs as `python -I -S -c CHILD MEMORY_BYTES CPU_S MESSAGE_CHARS FILE...`, standard library
# only. It announces each file before compiling it, so a child that dies says which file killed it.
CHILD = """
import json, py_compile, resource, sys
memory, cpu, chars = map(int, sys.argv[1:4])
resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
for path in sys.argv[4:]:
    print(json.dumps({"started": path}), flush=True)
    try:
        py_compile.compile(path, doraise=True)
        error = None
    except py_compile.PyCompileError as failed:
        error = {"kind": failed.exc_type_name, "message": failed.msg.strip()[:chars]}
    print(json.dumps({"done": path, "error": error}), flush=True)
"""


@dataclass(frozen=True)
class CompileLimits:
    memory_mb: float = COMPILE_MEMORY_MB
    cpu_s: int = COMPILE_CPU_S
    wall_s: float = COMPILE_WALL_S


def _message(kind: str, message: str, limits: CompileLimits) -> str:
    if kind == "MemoryError":
        return (
            f"compiling it needs more than {limits.memory_mb:g} MB of memory: simplify the "
            "longest expressions or split the largest literals"
        )
    if kind == "RecursionError":
        return (
            "an expression is nested too deeply for the compiler (a very long chain of "
            "calls, operators or brackets): split it into several statements"
        )
    return message


def _why_stopped(returncode: int, limits: CompileLimits) -> str:
    if returncode == -signal.SIGXCPU:
        return f"compiling it took more than {limits.cpu_s} s of CPU time"
    how = (
        f"signal {signal.Signals(-returncode).name}"
        if returncode < 0 and -returncode in signal.valid_signals()
        else f"exit code {returncode}"
    )
    return (
        f"the compiler stopped on this file ({how}): compiling it needs more than "
        f"{limits.memory_mb:g} MB of memory or {limits.cpu_s} s of CPU time"
    )


@dataclass
class Compiled:
    """What compiling a submission's modules found."""

    errors: dict[str, str] = field(default_factory=dict)  # file name -> why it does not compile
    problem: str | None = None  # why the grader could not compile them (its own fault: JE)


def compile_files(paths: dict[str, Path], limits: CompileLimits | None = None) -> Compiled:
    """Compile each file (name -> path) in a limited child, writing its `.pyc`.

    The child stops at nothing the student wrote: a file it cannot finish is that file's error
    (the student's), and the files after it are still compiled unless the child died on it."""
    limits = limits or CompileLimits()
    compiled = Compiled()
    if not paths:
        return compiled
    names = {str(path): name for name, path in paths.items()}
    command = [
        sys.executable,
        "-I",
        "-S",
        "-c",
        CHILD,
        str(int(limits.memory_mb * 1024 * 1024)),
        str(limits.cpu_s),
        str(MESSAGE_CHARS),
        *names,
    ]
    returncode: int | None = None
    stderr = b""
    try:
        child = subprocess.run(
            command, stdin=subprocess.DEVNULL, capture_output=True, timeout=limits.wall_s, check=False
        )
        output, returncode, stderr = child.stdout, child.returncode, child.stderr
    except subprocess.TimeoutExpired as late:
        output = late.stdout if isinstance(late.stdout, bytes) else b""
    except OSError as failed:
        compiled.problem = f"the grader could not start a compiler process: {failed}"
        return compiled
    done: set[str] = set()
    pending: str | None = None
    for line in output.decode("utf-8", "replace").splitlines():
        event = _event(line)
        if "started" in event:
            pending = names.get(str(event["started"]))
        elif "done" in event and pending is not None:
            reported = event.get("error")
            if isinstance(reported, dict):
                compiled.errors[pending] = _message(
                    str(reported.get("kind")), str(reported.get("message")), limits
                )
            done.add(pending)
            pending = None
    if pending is not None:
        compiled.errors[pending] = (
            f"compiling it did not finish in {limits.wall_s:g} s"
            if returncode is None
            else _why_stopped(returncode, limits)
        )
    unreported = [name for name in paths if name not in done and name not in compiled.errors]
    if unreported and not compiled.errors:
        tail = stderr.decode("utf-8", "replace").strip()[-300:]
        compiled.problem = (
            f"the compiler process ended before compiling "
            f"{', '.join(unreported)} (exit {returncode}){': ' + tail if tail else ''}"
        )
    return compiled


def _event(line: str) -> dict[str, Any]:
    try:
        event = json.loads(line)
    except ValueError:
        return {}
    return event if isinstance(event, dict) else {}
