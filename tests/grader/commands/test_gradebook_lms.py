"""`grader gradebook OUT --format canvas|moodle`: each student's latest score as a CSV that the
learning management system imports as it is (Canvas: its export's identity columns, an
assignment column and the "Points Possible" row; Moodle: Username, Email address, a grade)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.cli import main
from grader.report.gradebook import IDENTITY_KEYS, Attempt, Gradebook


def attempt(student: str, score: float, max_score: float = 19.0) -> Attempt:
    return Attempt(
        attempt=0,
        student=student,
        identity=dict.fromkeys(IDENTITY_KEYS, "x"),
        status="graded",
        score=score,
        max_score=max_score,
        notes="",
        graded_at="2026-11-27T10:00:00+00:00",
    )


@pytest.fixture
def out(tmp_path: Path) -> Path:
    folder = tmp_path / "out"
    folder.mkdir()
    with Gradebook.of(folder) as book:
        book.claim("bitgrid")
        book.add(attempt("bob", 4.0))
        book.add(attempt("ada", 12.5))
        book.add(attempt("bob", 17.0))  # the latest counts
        book.add(attempt("=HYPERLINK(1)", 0.0))
    return folder


def test_canvas_header_points_possible_and_rows(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gradebook", str(out), "--format", "canvas"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Student,ID,SIS User ID,SIS Login ID,Section,bitgrid",
        "Points Possible,,,,,19",
        "'=HYPERLINK(1),,,'=HYPERLINK(1),,0",  # a formula made text, never run
        "ada,,,ada,,12.5",
        "bob,,,bob,,17",
    ]


def test_moodle_header_and_rows_under_a_named_assignment(
    out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gradebook", str(out), "--format", "moodle", "--assignment", "Bitgrid 1"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Username,Email address,Bitgrid 1",
        "'=HYPERLINK(1),,0",
        "ada,,12.5",
        "bob,,17",
    ]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--format", "blackboard"], "invalid choice: 'blackboard'"),
        (["--format", "canvas", "--changes"], "--changes and --format do not go together"),
        (["--assignment", "a1"], "--assignment goes with --format"),
        (["--format", "canvas", "--assignment", " "], "--assignment: an empty name"),
    ],
)
def test_bad_flags_are_one_line_and_exit_2(
    out: Path, args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        status = main(["gradebook", str(out), *args])
    except SystemExit as stopped:  # argparse's own refusal
        status = stopped.code
    assert status == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert says in error[-1] and "Traceback" not in "\n".join(error)


def test_no_gradebook_is_exit_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gradebook", str(tmp_path), "--format", "canvas"]) == 3
    assert capsys.readouterr().err.strip().splitlines() == [
        f"error: {tmp_path / 'gradebook.sqlite'}: no gradebook here; `grader batch EXERCISE "
        f"CLASS --out {tmp_path}` writes one"
    ]
