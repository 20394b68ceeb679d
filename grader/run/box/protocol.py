"""Both protocols of the box, in one place: every message, byte and size that crosses a pipe.

Standard library only, part of the box (`grader.run.box`, see its `__init__`): the fork server and
the test process import it as a sibling (`import protocol`), and it is the one module of the box
the parent may import (pyproject.toml, the contract "the parent reaches the box only through its
protocol"). It imports nothing of the box, so the parent importing it runs nothing else of it;
the parent's checks of what it receives are its own (`grader.run.channel`).

The parent and the fork server, on the fork server's stdin/stdout, one JSON object per line:

    <- Ready                      once the first test's processes wait for their request
    -> CallRequest | DriverRequest
    <- Started                    the test has confined itself (or says why it could not); the
                                  parent checks its boundary from outside, moves it into its
                                  cgroups
    -> GO
    <- Done, then exactly `result_bytes` bytes: what the test process wrote on its result pipe
       (a StepsResult or DriverResult if it is honest; checked by `grader.run.received`).

The fork server and one test process, on the test's pipes (`worker.Server`, `testprocess`):

    ready pipe  <- READY          the test did all it can before its request (confine_ahead)
    (an interactive test: stdin and stdout are named pipes IO/N.stdin, IO/N.stdout, `talk.py`)
    request     -> frame(request) LENGTH_DIGITS decimal digits, a newline, the request's JSON
    ready pipe  <- CONFINED       the request applied, every other descriptor closed; or
                <- REFUSED + why  at most REASON_CAP bytes of why; the test ends, nothing ran
    request     -> TEST_GO        after the parent's GO; the end of the pipe instead: do not run
    result      <- the result's JSON, then the end of the pipe
    report      <- REPORT_STUDENT pid, REPORT_ERROR why, or the exit: "STATUS CPU_S MAXRSS_KB"
                                  (one line each, at most REPORT_LINE_CAP bytes, from the process
                                  outside the test's namespaces)
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict, final

# ---------------------------------------------------------------- the parent and the fork server

RESULT_CAP_BYTES = 8 * 1024 * 1024  # what a test may send back; more is cut (and judged OLE)
MINIMAL_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
}
GO = b'{"go": true}\n'
# Why something could not be done (a test that could not confine itself, a fork server without
# namespaces): at most this many bytes from the test, characters on receipt.
REASON_CAP = 300

# ---------------------------------------------------------------- the fork server and a test

READY = b"r"
CONFINED = b"c"
REFUSED = b"x"
TEST_GO = b"g"
LENGTH_DIGITS = 8  # a request's length, in decimal, before its JSON: at most 99,999,999 bytes
LENGTH_HEADER_BYTES = LENGTH_DIGITS + 1  # the digits and a newline
REPORT_STUDENT = "student"
REPORT_ERROR = "error"
REPORT_LINE_CAP = 4096
# An interactive test's stdin and stdout: named pipes IO/N.stdin and IO/N.stdout that the fork
# server makes and opens for the test before it is forked; the parent opens their other ends
# once the test has started, and removes the names.
TALK_SUFFIXES = (".stdin", ".stdout")


def frame(request: bytes) -> bytes:
    """A request as the test reads it: its length (LENGTH_DIGITS digits, a newline), then it.

    >>> frame(b'{}')
    b'00000002\\n{}'
    """
    if len(request) >= 10**LENGTH_DIGITS:
        raise ValueError(f"a request of {len(request)} bytes does not fit its length header")
    return b"%0*d\n" % (LENGTH_DIGITS, len(request)) + request


# ---------------------------------------------------------------- what a test sends back

# Written by a call test on its stderr before each step (the step's index follows, then a
# newline): after a kill, the last one says which call was running. The test could forge one;
# it only changes which call a time-limit message names.
STEP_MARKER = b"\x00grader-step "
# What one exception may say (its type name, message, traceback's tail, "FILE, in FUNCTION"): the
# test cuts them, and the parent (`grader.run.received`) cuts again whatever the test sent.
RAISES_CAP = 200
MESSAGE_CAP = 2000
TRACEBACK_CAP = 6000
ORIGIN_CAP = 300


def cut(text: str, cap: int) -> str:
    """The start of `text`, at most `cap` characters and "..." when there was more.

    >>> cut("abcdef", 3), cut("abc", 3)
    ('abc...', 'abc')
    """
    return text if len(text) <= cap else text[:cap] + "..."


def cut_start(text: str, cap: int) -> str:
    """The end of `text` (where a traceback says what was raised), "..." in front when cut.

    >>> cut_start("abcdef", 3)
    '...def'
    """
    return text if len(text) <= cap else "..." + text[-cap:]


class ServerConfig(TypedDict):
    """The fork server's one command-line argument."""

    code_dir: str
    io_dir: str
    inputs: list[str]
    sandboxed: bool  # inside bubblewrap (which has its own network namespace)
    namespaces: bool
    done_at_result: bool  # report `done` when the result is in, before the exit (cgroups measure)
    test_uid: int | None  # the unprivileged uid every test switches to (None: the grader's own)
    seccomp: str  # the compiled filter every test installs (hex; grader/run/policy.py)
    reach: list[str]  # folders the test must reach although an ancestor is closed (the interpreter)


class RequestLimits(TypedDict):
    cpu_s: float
    output_bytes: int
    scratch_bytes: int
    scratch_files: int


class HelperCode(TypedDict):
    """A reference function or class the test runs with in place of the student's
    (`reference_helpers`)."""

    module: str  # the submitted module it replaces a function or class of
    name: str
    imports: str  # the reference module's top-level imports, for names the student's lacks
    source: str  # the definition, decorators included
    support: NotRequired[str]  # the reference's own top-level definitions it needs that the
    #                            stub does not declare (private helpers, tables), in file order


class CallRequest(TypedDict):
    kind: Literal["call"]
    steps: list[dict[str, Any]]  # the suite's steps, fixture arguments turned into {"$path": ...}
    limits: RequestLimits
    stdin: str | None
    env: dict[str, str]
    helpers: NotRequired[list[HelperCode]]


class DriverRequest(TypedDict):
    kind: Literal["transcript", "interactive"]  # interactive: stdin and stdout are the parent's
    #                                             pipes (TALK_SUFFIXES), its referee on the other end
    driver: str
    argv: list[str]
    limits: RequestLimits
    stdin: str | None
    env: dict[str, str]
    helpers: NotRequired[list[HelperCode]]


Request: TypeAlias = CallRequest | DriverRequest


class Ready(TypedDict):
    event: Literal["ready"]
    pid: int
    namespaces: bool
    why: str  # why not, when tests run without namespaces


class Started(TypedDict):
    event: Literal["started"]
    test: int
    confined: str  # empty when the test confined itself, else why it could not (it runs nothing)


class Done(TypedDict):
    event: Literal["done"]
    test: int
    exit_code: int | None  # None: the test answered and was still exiting (`done_at_result`)
    cpu_s: float
    maxrss_kb: int
    wall_s: float
    result_bytes: int
    result_truncated: bool


# What the test process sends back (keys as the recorded expectations store them).


@final
class ValueOutcome(TypedDict):
    value: Any


@final
class UnplainOutcome(TypedDict):
    unplain: str  # why the returned value is not plain data


Raised = TypedDict(
    "Raised",
    {
        "raises": str,
        "message": str,
        "traceback": str,
        "ni": bool,
        "import": bool,
        "let_failed": NotRequired[bool],
        "origin": NotRequired[str],
    },
)  # "FILE, in FUNCTION" of the raise
StepOutcome: TypeAlias = ValueOutcome | UnplainOutcome | Raised


def raised(outcome: StepOutcome) -> Raised | None:
    """The exception a step raised, or None if it returned something."""
    return outcome if "raises" in outcome else None


class StepsResult(TypedDict):
    steps: list[StepOutcome]
    output_lost: NotRequired[str]  # why a write to stdout or stderr failed: the disk was full


class DriverResult(TypedDict):
    exit: int
    error: Raised | None
    output_lost: NotRequired[str]
