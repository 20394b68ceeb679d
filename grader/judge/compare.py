"""Named comparators for plain data, strict about types (True is not 1, 1 is not 1.0)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

_EXACT = frozenset({int, str, bool, type(None)})  # equal means same, once the types are the same


def same(got: Any, expected: Any) -> bool:
    """Plain-data equality that also compares types, recursively.

    >>> same([1, "a", [2.0]], [1, "a", [2.0]]), same([1, True], [1, 1]), same([[1]], [[1.0]])
    (True, False, False)
    """
    if type(got) is not type(expected):
        return False
    if isinstance(got, list):
        if len(got) != len(expected):
            return False
        for item, wanted in zip(got, expected, strict=True):  # numbers need no call
            kind = type(item)
            if kind is not type(wanted):
                return False
            if kind in _EXACT:
                if item != wanted:
                    return False
            elif not same(item, wanted):
                return False
        return True
    if isinstance(got, dict):
        return got.keys() == expected.keys() and all(same(got[k], expected[k]) for k in got)
    if isinstance(got, float) and math.isnan(got):
        return math.isnan(expected)
    return bool(got == expected)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def unordered(got: Any, expected: Any, tolerance: float) -> bool:
    """Lists equal as multisets."""
    if not (isinstance(got, list) and isinstance(expected, list)):
        return same(got, expected)
    return sorted(map(_canonical, got)) == sorted(map(_canonical, expected))


def as_set(got: Any, expected: Any, tolerance: float) -> bool:
    """Lists with the same elements, duplicates ignored."""
    if not (isinstance(got, list) and isinstance(expected, list)):
        return same(got, expected)
    return set(map(_canonical, got)) == set(map(_canonical, expected))


def approx(got: Any, expected: Any, tolerance: float) -> bool:
    """Numbers within a relative (or, near zero, absolute) tolerance, recursively (lists, and
    dicts with the same keys); an int and a float may compare, a bool is never a number.

    >>> approx({"v": [1.0, 2.0000001]}, {"v": [1, 2]}, 1e-6), approx({"v": 1}, {"w": 1}, 1e-6)
    (True, False)
    """
    if isinstance(expected, list) and isinstance(got, list):
        return len(got) == len(expected) and all(
            approx(g, e, tolerance) for g, e in zip(got, expected, strict=True)
        )
    if isinstance(expected, dict) and isinstance(got, dict):
        return got.keys() == expected.keys() and all(
            approx(got[key], expected[key], tolerance) for key in expected
        )
    numbers = (int, float)
    if (
        isinstance(got, numbers)
        and isinstance(expected, numbers)
        and not isinstance(got, bool)
        and not isinstance(expected, bool)
    ):
        if isinstance(got, float) and isinstance(expected, float) and math.isnan(expected):
            return math.isnan(got)
        return _close(got, expected, tolerance)
    return same(got, expected)


def _close(got: int | float, expected: int | float, tolerance: float) -> bool:
    """math.isclose, and exactly for an int beyond a float's range (10**400 overflows a float).

    >>> _close(10**400 + 1, 10**400, 1e-9), _close(10**400, 1e308, 1e-9), _close(10**400, math.inf, 0)
    (True, False, False)
    """
    try:
        return math.isclose(got, expected, rel_tol=tolerance, abs_tol=tolerance)
    except OverflowError:
        if any(isinstance(number, float) and not math.isfinite(number) for number in (got, expected)):
            return False  # an infinity or NaN is never close to a finite int
        exact_got, exact_expected, exact_tolerance = map(Fraction, (got, expected, tolerance))
        difference = abs(exact_got - exact_expected)
        return difference <= max(exact_tolerance * max(abs(exact_got), abs(exact_expected)), exact_tolerance)


def allowance(expected: int, tolerance: float) -> int:
    """The most an `at_most` comparison accepts: the reference's count plus `tolerance` of it.

    >>> allowance(569, 0.2)
    682
    """
    try:
        return math.floor(expected * (1 + tolerance) + 1e-9)
    except OverflowError:  # a count beyond a float's range: exactly
        return math.floor(Fraction(expected) * (1 + Fraction(tolerance)) + Fraction(1, 10**9))


def at_most(got: Any, expected: Any, tolerance: float) -> bool:
    """A count (an int >= 0, like the reference's) no more than `tolerance` above the reference's.

    >>> at_most(682, 569, 0.2), at_most(683, 569, 0.2), at_most(0, 569, 0.2), at_most(True, 5, 0)
    (True, False, True, False)
    """
    if type(got) is not int or type(expected) is not int:
        return same(got, expected)
    return 0 <= got <= allowance(expected, tolerance)


COMPARATORS: dict[str, Callable[[Any, Any, float], bool]] = {
    "at_most": at_most,
    "equal": lambda got, expected, _tolerance: same(got, expected),
    "unordered": unordered,
    "set": as_set,
    "approx": approx,
}


# What comparing plain data can still raise: nesting deeper than the interpreter's stack (a test's
# result is refused beyond received.MAX_DEPTH, far less), a number no float or text can hold, a
# value of a type plain data never has. The suite's own values (tolerance) are checked when loaded.
_CANNOT_COMPARE = (RecursionError, OverflowError, ValueError, TypeError)


def matches(comparator: str, got: Any, expected: Any, tolerance: float) -> bool:
    """Whether `got` passes for `expected`; what cannot be compared does not (a WA, never an
    exception in the trusted parent).

    >>> matches("approx", 10**400, 1.0, 1e-9), matches("equal", [1 + 2j], [1 + 2j], 0)
    (False, True)
    """
    compare = COMPARATORS[comparator]
    try:
        return bool(compare(got, expected, tolerance))
    except _CANNOT_COMPARE:
        return False
