"""The command line: run, list, check."""

from __future__ import annotations

import subprocess
import sys

from grader.exercise import project_root


def _grader(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "grader", *args],
        input=stdin,
        text=True,
        capture_output=True,
        cwd=project_root(),
        timeout=120,
    )


def test_run_passes_stdin_and_stdout_through() -> None:
    run = _grader("run", "bitgrid", "play", stdin="1 1\n0 0\n")
    assert run.returncode == 0
    assert "grid = 256" in run.stdout and "grid = 258" in run.stdout
    assert run.stdout.rstrip().endswith("End of input: the game is abandoned.")


def test_run_with_a_submission_after_the_driver() -> None:
    run = _grader("run", "bitgrid", "play", "--submission", "samples/bitgrid/bob", stdin="1 1\n")
    assert "grid = 32" in run.stdout, run.stdout + run.stderr


def test_run_unknown_driver_is_a_usage_error() -> None:
    run = _grader("run", "bitgrid", "nosuch")
    assert run.returncode == 2
    assert "'nosuch' is not a given file of bitgrid" in run.stderr and run.stdout == ""


def test_list_shows_every_exercise() -> None:
    listing = _grader("list")
    assert listing.returncode == 0
    for suite in (project_root() / "fixtures").glob("*/suite.yaml"):
        assert suite.parent.name in listing.stdout


def test_check_grades_the_working_copy_with_visible_tests() -> None:
    check = _grader("check", "bitgrid", "--sandbox", "process")
    assert check.returncode == 0
    assert "(hidden)" not in check.stdout and "winner-hidden" not in check.stdout
    assert "0 of the 17 visible points; 3 points in hidden tests, graded later" in check.stdout
    assert "Score: 0 / 17" in check.stdout
