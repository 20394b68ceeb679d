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
from grader.run.counting import CountingTurnedOff, recursive_calls
from grader.suite.schema import Step
from tests.conftest import Build

SEARCHES = '''\
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
'''


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


def test_code_outside_the_submission_is_not_counted(searches: Any, tmp_path: Path) -> None:
    assert recursive_calls(lambda: searches.fib(12), str(tmp_path / "elsewhere")) == 0


def test_a_call_past_its_budget_is_stopped_and_counts_budget_plus_one(
        searches: Any, tmp_path: Path) -> None:
    code = str(tmp_path / "code")
    assert recursive_calls(lambda: searches.fib(60), code, budget=1000) == 1001


def test_catching_the_stop_does_not_lower_the_count(searches: Any, tmp_path: Path) -> None:
    code = str(tmp_path / "code")
    assert recursive_calls(lambda: searches.swallows(22), code, budget=1000) == 1001


def test_turning_the_counter_off_is_an_error_not_a_low_count(searches: Any, tmp_path: Path) -> None:
    with pytest.raises(CountingTurnedOff, match=r"sys\.settrace"):
        recursive_calls(lambda: searches.hides(15), str(tmp_path / "code"))


@pytest.mark.parametrize("fields, why", [
    ({"call": "m.f", "count": "recursive_calls", "let": "x"}, "not a 'let'"),
    ({"get": "m.f", "count": "recursive_calls"}, "not a 'let'"),
    ({"call": "m.f", "budget": 10}, "goes with 'count'"),
    ({"call": "m.f", "count": "lines"}, "recursive_calls"),
])
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
    assert ("positions searched returned 465, expected at most 24 (the reference's 12 + 100%)"
            in result.message)


def test_the_same_work_passes(grade_toy: Build) -> None:
    report = grade_toy(SUITE, PRUNED, PRUNED.replace("+ 1", "+ 1  # the same search"))
    assert [result.verdict for result in report.results] == [Verdict.AC]
