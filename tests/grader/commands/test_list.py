"""`grader list`: one line per exercise at 80 columns, titles shortened, never wrapped."""

from __future__ import annotations

import doctest
import io

from rich.console import Console

import grader.commands.list as listing
from grader.exercise import Exercise


def test_one_line_per_exercise_at_80_columns() -> None:
    stream = io.StringIO()
    assert listing.main(console=Console(file=stream, width=80)) == 0
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1 + len(Exercise.all())
    assert all(len(line) <= 80 for line in lines)
    assert lines[0].split() == ["exercise", "title", "tests", "points", "drivers"]


def test_the_doctests_of_the_batch_modules_pass() -> None:
    import grader.batch.discover
    import grader.report.grades
    import grader.report.roster
    import grader.report.summary
    import grader.suite.expectations

    for module in (
        listing,
        grader.batch.discover,
        grader.report.roster,
        grader.report.grades,
        grader.report.summary,
        grader.suite.expectations,
    ):
        outcome = doctest.testmod(module)
        assert outcome.attempted and not outcome.failed, module.__name__
