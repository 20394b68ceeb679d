"""`grader new`: a new exercise's skeleton that verify passes as it is, and no overwriting."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.cli import main
from grader.commands.verify import verify
from grader.suite.load import load_suite


def test_a_new_exercise_verifies_at_once(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "connect_four", "--title", "Connect four"]) == 0
    loaded = load_suite("connect_four")
    assert loaded.suite.title == "Connect four"
    assert [q.id for q in loaded.suite.questions] == ["q1-value"]
    assert {t.visibility for t in loaded.suite.tests} == {"visible", "hidden"}
    assert any(t.transcript is not None for t in loaded.suite.tests)
    assert (project / "exercises" / "connect_four" / "README.md").is_file()
    outcome = verify(loaded, repeats=1, sandbox="process")
    assert outcome.ok, outcome.problems.lines()


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Connect-Four", "an exercise's name is also its module's"),
        ("bitgrid", "exists; `grader new` writes only a new exercise"),
    ],
)
def test_a_bad_or_taken_name_is_one_line_and_writes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str], name: str, expected: str
) -> None:
    (project / "fixtures" / "bitgrid").mkdir()
    before = sorted(project.rglob("*"))
    assert main(["new", name]) == 3
    err = capsys.readouterr().err
    assert expected in err and len(err.strip().splitlines()) == 1, err
    assert sorted(project.rglob("*")) == before
