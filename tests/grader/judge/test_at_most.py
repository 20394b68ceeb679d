"""`compare: at_most`: a count the grader holds against the reference's, with a stated margin."""

from __future__ import annotations

import pytest

from grader.judge.verdicts import Verdict
from tests.conftest import Build

SUITE = """\
exercise: toy
submit: [toy.py]
tests:
  - name: work
    steps:
      - call: toy.count
        compare: at_most
        tolerance: 0.2
        label: positions the search looked up
"""


@pytest.mark.parametrize(
    ("count", "verdict"),
    [
        ("12", Verdict.AC),
        ("3", Verdict.AC),
        ("13", Verdict.WA),
        ("True", Verdict.WA),
        ("12.0", Verdict.WA),
        ("-1", Verdict.WA),
    ],
)
def test_a_count_above_the_margin_fails_with_both_counts(
    grade_toy: Build, count: str, verdict: Verdict
) -> None:
    report = grade_toy(SUITE, "def count():\n    return 10\n", f"def count():\n    return {count}\n")
    result = report.results[0]
    assert result.verdict is verdict, result.message
    if verdict is Verdict.WA:
        assert result.message == (
            f"positions the search looked up returned {count}, expected at most 12 (the reference's 10 + 20%)"
        )
