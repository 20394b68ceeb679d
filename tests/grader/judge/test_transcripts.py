"""A transcript's diff costs the parent a bounded amount of work whatever the student printed,
and still says where output and expectation first differ (issue 20, finding 7)."""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from grader.judge import transcripts
from grader.judge.judgement import judge_transcript
from grader.judge.transcripts import LINE_CHARS, WINDOW_AFTER, WINDOW_BEFORE, readable_diff
from grader.judge.verdicts import Verdict
from grader.suite import expectations
from grader.suite.load import load_suite
from grader.suite.normalize import normalized_lines
from grader.suite.schema import Normalize

NOTE_CHARS = len(" (1000000 more characters)...")


@pytest.fixture
def difflib_inputs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[int, int]]]:
    """(lines, characters) of every sequence `grader.judge.transcripts` hands to difflib."""
    seen: list[tuple[int, int]] = []

    class Recording(difflib.SequenceMatcher[str]):
        def __init__(self, isjunk: Any, a: Sequence[str], b: Sequence[str], autojunk: bool = True) -> None:
            seen.extend((len(side), sum(map(len, side))) for side in (a, b))
            super().__init__(isjunk, a, b, autojunk)

    monkeypatch.setattr(transcripts.difflib, "SequenceMatcher", Recording)
    yield seen


def near_miss(expected: list[str], cap_bytes: int) -> str:
    """Output at the cap in which every line of the expectation comes back every 100 lines:
    just not `popular` for difflib's autojunk, so a whole-transcript diff goes quadratic."""
    common = [line for line, _ in Counter(expected).most_common(100)]
    cycle = common + [f"filler {k}" for k in range(101 - len(common))]
    lines: list[str] = []
    size = 0
    while size < cap_bytes - 100:
        lines.append(cycle[len(lines) % len(cycle)])
        size += len(lines[-1]) + 1
    return "\n".join(lines)


def test_a_near_miss_at_the_output_cap_gives_difflib_a_bounded_window(
    difflib_inputs: list[tuple[int, int]],
) -> None:
    loaded = load_suite("ultimate")
    transcript_tests = [test for test in loaded.suite.tests if test.transcript is not None]
    assert len(transcript_tests) >= 10
    cap = int(loaded.suite.limits.output_kb * 1024)
    for test in transcript_tests:
        expected_text, exit_code = expectations.load_transcript(loaded, test)
        rules = test.normalize or loaded.suite.normalize
        got = near_miss(normalized_lines(expected_text, rules), cap)
        judgement = judge_transcript(got, exit_code, expected_text, exit_code, rules)
        assert judgement.verdict is Verdict.WA and "at line" in judgement.message
        assert judgement.details.startswith("--- expected\n+++ your output\n@@")
    window = WINDOW_BEFORE + WINDOW_AFTER
    assert difflib_inputs and max(lines for lines, _ in difflib_inputs) <= window
    assert max(chars for _, chars in difflib_inputs) <= window * (LINE_CHARS + NOTE_CHARS)


def test_one_huge_line_is_cut_before_difflib_and_in_the_message(
    difflib_inputs: list[tuple[int, int]],
) -> None:
    got = "x" * 256 * 1024
    judgement = judge_transcript(got, 0, "y", 0, Normalize())
    assert judgement.verdict is Verdict.WA and judgement.message.endswith("at line 1")
    assert max(chars for _, chars in difflib_inputs) <= LINE_CHARS + NOTE_CHARS
    assert len(judgement.details) < 2 * LINE_CHARS and "(261844 more characters)" in judgement.details


def test_an_ordinary_wrong_line_is_shown_where_it_is() -> None:
    expected = [f"move {n}: ok" for n in range(600)]
    got = list(expected)
    got[399] = "move 399: wrong"
    diff = readable_diff(got, expected)
    assert diff.splitlines() == [
        "--- expected",
        "+++ your output",
        "@@ -397,7 +397,7 @@",
        " move 396: ok",
        " move 397: ok",
        " move 398: ok",
        "-move 399: ok",
        "+move 399: wrong",
        " move 400: ok",
        " move 401: ok",
        " move 402: ok",
    ]
    judgement = judge_transcript("\n".join(got), 0, "\n".join(expected), 0, Normalize())
    assert judgement.message == "the output differs from the expected transcript at line 400"


def test_a_short_output_and_a_long_one_say_so() -> None:
    expected = [f"line {n}" for n in range(200)]
    short = judge_transcript("\n".join(expected[:120]), 0, "\n".join(expected), 0, Normalize())
    assert short.message.endswith("at line 121: your output stops there (120 lines, expected 200)")
    assert "-line 120" in short.details and "differences after line 170 not shown" in short.details
    long = judge_transcript("\n".join([*expected, "extra"]), 0, "\n".join(expected), 0, Normalize())
    assert long.message.endswith("goes on after the expected end (201 lines, expected 200)")
    assert long.details.endswith("@@ -198,3 +198,4 @@\n line 197\n line 198\n line 199\n+extra")


def test_small_diffs_are_difflibs_unified_diff() -> None:
    for expected, got in [
        (["a", "b", "c"], ["a", "c"]),
        ([], ["x"]),
        (["x"], []),
        (list("abcdefghij"), list("abcXefghiYj")),
    ]:
        whole = "\n".join(difflib.unified_diff(expected, got, "expected", "your output", n=3, lineterm=""))
        assert readable_diff(got, expected) == whole
