"""Shared fixtures: throw-away exercises built in a temporary project root.

Tests marked `bwrap` need the bubblewrap sandbox and are skipped, with one line saying why, where it
cannot run; every other test that grades names its sandbox (`process`) itself.
"""

from __future__ import annotations

import os
import textwrap
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from grader.commands.record import record
from grader.judge.grade import GradeReport, grade
from grader.run.sandbox import bwrap_works
from grader.suite.load import load_suite


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a test marked `bwrap` before its fixtures when bubblewrap cannot build a sandbox here."""
    if item.get_closest_marker("bwrap") is None:
        return
    problem = bwrap_works()
    if problem is not None:
        pytest.skip("; ".join(line.strip() for line in problem.splitlines() if line.strip()))


# The longest tests, which decide when a parallel run (`make test`: pytest-xdist, two workers
# stealing work) ends; started first, they never begin last while the other worker idles.
LONGEST_FIRST = (
    "test_suite_verifies[ultimate]",
    "test_suite_verifies[gametree]",
    "test_suite_verifies[weighted]",
    "test_suite_verifies[boardgame]",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the longest tests first, then the rest in their usual order."""
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.name, len(rank)))


@pytest.fixture(autouse=True)
def same_working_folder(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every test leaves the working folder as it found it: a test that moved into a temporary
    folder that is then removed would leave every later test without one (os.getcwd fails)."""
    before = os.getcwd()
    yield
    try:
        moved = os.getcwd() != before
    except FileNotFoundError:
        moved = True
    if moved:
        os.chdir(before)
        warnings.warn(f"{request.node.nodeid} left the working folder", stacklevel=1)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty project root (GRADER_ROOT) with the usual folders."""
    for folder in ("exercises", "reference", "fixtures"):
        (tmp_path / folder).mkdir()
    monkeypatch.setenv("GRADER_ROOT", str(tmp_path))
    yield tmp_path


Build = Callable[..., GradeReport]


@pytest.fixture
def grade_toy(project: Path) -> Build:
    """Write a one-module exercise `toy`, record it from `reference`, grade `student` (under `sandbox`)."""

    def build(
        suite: str,
        reference: str,
        student: str,
        given: dict[str, str] | None = None,
        inputs: dict[str, str] | None = None,
        *,
        sandbox: str = "process",
    ) -> GradeReport:
        (project / "exercises" / "toy").mkdir(exist_ok=True)
        (project / "reference" / "toy").mkdir(exist_ok=True)
        (project / "fixtures" / "toy").mkdir(exist_ok=True)
        (project / "exercises" / "toy" / "toy.py").write_text("")
        for name, text in (given or {}).items():
            (project / "exercises" / "toy" / name).write_text(textwrap.dedent(text))
        for name, text in (inputs or {}).items():
            (project / "fixtures" / "toy" / name).write_text(text)
        (project / "reference" / "toy" / "toy.py").write_text(textwrap.dedent(reference))
        (project / "fixtures" / "toy" / "suite.yaml").write_text(textwrap.dedent(suite))
        loaded = load_suite("toy")
        recording = record(loaded)
        assert not recording.failures, recording.failures
        submission = project / "student"
        submission.mkdir(exist_ok=True)
        (submission / "toy.py").write_text(textwrap.dedent(student))
        return grade(loaded, submission, sandbox=sandbox)

    return build
