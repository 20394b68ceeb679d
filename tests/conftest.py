"""Shared fixtures: throw-away exercises built in a temporary project root."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from grader.grade import GradeReport, grade
from grader.record import record
from grader.suite import load_suite


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty project root (GRADER_ROOT) with the usual folders."""
    for folder in ("exercises", "reference", "suites", "fixtures"):
        (tmp_path / folder).mkdir()
    monkeypatch.setenv("GRADER_ROOT", str(tmp_path))
    yield tmp_path


Build = Callable[..., GradeReport]


@pytest.fixture
def grade_toy(project: Path) -> Build:
    """Write a one-module exercise `toy`, record it from `reference`, grade `student`."""

    def build(suite: str, reference: str, student: str, given: dict[str, str] | None = None,
              inputs: dict[str, str] | None = None) -> GradeReport:
        (project / "exercises" / "toy").mkdir(exist_ok=True)
        (project / "reference" / "toy").mkdir(exist_ok=True)
        (project / "fixtures" / "toy").mkdir(exist_ok=True)
        (project / "exercises" / "toy" / "toy.py").write_text("")
        for name, text in (given or {}).items():
            (project / "exercises" / "toy" / name).write_text(textwrap.dedent(text))
        for name, text in (inputs or {}).items():
            (project / "fixtures" / "toy" / name).write_text(text)
        (project / "reference" / "toy" / "toy.py").write_text(textwrap.dedent(reference))
        (project / "suites" / "toy.yaml").write_text(textwrap.dedent(suite))
        loaded = load_suite("toy")
        recording = record(loaded)
        assert not recording.failures, recording.failures
        submission = project / "student"
        submission.mkdir(exist_ok=True)
        (submission / "toy.py").write_text(textwrap.dedent(student))
        return grade(loaded, submission)

    return build
