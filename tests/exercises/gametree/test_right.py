"""Right submissions written differently from the references get full marks from the grader.

`fixtures/alphabeta/right/bval-variants` evaluates with other (equivalent) alpha-beta
conventions; `fixtures/gametree/right/plain-student` is written the plain way the stubs
suggest, and shows that the time limits leave room for it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT

GRADER = Path(sys.executable).parent / "grader"


def grade(exercise: str, submission: Path, tmp_path: Path) -> dict[str, object]:
    results = tmp_path / "results.json"
    subprocess.run(
        [str(GRADER), "grade", exercise, str(submission), "--results", str(results),
         "--sandbox", "process"],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    data: dict[str, object] = json.loads(results.read_text())
    return data


def verdicts(results: dict[str, object]) -> dict[str, str]:
    tests = results["tests"]
    assert isinstance(tests, list)
    return {test["name"]: test["extra_data"]["verdict"] for test in tests}


def test_alphabeta_variants_get_full_marks(tmp_path: Path) -> None:
    results = grade("alphabeta", ROOT / "fixtures/alphabeta/right/bval-variants", tmp_path)
    assert set(verdicts(results).values()) == {"AC"}
    assert results["score"] == 8


@pytest.mark.slow
def test_plain_gametree_student_gets_full_marks(tmp_path: Path) -> None:
    results = grade("gametree", ROOT / "fixtures/gametree/right/plain-student", tmp_path)
    assert set(verdicts(results).values()) == {"AC"}
    assert results["score"] == 18
