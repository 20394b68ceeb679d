"""Work counted from outside a call (`count: recursive_calls`): a search that does not prune
loses on its count, whatever the machine's speed, and cannot hide its work."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from grader.judge.verdicts import Verdict
from grader.run.box.counting import CountingTurnedOff, ensure_one_thread, recursive_calls
from grader.run.cgroup import hierarchies
from grader.suite.schema import Step
from tests.conftest import Build

SEARCHES = """\
import sys


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def helper(n):
    return n


def flat(n):
    return sum(helper(i) for i in range(n))


def high(n):
    return 0 if n == 0 else low(n - 1) + 1


def low(n):
    return 0 if n == 0 else high(n - 1) + 1


def hides(n):
    sys.settrace(None)
    return fib(n)


def swallows(n):
    try:
        return fib(n)
    except BaseException:
        return -1


def in_a_thread(n):
    import threading
    box = []
    worker = threading.Thread(target=lambda: box.append(fib(n)))
    worker.start()
    worker.join()
    return box[0]


def renamed(n):
    return n if n < 2 else renamed(n - 1) + renamed(n - 2)


renamed.__code__ = renamed.__code__.replace(co_filename="<elsewhere>")
"""


@pytest.fixture
def searches(tmp_path: Path) -> Iterator[Any]:
    folder = tmp_path / "code"
    folder.mkdir()
    (folder / "searches.py").write_text(SEARCHES)
    sys.path.insert(0, str(folder))
    try:
        import searches as module

        yield module
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("searches", None)


def calls_of_fib(n: int) -> int:
    return 1 if n < 2 else 1 + calls_of_fib(n - 1) + calls_of_fib(n - 2)


def test_a_recursive_function_counts_every_call(searches: Any, tmp_path: Path) -> None:
    code = str(tmp_path / "code")
    assert recursive_calls(lambda: searches.fib(15), code) == calls_of_fib(15)


def test_mutual_recursion_counts_both_functions(searches: Any, tmp_path: Path) -> None:
    code = str(tmp_path / "code")
    assert recursive_calls(lambda: searches.high(40), code) == 41


def test_helpers_and_loops_are_not_work(searches: Any, tmp_path: Path) -> None:
    code = str(tmp_path / "code")
    assert recursive_calls(lambda: searches.flat(500), code) == 0


def test_code_compiled_under_another_file_name_still_counts(searches: Any, tmp_path: Path) -> None:
    code = str(tmp_path / "code")
    assert recursive_calls(lambda: searches.renamed(15), code) == calls_of_fib(15)


def test_a_thread_started_by_the_call_is_counted_too(searches: Any, tmp_path: Path) -> None:
    code = str(tmp_path / "code")
    assert recursive_calls(lambda: searches.in_a_thread(15), code) == calls_of_fib(15)


def test_a_thread_already_running_when_the_count_begins_is_an_error() -> None:
    import threading

    release = threading.Event()
    waiting = threading.Thread(target=release.wait)
    waiting.start()
    try:
        with pytest.raises(CountingTurnedOff, match="another thread"):
            ensure_one_thread()  # what the test process checks before a counted call
    finally:
        release.set()
        waiting.join()


def test_code_outside_the_submission_is_not_counted(searches: Any, tmp_path: Path) -> None:
    assert recursive_calls(lambda: searches.fib(12), str(tmp_path / "elsewhere")) == 0


def test_a_call_past_its_budget_is_stopped_and_counts_budget_plus_one(searches: Any, tmp_path: Path) -> None:
    code = str(tmp_path / "code")
    assert recursive_calls(lambda: searches.fib(60), code, budget=1000) == 1001


def test_catching_the_stop_does_not_lower_the_count(searches: Any, tmp_path: Path) -> None:
    code = str(tmp_path / "code")
    assert recursive_calls(lambda: searches.swallows(22), code, budget=1000) == 1001


def test_turning_the_counter_off_is_an_error_not_a_low_count(searches: Any, tmp_path: Path) -> None:
    with pytest.raises(CountingTurnedOff, match=r"sys\.settrace"):
        recursive_calls(lambda: searches.hides(15), str(tmp_path / "code"))


@pytest.mark.parametrize(
    "fields, why",
    [
        ({"call": "m.f", "count": "recursive_calls", "let": "x"}, "not a 'let'"),
        ({"get": "m.f", "count": "recursive_calls"}, "not a 'let'"),
        ({"call": "m.f", "budget": 10}, "goes with 'count'"),
        ({"call": "m.f", "count": "lines"}, "recursive_calls"),
    ],
)
def test_a_malformed_counted_step_is_a_suite_error(fields: dict[str, object], why: str) -> None:
    with pytest.raises(ValidationError, match=why):
        Step.model_validate(fields)


SUITE = """\
exercise: toy
submit: [toy.py]
tests:
  - name: work
    steps:
      - {call: toy.search, args: [12], count: recursive_calls, budget: 5000, compare: at_most,
         tolerance: 1.0, label: positions searched}
"""

PRUNED = """\
def search(n):
    return 0 if n < 2 else search(n - 1) + 1
"""

UNPRUNED = """\
def search(n):
    return 0 if n < 2 else max(search(n - 1), search(n - 2)) + 1
"""


def test_a_search_without_pruning_loses_on_its_count_through_the_grader(grade_toy: Build) -> None:
    report = grade_toy(SUITE, PRUNED, UNPRUNED)
    (result,) = report.results
    assert result.verdict is Verdict.WA
    assert (
        "positions searched returned 465, expected at most 24 (the reference's 12 + 100%)" in result.message
    )


def test_the_same_work_passes(grade_toy: Build) -> None:
    report = grade_toy(SUITE, PRUNED, PRUNED.replace("+ 1", "+ 1  # the same search"))
    assert [result.verdict for result in report.results] == [Verdict.AC]


ITERATIVE = """\
def search(n):
    stack, best = [n], 0
    while stack:
        m = stack.pop()
        best += 1
        if m >= 2:
            stack += [m - 1, m - 2]
    return 0 if n < 2 else n - 1
"""

HIDDEN_WORK = {  # unpruned searches written to escape the count (a red team's)
    "explicit-stack": ITERATIVE,
    "in-a-thread": UNPRUNED.replace("def search(", "def _search(").replace(
        "max(search(n - 1), search(n - 2))", "max(_search(n - 1), _search(n - 2))"
    )
    + """
def search(n):
    import threading
    box = []
    worker = threading.Thread(target=lambda: box.append(_search(n)))
    worker.start()
    worker.join()
    return box[0]
""",
    "in-a-raw-thread": UNPRUNED.replace("def search(", "def _search(").replace(
        "max(search(n - 1), search(n - 2))", "max(_search(n - 1), _search(n - 2))"
    )
    + """
def search(n):
    import _thread
    box, done = [], _thread.allocate_lock()
    done.acquire()

    def work():
        box.append(_search(n))
        done.release()

    _thread.start_new_thread(work, ())
    done.acquire()
    return box[0]
""",
    "renamed-code": UNPRUNED
    + """
def _elsewhere(code):
    import types
    consts = tuple(_elsewhere(c) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_filename="<elsewhere>", co_consts=consts)


search.__code__ = _elsewhere(search.__code__)
""",
}


@pytest.mark.parametrize("sandbox", ["process", pytest.param("bwrap", marks=pytest.mark.bwrap)])
@pytest.mark.parametrize("case", sorted(HIDDEN_WORK))
def test_work_hidden_from_the_counter_never_passes(grade_toy: Build, case: str, sandbox: str) -> None:
    (result,) = grade_toy(SUITE, PRUNED, HIDDEN_WORK[case], sandbox=sandbox).results
    assert result.verdict in (Verdict.WA, Verdict.RTE), (result.verdict, result.message)
    if case == "explicit-stack":
        assert "no call was counted" in result.message
    if case == "renamed-code":
        assert "returned 465" in result.message  # counted as the plain unpruned search
    if case == "in-a-raw-thread" and "pids" in hierarchies():  # the kernel refuses the thread
        assert result.verdict is Verdict.RTE and "thread" in result.message, result.message
