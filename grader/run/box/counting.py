"""Work counted from outside a call: how many times the submission's recursive functions ran.

Standard library only, part of the box (`grader.run.box`): the test process imports it as a sibling.

A search's work is the positions it visits, and a recursive search visits one position per call
of itself. `recursive_calls` runs a call under `sys.settrace` and counts, per code object of the
submission (a file under its folder, or code run in the namespace of a module there), how many
times it was entered; a code that is entered again while it is still running (itself, or through
at most three frames of other functions between, as mutually recursive max/min functions are) is
recursive, and the count is the sum over the recursive codes. A search without recursion (an
explicit stack) counts 0, and the parent refuses a count of 0 where the reference's is not.

Work elsewhere cannot hide: a test that counts runs as one task (the parent sets its cgroup's
`pids.max` to its process limit, with no thread allowance), a thread already running when the
count begins is an error, and threads started through `threading` are traced as well (for hosts
without the pids controller).

The tracer only sees "call" events and never traces lines, so a counted call runs about as fast
as the interpreter's tracing mode allows (several times slower than plain: count on small cases).
Past `budget` the call is stopped (an exception raised inside it) and the count is `budget + 1`,
so a search that would run for minutes is judged by its count in seconds. The count is taken by
the grader's code only; the parent compares it with the reference's. A call that turns the
counting off (`sys.settrace` of its own) gets an error, not a count. The counter runs inside the
test's process: it judges honest work, and a submission written to disguise its recursion (a
new code object for every level) is not counted as recursive (docs/isolation.md, Not covered).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any

RECURSION_HOPS = 4  # frames looked through for an earlier run of the same code (the caller included)


class OverBudget(BaseException):
    """Raised inside the counted call once its recursive calls pass the budget."""


class CountingTurnedOff(RuntimeError):
    """The counted call replaced or removed the grader's trace function."""


def ensure_one_thread() -> None:
    """Raise unless the calling thread is the process's only one (the test's, before a count)."""
    if len(sys._current_frames()) > 1:
        raise CountingTurnedOff(
            "another thread was running when the count began, so the "
            "call's work could not be counted (a counted test runs in one "
            "thread)"
        )


def recursive_calls(run: Callable[[], object], code_dir: str, budget: int | None = None) -> int:
    """How many calls of the submission's recursive functions `run()` made (`budget + 1` when
    it was stopped past `budget`)."""
    calls: dict[CodeType, int] = {}
    recursive: set[CodeType] = set()
    total = [0]
    limit = budget if budget is not None else -1

    def called(frame: FrameType, _event: str, _arg: Any) -> None:
        code = frame.f_code
        if not code.co_filename.startswith(code_dir) and not str(
            frame.f_globals.get("__file__", "")
        ).startswith(code_dir):
            return None
        calls[code] = calls.get(code, 0) + 1
        if code in recursive:
            total[0] += 1
        else:
            back = frame.f_back
            for _ in range(RECURSION_HOPS):
                if back is None:
                    break
                if back.f_code is code:
                    recursive.add(code)
                    total[0] += calls[code]
                    break
                back = back.f_back
        if total[0] > limit >= 0:
            raise OverBudget
        return None

    stopped = False
    threading.settrace(called)
    sys.settrace(called)
    try:
        run()
    except OverBudget:
        stopped = True
    finally:
        tracer = sys.gettrace()
        sys.settrace(None)
        threading.settrace(None)  # type: ignore[arg-type,unused-ignore]  # typeshed wants a function
    if stopped or total[0] > limit >= 0:
        return limit + 1
    if tracer is not called:
        raise CountingTurnedOff(
            "the call replaced the grader's call counter (sys.settrace), so its work could not be counted"
        )
    return total[0]
