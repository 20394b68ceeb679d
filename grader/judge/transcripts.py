"""Showing where two transcripts differ (normalizing them is `grader.suite.normalize`)."""

from __future__ import annotations

import difflib

DIFF_CONTEXT_LINES = 3
DIFF_MAX_LINES = 40


def readable_diff(got: list[str], expected: list[str]) -> str:
    """A unified diff (expected -> got), cut to a window around the first difference."""
    diff = list(difflib.unified_diff(expected, got, "expected", "your output",
                                     n=DIFF_CONTEXT_LINES, lineterm=""))
    if len(diff) > DIFF_MAX_LINES:
        hidden = len(diff) - DIFF_MAX_LINES
        diff = [*diff[:DIFF_MAX_LINES], f"... ({hidden} more diff lines not shown)"]
    return "\n".join(diff)
