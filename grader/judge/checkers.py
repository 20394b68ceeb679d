"""Checkers: trusted functions of the fixtures that judge an answer instead of equality.

A step (or a call test, for each of its cases) naming `checker: MODULE:FUNCTION` is judged here,
in the grader's own process, never in the test process: the checker's logic stays out of the
student's reach. It is called as `check(case, answer)`: `case` the call's positional arguments
and `answer` what the test process sent back (already checked by `grader.run.received`), both as
fresh plain copies (None, bool, int, float, str, lists and dicts with string keys, nested at most
`received.MAX_DEPTH` deep), so the checker can neither be handed an object of the student's nor
change what the report shows. It returns `(verdict, message)`, verdict `AC` or `WA`; anything
else, or an exception, is the author's mistake: a `JE` naming the checker, never a student's WA.
Its message is cut at MESSAGE_CAP characters and shown as any other message (made inert). A
checker still running after TIME_LIMIT_S on one answer is a JE as well.
"""

from __future__ import annotations

import signal
import threading
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from grader.judge.verdicts import Verdict
from grader.run import received
from grader.run.box.protocol import TRACEBACK_CAP, cut, cut_start
from grader.suite.cases import checker_function
from grader.suite.load import LoadedSuite
from grader.suite.model import SuiteError
from grader.suite.schema import Step

MESSAGE_CAP = 500
TIME_LIMIT_S = 10.0  # per answer: a checker that hangs is the grader's fault, not a student's
REASON_CAP = 300
VERDICTS = {"AC": Verdict.AC, "WA": Verdict.WA}

Check = Callable[[Step, Any, str], tuple[Verdict, str, str]]
"""How `judge_steps` asks a step's checker: (step, answer, label) -> (verdict, message, details)."""


class NotPlain(ValueError):
    """A value that is not plain JSON-like data (or nested too deeply)."""


def plain_copy(data: Any, depth: int = 0) -> Any:
    """A fresh copy of plain data, refusing anything else.

    >>> plain_copy({"move": [1, 2.5, None, True, "x"]})
    {'move': [1, 2.5, None, True, 'x']}
    >>> plain_copy([object()])
    Traceback (most recent call last):
    ...
    grader.judge.checkers.NotPlain: a value of type object
    """
    if depth > received.MAX_DEPTH:
        raise NotPlain("a value nested too deeply")
    kind = type(data)
    if data is None or kind in (bool, int, float, str):
        return data
    if kind in (list, tuple):
        return [plain_copy(item, depth + 1) for item in data]
    if kind is dict and all(type(key) is str for key in data):
        return {key: plain_copy(item, depth + 1) for key, item in data.items()}
    raise NotPlain(f"a value of type {kind.__name__}")


def _the_grader(source: str, why: str) -> str:
    return f"the checker {source} {why} (the grader's fault, not the submission's)"


def run_checker(loaded: LoadedSuite, step: Step, answer: Any, label: str) -> tuple[Verdict, str, str]:
    """The verdict of `step`'s checker on `answer`, its message (prefixed by `label`) and the
    details of a JE (the checker's traceback: for the instructor)."""
    source = step.checker or ""
    try:
        function = checker_function(loaded, source)
    except SuiteError as error:
        return Verdict.JE, f"{label}: {error}", ""
    try:
        case, given = plain_copy(step.args), plain_copy(answer)
    except NotPlain as error:
        return Verdict.JE, f"{label}: cannot hand {source} plain data ({error})", ""
    try:
        with time_limit(TIME_LIMIT_S):
            returned = function(case, given)
    except OverTime as error:
        why = f"ran for more than {TIME_LIMIT_S:g} s on one answer"
        return Verdict.JE, f"{label}: {_the_grader(source, why)}", where(error)
    except (Exception, SystemExit) as error:  # the author's code: every failure is a JE
        why = f"raised {type(error).__name__}: {cut(str(error), REASON_CAP)}"
        return Verdict.JE, f"{label}: {_the_grader(source, why)}", where(error)
    verdict, message = verdict_of(returned)
    if verdict is None:
        shown = cut(repr(returned), REASON_CAP)
        why = f"returned {shown}, not (verdict, message) with verdict 'AC' or 'WA' and a str message"
        return Verdict.JE, f"{label}: {_the_grader(source, why)}", ""
    if verdict is Verdict.AC:
        return verdict, "", ""
    return verdict, f"{label}: {cut(message, MESSAGE_CAP)}", ""


class OverTime(BaseException):
    """A checker still running at its time limit (not an Exception: the checker cannot catch it
    with `except Exception`)."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Stop the body after `seconds` of wall-clock time, where a signal can (in the main thread
    of a process, as `grader grade` runs); in any other thread the checker runs unbounded."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(_signum: int, _frame: object) -> None:
        raise OverTime

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def where(error: BaseException) -> str:
    """Where the checker failed, frame by frame (file, line, function), without its source lines:
    the details of a visible test may be shown to students, and the checker's code is hidden."""
    frames = traceback.extract_tb(error.__traceback__)[1:]  # the first frame is run_checker's
    lines = [f"{Path(frame.filename).name}:{frame.lineno} in {frame.name}" for frame in frames]
    return cut_start("\n".join(lines), TRACEBACK_CAP)


def verdict_of(returned: Any) -> tuple[Verdict | None, str]:
    """(verdict, message) from what a checker returned, or (None, "") when it is not that.

    >>> verdict_of(("WA", "no")), verdict_of([Verdict.AC, ""]), verdict_of(("TLE", ""))
    ((<Verdict.WA: 'WA'>, 'no'), (<Verdict.AC: 'AC'>, ''), (None, ''))
    """
    if type(returned) not in (tuple, list) or len(returned) != 2:
        return None, ""
    verdict, message = returned
    if type(message) is not str:
        return None, ""
    if isinstance(verdict, Verdict):
        verdict = verdict.value
    if type(verdict) is not str or verdict not in VERDICTS:
        return None, ""
    return VERDICTS[verdict], message
