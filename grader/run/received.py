"""What a test process sends back, checked before anything reads it.

The test process is untrusted: it may write any bytes onto its result pipe. Everything it sends
is checked here against the one shape the worker produces, with every string made valid text
(lone surrogates replaced) and every value kept as data: a dict that looks like a suite form
(`{"$tuple": 5}`) is never read as one. Anything else is a `Malformed` result, that test's RTE.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeAlias

from grader.run.box.protocol import (
    MESSAGE_CAP,
    ORIGIN_CAP,
    RAISES_CAP,
    TRACEBACK_CAP,
    DriverResult,
    Raised,
    StepOutcome,
    cut,
    cut_start,
)

PlainValue: TypeAlias = Any
MAX_DEPTH = 200
MAX_CONTAINERS = 200_000
_SCALARS = frozenset({int, float, bool, type(None)})  # plain as JSON decoded them
_SURROGATE = re.compile("[\ud800-\udfff]")
_EXCEPTION_KEYS = {"raises": str, "message": str, "traceback": str, "ni": bool, "import": bool}


class Malformed(ValueError):
    """The result does not have the shape the worker sends."""


def decode_result(raw: bytes) -> tuple[Any, str | None]:
    """The test's answer as data, or why it cannot be read (linear in its size, bounded)."""
    if raw.count(b"[") + raw.count(b"{") > MAX_CONTAINERS:
        return None, "the test process sent back a result with too many parts"
    try:
        return json.loads(raw), None
    except (ValueError, RecursionError):
        return None, "the test process sent back something unreadable"


def text(value: Any) -> str:
    """A string from the test, with lone surrogates replaced (so it can be written as UTF-8).

    >>> text("ok \\ud800")
    'ok \\ufffd'
    """
    if type(value) is not str:
        raise Malformed("expected text")
    return _SURROGATE.sub("\ufffd", value) if _SURROGATE.search(value) else value


def value(data: Any, depth: int = 0) -> PlainValue:
    """A returned value: JSON data where only `$set` and `$dict` are tagged forms.

    >>> value({"$set": [1, 2]})
    {'$set': [1, 2]}
    >>> value({"$tuple": 5})
    Traceback (most recent call last):
    ...
    grader.run.received.Malformed: a value with an unknown tag '$tuple'
    """
    if depth > MAX_DEPTH:
        raise Malformed("a value nested too deeply")
    kind = type(data)
    if data is None or kind in (bool, int, float):
        return data
    if kind is str:
        return text(data)
    if kind is list:
        if all(type(item) in _SCALARS for item in data):  # a list of numbers: nothing to check
            return data
        return [value(item, depth + 1) for item in data]
    if kind is not dict:
        raise Malformed("a value that is not plain data")
    tags = [key for key in data if key.startswith("$")]
    if not tags:
        return {text(key): value(item, depth + 1) for key, item in data.items()}
    if len(data) != 1 or tags[0] not in ("$set", "$dict"):
        raise Malformed(f"a value with an unknown tag '{tags[0]}'")
    ((tag, members),) = data.items()
    if type(members) is not list:
        raise Malformed(f"a {tag} that is not a list")
    if tag == "$dict" and not all(type(pair) is list and len(pair) == 2 for pair in members):
        raise Malformed("a $dict whose items are not pairs")
    return {tag: value(members, depth + 1)}


def _exception(data: dict[str, Any]) -> Raised:
    for key, kind in _EXCEPTION_KEYS.items():
        if type(data.get(key)) is not kind:
            raise Malformed(f"an exception without a proper '{key}'")
    found: Raised = {
        "raises": cut(text(data["raises"]), RAISES_CAP),
        "message": cut(text(data["message"]), MESSAGE_CAP),
        "traceback": cut_start(text(data["traceback"]), TRACEBACK_CAP),
        "ni": data["ni"],
        "import": data["import"],
    }
    if "origin" in data:  # text() refuses anything but a string
        found["origin"] = cut(text(data["origin"]), ORIGIN_CAP)
    return found


def step_outcomes(result: Any) -> list[StepOutcome]:
    """The outcomes of a call test's steps: a value, an unplain return, or an exception."""
    if type(result) is not dict or set(result) != {"steps"} or type(result["steps"]) is not list:
        raise Malformed("not a list of step outcomes")
    outcomes: list[StepOutcome] = []
    for item in result["steps"]:
        if type(item) is not dict:
            raise Malformed("a step outcome that is not an object")
        if set(item) == {"value"}:
            outcomes.append({"value": value(item["value"])})
        elif set(item) == {"unplain"}:
            outcomes.append({"unplain": text(item["unplain"])})
        elif set(_EXCEPTION_KEYS) <= set(item) <= {*_EXCEPTION_KEYS, "let_failed", "origin"}:
            outcome = _exception(item)
            if "let_failed" in item:
                if item["let_failed"] is not True:
                    raise Malformed("a malformed 'let_failed'")
                outcome["let_failed"] = True
            outcomes.append(outcome)
        else:
            raise Malformed("a step outcome of unknown shape")
    return outcomes


def driver_outcome(result: Any) -> DriverResult:
    """A transcript test's outcome: the exit code and, if it raised, the exception."""
    if type(result) is not dict or set(result) != {"exit", "error"}:
        raise Malformed("not a program's outcome")
    exit_code = result["exit"]
    if type(exit_code) is not int:
        raise Malformed("an exit code that is not a number")
    error = result["error"]
    if error is not None and type(error) is not dict:
        raise Malformed("an error that is not an object")
    return {"exit": exit_code, "error": None if error is None else _exception(error)}


def render(data: PlainValue, limit: int = 200) -> str:
    """A returned value as Python would show it (sets and dicts decoded), cut at `limit`.

    >>> render({"$set": [1, 2]})
    '{1, 2}'
    >>> render([{"$dict": [[[1, 2], "a"]]}])
    "[{(1, 2): 'a'}]"
    """
    shown = _shown(data)
    return shown if len(shown) <= limit else shown[:limit] + "..."


def _shown(data: PlainValue) -> str:
    if isinstance(data, list):
        return "[" + ", ".join(map(_shown, data)) + "]"
    if isinstance(data, dict):
        if set(data) == {"$set"}:
            return "{" + ", ".join(map(_shown, data["$set"])) + "}" if data["$set"] else "set()"
        if set(data) == {"$dict"}:
            return "{" + ", ".join(f"{_key(k)}: {_shown(v)}" for k, v in data["$dict"]) + "}"
        return "{" + ", ".join(f"{k!r}: {_shown(v)}" for k, v in data.items()) + "}"
    return repr(data)


def _key(data: PlainValue) -> str:
    """Dict keys that were tuples travel as lists: show them as tuples again."""
    if isinstance(data, list):
        inner = ", ".join(map(_key, data))
        return f"({inner},)" if len(data) == 1 else f"({inner})"
    return _shown(data)
