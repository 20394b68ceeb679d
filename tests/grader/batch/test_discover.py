"""No silent choices: collisions stop the batch, skipped entries are named, a lone submission
given --batch (or a class without it) is an error with a hint."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.batch import discover as discovering
from grader.cli import main
from grader.commands import EXIT_BAD_INPUT, EXIT_USAGE
from tests.toy_class import RIGHT, add, grade_class, make_toy


def test_folder_and_zip_of_one_name_stop_the_batch(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_toy(project)
    folder = tmp_path / "class"
    add(folder, "alice", RIGHT)
    add(folder, "alice", RIGHT, as_zip=True)
    assert grade_class(folder, tmp_path / "out") == EXIT_BAD_INPUT
    out = capsys.readouterr().err
    assert "'alice' and 'alice.zip' are both submissions of 'alice'" in out
    assert not (tmp_path / "out").exists()


def test_skipped_entries_are_listed(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_toy(project)
    folder = tmp_path / "class"
    add(folder, "alice", RIGHT)
    (folder / "roster.csv").write_text("submission\nalice\n")
    (folder / ".DS_Store").write_text("")
    assert grade_class(folder, tmp_path / "out") == 0
    out = capsys.readouterr().err
    assert "skipped roster.csv: not a folder or a .zip" in out
    assert "warning: skipped .DS_Store: hidden" in out


def test_batch_on_one_submission_is_an_error_with_a_hint(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_toy(project)
    lone = add(tmp_path, "alice", RIGHT)
    assert grade_class(lone, tmp_path / "out") == EXIT_BAD_INPUT
    assert "is one submission, not a class; grade it with `grader grade`" in capsys.readouterr().err


def test_a_class_graded_without_batch_is_an_error_with_a_hint(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_toy(project)
    folder = tmp_path / "class"
    add(folder, "alice", RIGHT)
    add(folder, "bob", RIGHT, as_zip=True)
    assert main(["grade", "toy", str(folder), "--sandbox", "process"]) == EXIT_USAGE
    assert "not one; to grade them all, use `grader batch`" in capsys.readouterr().err


def test_hostile_names_become_inert_ids_and_reserved_names_stop(tmp_path: Path) -> None:
    folder = tmp_path / "class"
    add(folder, "eve\x1b[2J\u202e", RIGHT)
    add(folder, "mallory\nScore: 100 of 100", RIGHT)
    found = discovering.discover(folder, ["toy.py"])
    assert list(found.submissions) == ["eve\\x1b[2J\\u202e", "mallory\\nScore: 100 of 100"]
    add(folder, "grades.csv", RIGHT)
    with pytest.raises(discovering.BatchInputError, match="rename the submission"):
        discovering.discover(folder, ["toy.py"])


def test_a_loose_submitted_file_beside_submissions_is_skipped_not_graded(tmp_path: Path) -> None:
    folder = tmp_path / "class"
    add(folder, "alice", RIGHT)
    (folder / "toy.py").write_text(RIGHT)
    found = discovering.discover(folder, ["toy.py"])
    assert list(found.submissions) == ["alice"]
    assert found.skipped == ["toy.py: not a folder or a .zip"]
