"""Weighted tic-tac-toe: the course's games the suite does not grade still print as recorded.

A plain solution takes minutes on the course's depth-7 4x4 games (output2_4_7.txt and
output4_4_7.txt) and 2-3 s on its depth-4 minimax game (output2_4_4.txt, the same transcript as the
graded task4-4-4's); the reference keeps playing all three as they were recorded.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from bench.weighted_heavy import prepare
from tests.support import ROOT

TOOK = re.compile(r"^Took \d+ milliseconds\.$")


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize(("task", "depth"), [(2, 7), (4, 7), (2, 4)])
def test_reference_plays_the_course_4x4_games(task: int, depth: int) -> None:
    expected = (ROOT / "fixtures" / "weighted" / f"output{task}_4_{depth}.txt").read_text().splitlines()
    with tempfile.TemporaryDirectory() as tmp:
        prepare(Path(tmp), None)
        run = subprocess.run(
            [sys.executable, "main.py", "--size", "4", "--depth", str(depth)],
            input=f"{task}\n",
            capture_output=True,
            text=True,
            cwd=tmp,
            check=True,
            timeout=240,
        )
    got = run.stdout.splitlines()
    assert len(got) == len(expected)
    for got_line, expected_line in zip(got, expected, strict=True):
        if not (TOOK.match(got_line) and TOOK.match(expected_line)):
            assert got_line == expected_line
