"""Which sandbox a test runs under: the flag, then $GRADER_SANDBOX, then the suite, then the command."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from grader.exercise import project_root
from grader.run.sandbox import SandboxUnavailable, choose


def test_the_flag_wins_then_the_environment_then_the_suite_then_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GRADER_SANDBOX", raising=False)
    assert choose(None, None, "process") == "process"
    monkeypatch.setenv("GRADER_SANDBOX", "nosuch")
    assert choose("process", "bwrap", "bwrap") == "process"
    with pytest.raises(SandboxUnavailable, match="unknown sandbox 'nosuch'"):
        choose(None, "process", "process")
    monkeypatch.setenv("GRADER_SANDBOX", "process")
    assert choose(None, "bwrap", "bwrap") == "process"
    monkeypatch.delenv("GRADER_SANDBOX")
    assert choose(None, "process", "bwrap") == "process"


@pytest.mark.parametrize("value", ["nosuch", "process; rm -rf /", "../bwrap", "\x1b[31mbwrap"])
def test_a_hostile_sandbox_name_is_one_error_line(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("GRADER_SANDBOX", value)
    with pytest.raises(SandboxUnavailable, match=r"^unknown sandbox") as raised:
        choose(None, None, "bwrap")
    assert "\n" not in str(raised.value) and "\x1b" not in str(raised.value)


def test_grader_check_honours_the_environment() -> None:
    check = subprocess.run(
        [sys.executable, "-m", "grader", "check", "bitgrid"],
        text=True,
        capture_output=True,
        cwd=project_root(),
        timeout=120,
        env={**os.environ, "GRADER_SANDBOX": "[bold]nosuch"},
    )
    assert check.returncode == 3, check.stdout + check.stderr
    assert check.stderr == (
        "error: unknown sandbox '[bold]nosuch' (choose one of process, container, bwrap, auto)\n"
    )


def test_pytest_on_an_exercise_honours_the_environment() -> None:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "exercises/bitgrid",
            "-q",
            "-k",
            "position",
            "-p",
            "no:cacheprovider",
        ],
        text=True,
        capture_output=True,
        cwd=project_root(),
        timeout=300,
        env={**os.environ, "GRADER_SANDBOX": "nosuch"},
    )
    assert run.returncode == 1
    assert "unknown sandbox 'nosuch'" in run.stdout


@pytest.mark.slow
def test_process_level_with_hidden_tests_says_so_in_the_report() -> None:
    from grader.judge.grade import EXPOSED_NOTE, grade
    from grader.suite.load import load_suite

    loaded = load_suite("bitgrid")
    reference = loaded.exercise.reference
    with_hidden = grade(loaded, reference, sandbox="process")
    assert EXPOSED_NOTE in with_hidden.notes
    assert EXPOSED_NOTE not in grade(loaded, reference, public_only=True, sandbox="process").notes
