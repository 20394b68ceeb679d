"""The messages between the parent (`runner`) and the fork server (`worker`), typed once.

Standard library only: the fork server imports this file as a sibling (it runs as a script, also
inside bubblewrap). On the fork server's stdin/stdout, one JSON object per line:

    <- Ready                      once the first test's processes wait for their request
    -> CallRequest | DriverRequest
    <- Started                    the test has confined itself (or says why it could not); the
                                  parent checks its boundary from outside, moves it into its
                                  cgroups
    -> GO
    <- Done, then exactly `result_bytes` bytes: what the test process wrote on its result pipe
       (a StepsResult or DriverResult if it is honest; checked by `grader.run.received`).

The parent trusts nothing it receives: `ready`, `started` and `done` check a message's shape.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict, final

RESULT_CAP_BYTES = 8 * 1024 * 1024  # what a test may send back; more is cut (and judged OLE)
MINIMAL_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "HOME": "/tmp", "TMPDIR": "/tmp"}
GO = b'{"go": true}\n'
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


class ProtocolError(ValueError):
    """A message from the fork server that does not have the shape of this protocol."""


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
    kind: Literal["transcript"]
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


Raised = TypedDict("Raised", {"raises": str, "message": str, "traceback": str, "ni": bool,
                              "import": bool, "let_failed": NotRequired[bool],
                              "origin": NotRequired[str]})  # "FILE, in FUNCTION" of the raise
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


# ---------------------------------------------------------------- checking on receipt


def _field(message: dict[str, Any], key: str, kinds: tuple[type, ...], nonnegative: bool = True
           ) -> Any:
    value = message.get(key)
    if type(value) not in kinds or (nonnegative and value is not None and value < 0):
        raise ProtocolError(f"a malformed '{key}'")
    return value


def _event(message: Any, event: str) -> dict[str, Any]:
    if not isinstance(message, dict) or message.get("event") != event:
        raise ProtocolError(f"expected '{event}'")
    return message


def ready(message: Any) -> Ready:
    """A `ready` message, checked."""
    data = _event(message, "ready")
    return Ready(event="ready", pid=_field(data, "pid", (int,)),
                 namespaces=data.get("namespaces") is True, why=str(data.get("why", ""))[:300])


def started(message: Any) -> Started:
    """A `started` message, checked."""
    data = _event(message, "started")
    return Started(event="started", test=_field(data, "test", (int,)),
                   confined=str(data.get("confined", "no confinement report"))[:300])


def done(message: Any) -> Done:
    """A `done` message, checked (`exit_code` may be negative: a signal)."""
    data = _event(message, "done")
    return Done(event="done", test=_field(data, "test", (int,)),
                exit_code=_field(data, "exit_code", (int, type(None)), nonnegative=False),
                cpu_s=float(_field(data, "cpu_s", (int, float))),
                maxrss_kb=_field(data, "maxrss_kb", (int,)),
                wall_s=float(_field(data, "wall_s", (int, float))),
                result_bytes=_field(data, "result_bytes", (int,)),
                result_truncated=_field(data, "result_truncated", (bool,)))
