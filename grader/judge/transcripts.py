"""Showing where two transcripts differ (normalizing them is `grader.suite.normalize`).

The parent pays for this, and the output is the student's: it may be a near miss as long as the
output cap, built to make `difflib` quadratic. So the work is one linear scan for the first
difference, then `difflib` on a window of at most `WINDOW_BEFORE + WINDOW_AFTER` lines a side,
each cut to `LINE_CHARS` characters: whatever the output, `difflib` sees a bounded input.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator

DIFF_CONTEXT_LINES = 3
DIFF_MAX_LINES = 40
WINDOW_BEFORE = DIFF_CONTEXT_LINES  # lines before the first difference given to difflib
WINDOW_AFTER = 50  # lines from the first difference on given to difflib (each side)
LINE_CHARS = 300  # a longer line is cut, before difflib and in the message


def first_difference(got: list[str], expected: list[str]) -> int:
    """The index of the first line where `got` and `expected` differ (one may be a prefix).

    >>> first_difference(["a", "b", "c"], ["a", "x", "c"])
    1
    >>> first_difference(["a"], ["a", "b"])
    1
    """
    for index, (mine, theirs) in enumerate(zip(got, expected, strict=False)):
        if mine != theirs:
            return index
    return min(len(got), len(expected))


def common_tail(got: list[str], expected: list[str], start: int) -> int:
    """How many last lines the two share, not reaching back before `start`.

    >>> common_tail(["a", "x", "c"], ["a", "b", "c"], 1)
    1
    """
    count = 0
    limit = min(len(got), len(expected)) - start
    while count < limit and got[-1 - count] == expected[-1 - count]:
        count += 1
    return count


def cut_line(line: str) -> str:
    """A line as difflib and the message see it: at most `LINE_CHARS` characters, then a note.

    >>> cut_line("x" * 301)[-24:]
    'x... (1 more characters)'
    """
    if len(line) <= LINE_CHARS:
        return line
    return f"{line[:LINE_CHARS]}... ({len(line) - LINE_CHARS} more characters)"


def where(got: list[str], expected: list[str]) -> str:
    """Where the two first differ, in words (for the verdict's message).

    >>> where(["a", "b"], ["a", "c", "d"])
    'at line 2'
    >>> where(["a", "b", "c"], ["a", "b"])
    'at line 3: your output goes on after the expected end (3 lines, expected 2)'
    >>> where(["a"], ["a", "b"])
    'at line 2: your output stops there (1 lines, expected 2)'
    """
    index = first_difference(got, expected)
    if index >= len(expected):
        return (
            f"at line {index + 1}: your output goes on after the expected end "
            f"({len(got)} lines, expected {len(expected)})"
        )
    if index >= len(got):
        return f"at line {index + 1}: your output stops there ({len(got)} lines, expected {len(expected)})"
    return f"at line {index + 1}"


def _range(start: int, length: int) -> str:
    """A unified diff's range: 1-based start (the line before, for an empty range), length."""
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _hunks(expected: list[str], got: list[str], offset: int) -> Iterator[str]:
    matcher = difflib.SequenceMatcher(None, expected, got, autojunk=False)
    for group in matcher.get_grouped_opcodes(DIFF_CONTEXT_LINES):
        first, last = group[0], group[-1]
        yield (
            f"@@ -{_range(offset + first[1], last[2] - first[1])} "
            f"+{_range(offset + first[3], last[4] - first[3])} @@"
        )
        for tag, a_low, a_high, b_low, b_high in group:
            if tag == "equal":
                yield from (" " + line for line in expected[a_low:a_high])
                continue
            if tag in {"replace", "delete"}:
                yield from ("-" + line for line in expected[a_low:a_high])
            if tag in {"replace", "insert"}:
                yield from ("+" + line for line in got[b_low:b_high])


def readable_diff(got: list[str], expected: list[str]) -> str:
    """A unified diff (expected -> got) of a window around the first difference.

    >>> print(readable_diff(["a", "b", "c"], ["a", "x", "c"]))
    --- expected
    +++ your output
    @@ -1,3 +1,3 @@
     a
    -x
    +b
     c
    """
    start = first_difference(got, expected)
    low = max(0, start - WINDOW_BEFORE)
    high = start + WINDOW_AFTER
    window_expected = [cut_line(line) for line in expected[low:high]]
    window_got = [cut_line(line) for line in got[low:high]]
    diff = ["--- expected", "+++ your output", *_hunks(window_expected, window_got, low)]
    hidden = []
    if len(diff) > DIFF_MAX_LINES:
        hidden.append(f"{len(diff) - DIFF_MAX_LINES} more diff lines")
        diff = diff[:DIFF_MAX_LINES]
    beyond = max(len(got), len(expected)) - common_tail(got, expected, start) > high
    if beyond:
        hidden.append(f"differences after line {high}")
    if hidden:
        sizes = f": your output has {len(got)} lines, the expected {len(expected)}" if beyond else ""
        diff.append(f"... ({' and '.join(hidden)} not shown{sizes})")
    return "\n".join(diff)
