"""Handouts hold what students need and nothing hidden; `grader check` and pytest work inside."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from grader.exercise import project_root
from grader.suite.cases import visible_cases
from grader.suite.load import load_suite
from tests.support import SUITE_NAMES


def _env_without_root() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key != "GRADER_ROOT"}


@pytest.mark.parametrize("exercise", SUITE_NAMES)
def test_handout_holds_nothing_hidden(exercise: str, tmp_path: Path) -> None:
    from grader.commands.handout import make_handout

    loaded = load_suite(exercise)
    handout = tmp_path / "handout"
    make_handout(loaded, handout)
    files = {p.relative_to(handout).as_posix() for p in handout.rglob("*") if p.is_file()}
    assert not any(f.startswith("reference/") for f in files)
    given = {f"fixtures/{exercise}/given/{name}" for name in loaded.suite.given}
    assert given <= files  # the grader's own copies of the given files
    assert not any(f.startswith("fixtures/") and f.endswith(".py") and f not in given for f in files), (
        "a generator"
    )
    assert not any("/mutants/" in f for f in files)
    suite = yaml.safe_load((handout / "fixtures" / exercise / "suite.yaml").read_text())
    shipped = {test["name"] for test in suite["tests"]}
    # Interactive tests stay with the grader (their referee may hold the reference engine).
    visible = {t.name for t in loaded.suite.tests if t.visibility == "visible" and t.interactive is None}
    assert shipped == visible
    generated = handout / "fixtures" / exercise / "visible_cases.json"
    if generated.exists():
        cases = json.loads(generated.read_text())
        assert set(cases) <= visible, "generated cases of a hidden test"
        for test in loaded.suite.tests:
            if test.name in cases:
                assert cases[test.name] == visible_cases(loaded, test)
    for test in loaded.suite.tests:
        if test.visibility == "visible":
            continue
        assert f"fixtures/{exercise}/expected/{test.name}.json" not in files
        if test.transcript is not None:
            shared = any(
                t.transcript is not None and t.transcript.expected == test.transcript.expected
                for t in loaded.suite.tests
                if t.visibility == "visible"
            )
            assert shared or f"fixtures/{exercise}/{test.transcript.expected}" not in files
    stubs = sorted(p.name for p in (project_root() / "exercises" / exercise).glob("*.py"))
    assert sorted(p.name for p in (handout / "exercises" / exercise).glob("*.py")) == stubs
    linked = [p for p in handout.rglob("*") if p.is_symlink()]
    assert not linked, f"links in a handout point outside it: {linked}"
    assert f"exercises/{exercise}/README.md" in files and "statement.html" in files
    page = (handout / "statement.html").read_text()
    assert page.startswith("<!doctype html>") and "<h2>" in page and "<script" not in page
    assert f"exercises/{exercise}/README.md" in (handout / "README.md").read_text()


@pytest.mark.slow
def test_grader_check_and_pytest_work_inside_a_handout(tmp_path: Path) -> None:
    from grader.commands.handout import make_handout

    handout = tmp_path / "handout"
    make_handout(load_suite("bitgrid"), handout)
    check = [sys.executable, "-m", "grader", "check", "bitgrid", "--sandbox", "process"]
    stubs = subprocess.run(
        check, cwd=handout, env=_env_without_root(), capture_output=True, text=True, timeout=300
    )
    assert stubs.returncode == 0, stubs.stderr
    tests = load_suite("bitgrid").suite.tests
    visible = sum(test.points for test in tests if test.visibility == "visible")
    hidden = sum(test.points for test in tests) - visible
    assert f"Score: 0 / {visible:g}" in stubs.stdout
    said = f"0 of the {visible:g} visible points; {hidden:g} points in hidden tests, graded later"
    assert said in stubs.stdout
    shutil.copyfile(
        project_root() / "reference" / "bitgrid" / "grid.py", handout / "exercises" / "bitgrid" / "grid.py"
    )
    solved = subprocess.run(
        check, cwd=handout, env=_env_without_root(), capture_output=True, text=True, timeout=300
    )
    assert "Score: 17 / 17" in solved.stdout, solved.stdout + solved.stderr
    driver = handout / "exercises" / "bitgrid" / "play.py"
    driver.write_text("print('my own driver')\n")  # the README says the grader keeps its own
    edited = subprocess.run(
        check, cwd=handout, env=_env_without_root(), capture_output=True, text=True, timeout=300
    )
    assert "Score: 17 / 17" in edited.stdout, edited.stdout + edited.stderr
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "exercises/bitgrid", "-q"],
        cwd=handout,
        env=_env_without_root(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert tests.returncode == 0 and "13 passed" in tests.stdout, tests.stdout


@pytest.mark.slow
def test_pytest_collects_the_visible_tests_of_an_exercise() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "exercises/bitgrid", "-q", "-p", "no:cacheprovider"],
        cwd=project_root(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1
    assert "13 failed" in run.stdout
    assert "FAILED exercises/bitgrid::position - NI (not implemented)" in run.stdout
