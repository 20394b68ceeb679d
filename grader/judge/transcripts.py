"""Normalizing transcripts and showing where two of them differ."""

from __future__ import annotations

import difflib
import re

from grader.suite.schema import Normalize

DIFF_CONTEXT_LINES = 3
DIFF_MAX_LINES = 40


def normalized_lines(text: str, rules: Normalize) -> list[str]:
    """The lines of a transcript after substitutions, masks and the whitespace policy."""
    masks = [re.compile(pattern) for pattern in rules.mask]
    substitutions = [(re.compile(pattern), replacement)
                     for pattern, replacement in rules.substitute]
    lines = text.split("\n")
    out: list[str] = []
    for line in lines:
        for pattern, replacement in substitutions:
            line = pattern.sub(replacement, line)
        for mask in masks:
            if mask.search(line):
                line = f"<line matching {mask.pattern}>"
                break
        if rules.trailing_whitespace == "strip":
            line = line.rstrip()
        out.append(line)
    if rules.trailing_whitespace == "strip":
        while out and not out[-1]:
            out.pop()
    return out


def first_difference(got: list[str], expected: list[str]) -> int | None:
    for index, (line_got, line_expected) in enumerate(zip(got, expected, strict=False)):
        if line_got != line_expected:
            return index
    return None if len(got) == len(expected) else min(len(got), len(expected))


def readable_diff(got: list[str], expected: list[str]) -> str:
    """A unified diff (expected -> got), cut to a window around the first difference."""
    diff = list(difflib.unified_diff(expected, got, "expected", "your output",
                                     n=DIFF_CONTEXT_LINES, lineterm=""))
    if len(diff) > DIFF_MAX_LINES:
        hidden = len(diff) - DIFF_MAX_LINES
        diff = [*diff[:DIFF_MAX_LINES], f"... ({hidden} more diff lines not shown)"]
    return "\n".join(diff)
