"""A plain correct boardgame submission gets full marks: the time limits leave room for it.

`fixtures/boardgame/right/plain-student` keeps its board in 2-D lists, scans every square in
every direction for a win and builds configuration strings by concatenation, the unoptimised
way many students write it; bench/boardgame_games.py compares its times with the reference's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from grader.suite.load import load_suite
from tests.support import ROOT

GRADER = Path(sys.executable).parent / "grader"


@pytest.mark.slow
def test_plain_boardgame_student_gets_full_marks(tmp_path: Path) -> None:
    results_file = tmp_path / "results.json"
    subprocess.run(
        [str(GRADER), "grade", "boardgame", str(ROOT / "fixtures/boardgame/right/plain-student"),
         "--results", str(results_file), "--sandbox", "process"],
        check=True, capture_output=True, cwd=ROOT)
    results = json.loads(results_file.read_text())
    verdicts = {test["name"]: test["extra_data"]["verdict"] for test in results["tests"]}
    assert set(verdicts.values()) == {"AC"}, verdicts
    assert results["score"] == load_suite("boardgame").suite.total_points
