"""The comparators, case by case (Kattis problemtools' default output validator is the model: a
table of what a judge accepts and rejects, edge cases first)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from grader.judge.compare import COMPARATORS, matches
from grader.run.received import MAX_DEPTH

NAN, INF = math.nan, math.inf

# (comparator, got, expected, tolerance, accepted)
CASES: list[tuple[str, Any, Any, float, bool]] = [
    # equal: plain data, strict about types
    ("equal", 3, 3, 0, True),
    ("equal", 3, 3.0, 0, False),
    ("equal", True, 1, 0, False),
    ("equal", 0, False, 0, False),
    ("equal", "3", 3, 0, False),
    ("equal", [1, [2, 3]], [1, [2, 3]], 0, True),
    ("equal", [1, [2, 3]], [1, [3, 2]], 0, False),
    ("equal", [1, 2], [1, 2, 3], 0, False),
    ("equal", {"a": 1, "b": [2]}, {"b": [2], "a": 1}, 0, True),
    ("equal", {"a": 1}, {"a": 1.0}, 0, False),
    ("equal", {"a": 1}, {"a": 1, "b": 2}, 0, False),
    ("equal", NAN, NAN, 0, True),
    ("equal", 0.1 + 0.2, 0.3, 0, False),
    ("equal", None, None, 0, True),
    ("equal", None, [], 0, False),
    # approx: within a relative tolerance, or an absolute one near zero
    ("approx", 0.1 + 0.2, 0.3, 1e-9, True),
    ("approx", 1000.0009, 1000.0, 1e-6, True),  # relative: 1e-6 of 1000 is 0.001
    ("approx", 1000.002, 1000.0, 1e-6, False),
    ("approx", 1e-7, 0.0, 1e-6, True),  # absolute near zero
    ("approx", 2e-6, 0.0, 1e-6, False),
    ("approx", -1.0, 1.0, 1e-6, False),
    ("approx", 2, 2.0000000001, 1e-9, True),  # an int and a float compare as numbers
    ("approx", True, 1.0, 1e-9, False),  # a bool is never a number
    ("approx", 1.0, True, 1e-9, False),
    ("approx", "1.0", 1.0, 1e-9, False),
    ("approx", INF, INF, 1e-9, True),
    ("approx", INF, -INF, 1e-9, False),
    ("approx", 1e308, INF, 1e-9, False),
    ("approx", NAN, NAN, 1e-9, True),
    ("approx", 0.0, NAN, 1e-9, False),
    ("approx", [1.0, [2.0000000001]], [1.0, [2.0]], 1e-9, True),
    ("approx", [1.0, 2.0], [1.0], 1e-9, False),
    ("approx", {"x": 1.0000000001, "y": [2.0]}, {"x": 1.0, "y": [2.0]}, 1e-9, True),
    ("approx", {"x": 1.1}, {"x": 1.0}, 1e-9, False),
    ("approx", {"x": 1.0}, {"x": 1.0, "y": 2.0}, 1e-9, False),
    ("approx", {"x": 1.0}, [1.0], 1e-9, False),
    ("approx", "abc", "abc", 1e-9, True),  # what is not a number is compared as `equal`
    # approx with ints beyond a float's range: compared exactly, never an OverflowError
    ("approx", 10**400, 1.0, 1e-9, False),
    ("approx", 1.5, 10**400, 1e-9, False),
    ("approx", 10**400, 10**400, 1e-9, True),
    ("approx", 10**400 + 1, 10**400, 1e-9, True),  # relative: far within 1e-9 of 10**400
    ("approx", 2 * 10**400, 10**400, 1e-9, False),
    ("approx", -(10**400), 10**400, 1e-9, False),
    ("approx", 10**400, INF, 1e-9, False),
    ("approx", -INF, -(10**400), 1e-9, False),
    ("approx", 10**400, NAN, 1e-9, False),
    ("approx", NAN, 10**400, 1e-9, False),
    ("approx", [1.0, 10**400], [1.0, 2.0], 1e-9, False),
    ("approx", {"x": 10**400}, {"x": 1e308}, 1e-9, False),
    ("approx", 1e308, 10**308, 1e-9, True),
    ("approx", NAN, 1.0, 1e-9, False),
    ("approx", 1.0, INF, 1e-9, False),
    # unordered: lists as multisets (duplicates count)
    ("unordered", [3, 1, 2], [1, 2, 3], 0, True),
    ("unordered", [1, 1, 2], [1, 2, 2], 0, False),
    ("unordered", [1, 2], [1, 2, 2], 0, False),
    ("unordered", [[1, 2], [3]], [[3], [1, 2]], 0, True),
    ("unordered", [[2, 1], [3]], [[3], [1, 2]], 0, False),  # only the outer list is unordered
    ("unordered", [1], [1.0], 0, False),
    ("unordered", [True], [1], 0, False),
    ("unordered", [{"a": 1, "b": 2}], [{"b": 2, "a": 1}], 0, True),
    ("unordered", 3, 3, 0, True),  # what is not a list is compared as `equal`
    ("unordered", (1, 2), [1, 2], 0, False),
    ("unordered", [10**400, NAN, INF], [INF, NAN, 10**400], 0, True),
    ("unordered", [10**400], [10**400 + 1], 0, False),
    # set: the same elements, duplicates ignored
    ("set", [3, 1, 2], [1, 2, 3], 0, True),
    ("set", [1, 1, 2], [1, 2, 2], 0, True),
    ("set", [1, 2, 2, 2], [2, 1], 0, True),
    ("set", [1, 2], [1, 2, 3], 0, False),
    ("set", [1, 2, 3], [1, 2], 0, False),
    ("set", [], [], 0, True),
    ("set", [], [1], 0, False),
    ("set", [1], [1.0], 0, False),
    ("set", [False], [0], 0, False),
    ("set", [[1, 2], [1, 2]], [[1, 2]], 0, True),
    ("set", [[2, 1]], [[1, 2]], 0, False),  # elements themselves compare as `equal`
    ("set", "ab", "ab", 0, True),
    ("set", "ab", ["a", "b"], 0, False),
    # at_most: a count no more than `tolerance` above the reference's
    ("at_most", 569, 569, 0.2, True),
    ("at_most", 682, 569, 0.2, True),
    ("at_most", 683, 569, 0.2, False),
    ("at_most", 0, 569, 0.2, True),
    ("at_most", -1, 569, 0.2, False),
    ("at_most", 5, 5, 0, True),
    ("at_most", 6, 5, 0, False),
    ("at_most", 5.0, 5, 0, False),
    ("at_most", True, 5, 0, False),
    ("at_most", [1], [1], 0, True),  # what is not an int is compared as `equal`
    ("at_most", 10**400, 569, 0.2, False),
    ("at_most", 569, 10**400, 0.2, True),  # the reference's count beyond a float's range
    ("at_most", 10**400, 10**400, 0.2, True),
    ("at_most", NAN, 5, 0, False),
    # equal: what a float cannot hold, and NaN inside data
    ("equal", 10**400, 10**400, 0, True),
    ("equal", 10**400, 10**400 + 1, 0, False),
    ("equal", [NAN], [NAN], 0, True),
    ("equal", {"a": NAN}, {"a": 1.0}, 0, False),
    ("set", [NAN, 10**400], [10**400, NAN], 0, True),
]


@pytest.mark.parametrize(
    ("comparator", "got", "expected", "tolerance", "accepted"),
    CASES,
    ids=[f"{c}-{i}" for i, (c, *_rest) in enumerate(CASES)],
)
def test_a_comparator_accepts_exactly_what_it_says(
    comparator: str, got: Any, expected: Any, tolerance: float, accepted: bool
) -> None:
    assert matches(comparator, got, expected, tolerance) is accepted


def test_every_comparator_has_cases() -> None:
    assert {case[0] for case in CASES} == set(COMPARATORS)


@pytest.mark.parametrize("comparator", sorted(COMPARATORS))
def test_a_value_always_matches_itself(comparator: str) -> None:
    for value in ([1, [2.5, "x"], {"k": None}], 7, 0.1, "text", [], {}):
        assert matches(comparator, value, value, 0.0), (comparator, value)


def _nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def _nested_dicts(depth: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(depth):
        value = {"k": value}
    return value


HOSTILE_VALUES: list[Any] = [
    10**400,
    -(10**400),
    10**4000,
    NAN,
    INF,
    -INF,
    1e308,
    True,
    None,
    "x" * 10_000,
    _nested(5000, 1),
    _nested(5000, 10**400),
    _nested_dicts(5000, 1.0),
    {"$set": [1, 2]},
    {"$dict": [[1, 2]]},
    [10**400, NAN, {"a": [INF]}],
    (1, 2),
    {1, 2},
    b"bytes",
    1 + 2j,
    object(),
]


@pytest.mark.parametrize("comparator", sorted(COMPARATORS))
def test_no_value_makes_a_comparator_raise(comparator: str) -> None:
    """Whatever a student returns, a comparator answers True or False: never an exception in the
    trusted parent (an OverflowError or RecursionError there was a grader bug, JE for the student)."""
    references: list[Any] = [1.0, 1, 0, [1.0], {"k": 1.0}, 10**400, NAN, INF, _nested(5000, 1)]
    for got in HOSTILE_VALUES:
        for expected in references:
            for tolerance in (0.0, 1e-9, 0.2):
                answer = matches(comparator, got, expected, tolerance)
                assert answer in (True, False), (comparator, got, expected)


@pytest.mark.parametrize("comparator", sorted(COMPARATORS))
def test_values_as_deep_as_a_test_may_send_compare(comparator: str) -> None:
    """A test's result is refused beyond received.MAX_DEPTH; up to it, values compare as usual
    (deeper ones, which never arrive, simply do not match)."""
    deep = _nested(MAX_DEPTH, 2.5)
    assert matches(comparator, deep, _nested(MAX_DEPTH, 2.5), 1e-9)
    assert not matches(comparator, deep, _nested(MAX_DEPTH, 3.5), 1e-9)
    assert not matches(comparator, _nested(5000, 2.5), _nested(5000, 2.5), 1e-9)
