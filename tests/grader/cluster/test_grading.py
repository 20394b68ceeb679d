"""A grading that cannot happen fails exactly the tests that would have run."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.cluster.grading import graded_or_failed
from grader.judge.verdicts import Verdict
from grader.suite.load import load_suite


def _archive(tmp_path: Path, kind: str) -> Path:
    if kind == "empty":
        folder = tmp_path / "empty"
        folder.mkdir()
        return folder
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    return broken


@pytest.mark.parametrize("kind, status", [("empty", "empty"), ("corrupt", "corrupt")])
def test_a_failed_regrade_of_one_test_fails_that_test_only(tmp_path: Path, kind: str, status: str) -> None:
    loaded = load_suite("bitgrid")
    name = loaded.suite.tests[0].name
    report, got = graded_or_failed(loaded, _archive(tmp_path, kind), names=[name])
    assert got == status
    assert [(r.name, r.verdict) for r in report.results] == [(name, Verdict.CE)]


def test_a_grader_error_is_je_and_passed_on_errors_are_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import grader.cluster.grading as grading

    class Stop(Exception):
        pass

    def broken(*_args: object, **_kwargs: object) -> None:
        raise Stop("the grader broke")

    monkeypatch.setattr(grading, "grade", broken)
    loaded = load_suite("bitgrid")
    folder = tmp_path / "student"
    folder.mkdir()
    (folder / "grid.py").write_text("x = 1\n")
    report, status = graded_or_failed(loaded, folder, public_only=True)
    assert status == "JE" and {r.verdict for r in report.results} == {Verdict.JE}
    assert "the grader broke" in report.results[0].message
    assert all(r.visibility == "visible" for r in report.results)
    with pytest.raises(Stop):
        graded_or_failed(loaded, folder, passed_on=(Stop,))
