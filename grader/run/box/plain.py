"""What a test's code returned, as plain JSON-able data, made without trusting any of its methods.

Standard library only, part of the box (`grader.run.box`): the test process imports it as a
sibling, and the parent checks all of it again (`grader.run.received`).
"""

from __future__ import annotations

import json
from typing import Any


class Unplain(TypeError):
    """A returned value that is not plain data (the step's outcome, not an exception it raised)."""


def to_plain(value: Any, depth: int = 0) -> Any:
    """Convert a result to JSON-able data without trusting any method of the value."""
    if depth > 200:
        raise TypeError("nested too deeply")
    kind = type(value)
    if value is None or kind is bool or kind is int or kind is str or kind is float:
        return value
    if isinstance(value, int):  # a subclass (bool has none): its plain number
        return int.__index__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, str):
        return str.__str__(value)
    if kind is list or kind is tuple:
        return [
            to_plain(item, depth + 1)
            for item in (list.__iter__(value) if kind is list else tuple.__iter__(value))
        ]
    if kind is dict:
        items = list(dict.items(value))
        if all(type(key) is str and not key.startswith("$") for key, _ in items):
            return {key: to_plain(item, depth + 1) for key, item in items}
        return {"$dict": [[to_plain(key, depth + 1), to_plain(item, depth + 1)] for key, item in items]}
    if kind is set or kind is frozenset:
        members = [
            to_plain(item, depth + 1)
            for item in (set.__iter__(value) if kind is set else frozenset.__iter__(value))
        ]
        return {"$set": sorted(members, key=lambda m: json.dumps(m, sort_keys=True))}
    raise Unplain(f"returned a {kind.__name__}, which is not plain data")


def shown(value: Any, step: dict[str, Any]) -> Any:
    show = step.get("show", "plain")
    if show == "str":
        return str.__str__(str(value))
    if show == "repr":
        return str.__str__(repr(value))
    if show == "attrs":
        out = {}
        for dotted in step["attrs"]:
            item = value
            for part in dotted.split("."):
                try:
                    item = getattr(item, part)
                except AttributeError:  # what was returned lacks it: a wrong answer, not a raise
                    whose = "None" if value is None else f"a {type(value).__name__}"
                    raise Unplain(
                        f"returned {whose}, which has no attribute '{dotted}' (the "
                        f"test reads {', '.join(step['attrs'])})"
                    ) from None
            out[dotted] = to_plain(item)
        return out
    return to_plain(value)
