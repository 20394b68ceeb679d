"""`grader run` inside a handout runs the student's working copy; handouts ship no traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from grader.exercise import project_root
from grader.suite.load import load_suite


def test_run_in_a_handout_uses_the_working_copy(tmp_path: Path) -> None:
    from grader.commands.handout import make_handout

    handout = tmp_path / "handout"
    make_handout(load_suite("bitgrid"), handout)
    env = {key: value for key, value in os.environ.items() if key != "GRADER_ROOT"}
    command = [sys.executable, "-m", "grader", "run", "bitgrid", "play"]
    stub = subprocess.run(command, cwd=handout, env=env, input="1 1\n", capture_output=True,
                          text=True, timeout=120)
    assert "NotImplementedError" in stub.stderr and "reference" not in stub.stdout + stub.stderr
    shutil.copyfile(project_root() / "reference" / "bitgrid" / "grid.py",
                    handout / "exercises" / "bitgrid" / "grid.py")
    solved = subprocess.run(command, cwd=handout, env=env, input="1 1\n", capture_output=True,
                            text=True, timeout=120)
    assert solved.returncode == 0 and "grid = 256" in solved.stdout, solved.stderr
    shipped = list((handout / "fixtures" / "bitgrid" / "expected").glob("*.json"))
    assert shipped and not any("traceback" in path.read_text() for path in shipped)
    assert any('"raises"' in path.read_text() for path in shipped)


def test_recorded_exceptions_hold_class_and_message_only() -> None:
    recorded = list((project_root() / "fixtures").glob("*/expected/*.json"))
    assert recorded and not [p for p in recorded if '"traceback"' in p.read_text()]
