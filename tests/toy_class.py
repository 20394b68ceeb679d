"""A throw-away exercise `toy` and class folders of its submissions, for batch tests."""

from __future__ import annotations

import textwrap
import zipfile
from pathlib import Path

from grader.cli import main

SUITE = """\
exercise: toy
title: Doubling
submit: [toy.py]
given: [helper.py]
limits: {cpu_s: 2}
tests:
  - name: double
    points: 2
    call: toy.double
    cases: [[1], [2], [5]]
  - name: rejects-negative
    points: 1
    steps:
      - call: toy.double
        args: [-1]
"""
REFERENCE = """\
def double(n):
    if n < 0:
        raise ValueError(f"no negative numbers, got {n}")
    return 2 * n
"""
RIGHT = REFERENCE
WRONG = "def double(n):\n    return n + 2\n"
STUB = "def double(n):\n    raise NotImplementedError\n"
BROKEN = "def double(n)\n    return 2 * n\n"


def make_toy(project: Path) -> None:
    """The exercise in the temporary project root, recorded from its reference."""
    for folder in ("exercises", "reference", "fixtures"):
        (project / folder / "toy").mkdir(parents=True, exist_ok=True)
    (project / "exercises" / "toy" / "toy.py").write_text(STUB)
    (project / "exercises" / "toy" / "helper.py").write_text("HELP = 1\n")
    (project / "reference" / "toy" / "toy.py").write_text(REFERENCE)
    (project / "fixtures" / "toy").mkdir(parents=True, exist_ok=True)
    (project / "fixtures" / "toy" / "suite.yaml").write_text(SUITE)
    assert main(["record", "toy"]) == 0


def add(folder: Path, student: str, code: str | None, as_zip: bool = False) -> Path:
    """A student's submission: a folder (or .zip) with toy.py holding `code` (none if None)."""
    folder.mkdir(parents=True, exist_ok=True)
    if as_zip:
        path = folder / f"{student}.zip"
        with zipfile.ZipFile(path, "w") as bundle:
            if code is not None:
                bundle.writestr("toy.py", textwrap.dedent(code))
        return path
    path = folder / student
    path.mkdir()
    if code is not None:
        (path / "toy.py").write_text(textwrap.dedent(code))
    return path


def grade_class(folder: Path, out: Path, *, resume: bool = False, roster: Path | None = None) -> int:
    """`grader batch toy FOLDER` as run from the command line: its exit status."""
    return main(
        [
            "batch",
            "toy",
            str(folder),
            "-j",
            "2",
            "--out",
            str(out),
            "--sandbox",
            "process",
            *(["--resume"] if resume else []),
            *(["--roster", str(roster)] if roster else []),
        ]
    )
