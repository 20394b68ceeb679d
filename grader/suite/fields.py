"""Scalar fields of the suite validated by hand: time limits (seconds or a multiple of the
reference's time), checkers (MODULE:FUNCTION), regular expressions."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import PlainValidator

RELATIVE_PATTERN = re.compile(r"^[0-9]+(\.[0-9]+)?x$")


def _time_limit(value: Any) -> float | str:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    if isinstance(value, str) and RELATIVE_PATTERN.match(value) and float(value[:-1]) > 0:
        return value
    raise ValueError(
        f"expected seconds (a number > 0) or a multiple of the reference's time such as '3x', got {value!r}"
    )


TimeLimit = Annotated[float | str, PlainValidator(_time_limit)]


CHECKER_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*:[A-Za-z_][A-Za-z0-9_]*$")


def _checker(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str) and CHECKER_PATTERN.match(value):
        return value
    raise ValueError(f"expected MODULE:FUNCTION (a function of fixtures/NAME/MODULE.py), got {value!r}")


CheckerName = Annotated[str | None, PlainValidator(_checker)]


def check_regex(pattern: str) -> None:
    try:
        re.compile(pattern)
    except re.error as error:
        raise ValueError(f"{pattern!r} is not a valid regular expression: {error}") from error
