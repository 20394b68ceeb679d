"""`grader gradescope`: the zip's setup.sh and run_autograder, run in a temporary Gradescope root."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from grader.cli import main
from grader.judge.grade import grade
from grader.judge.mutants import applied, mutants_of
from grader.judge.verdicts import Verdict
from grader.run.sandbox import container_works
from grader.suite.load import load_suite


def test_the_zip_has_both_scripts_at_the_top_and_nothing_it_should_not(tmp_path: Path) -> None:
    target = tmp_path / "autograder.zip"
    assert main(["gradescope", "bitgrid", str(target)]) == 0
    with zipfile.ZipFile(target) as archive:
        infos = {info.filename: info for info in archive.infolist()}
    for script in ("setup.sh", "run_autograder"):
        assert infos[script].external_attr >> 16 & 0o111, f"{script} is not executable"
    assert "requirements.txt" in infos and "grader/cli.py" in infos
    assert not [name for name in infos if "/mutants/" in name or "/solutions/" in name]
    # the reference goes in only for reference helpers (bitgrid's integration isolation), never
    # more than the submitted files (the tests never read it: docs/isolation.md)
    loaded = load_suite("bitgrid")
    shipped = {name.removeprefix("reference/bitgrid/") for name in infos if name.startswith("reference/")}
    assert shipped <= set(loaded.suite.submit)
    assert bool(shipped) == any(test.reference_helpers for test in loaded.suite.tests)
    assert not [name for name in infos if "__pycache__" in name]


def test_a_zip_into_a_missing_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gradescope", "bitgrid", str(tmp_path / "no" / "a.zip")]) == 3
    assert "does not exist" in capsys.readouterr().err


def _wheelhouse(requirements: Path, folder: Path) -> Path:
    """Wheels of the grader's dependencies (pip's cache makes this quick), or skip the test."""
    try:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--only-binary",
                ":all:",
                "-d",
                str(folder),
                "-r",
                str(requirements),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
        pytest.skip(f"no wheels for the grader's dependencies here: {error}")
    return folder


def _run(script: Path, root: Path, env: dict[str, str]) -> None:
    done = subprocess.run(
        ["bash", str(script)],
        cwd=root / "source",
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=180,
    )
    assert done.returncode == 0, f"{script.name} failed:\n{done.stdout}\n{done.stderr}"


def _autograder(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    target = tmp_path / "autograder.zip"
    assert main(["gradescope", "bitgrid", str(target)]) == 0
    root = tmp_path / "autograder"
    with zipfile.ZipFile(target) as archive:
        archive.extractall(root / "source")
    wheels = _wheelhouse(root / "source" / "requirements.txt", tmp_path / "wheels")
    env = {
        "AUTOGRADER_ROOT": str(root),
        "PYTHON": sys._base_executable,
        "SETUP_NO_APT": "1",
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
        "GRADER_ROOT": "/nonexistent",
        "GRADER_CACHE": str(tmp_path / "cache"),
    }
    _run(root / "source" / "setup.sh", root, env)
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    return root, env


def _autograde(root: Path, env: dict[str, str], submission: Path, *launcher: str) -> dict[str, Any]:
    shutil.rmtree(root / "submission", ignore_errors=True)
    shutil.rmtree(root / "results", ignore_errors=True)
    shutil.copytree(submission, root / "submission")
    done = subprocess.run(
        [*launcher, "bash", str(root / "run_autograder")],
        cwd=root / "source",
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
    )
    assert done.returncode == 0, f"run_autograder failed:\n{done.stdout}\n{done.stderr}"
    data: dict[str, Any] = json.loads((root / "results" / "results.json").read_text())
    return data


@pytest.mark.slow
def test_setup_and_run_autograder_grade_the_reference_and_a_mutant(tmp_path: Path) -> None:
    loaded = load_suite("bitgrid")
    root, env = _autograder(tmp_path)
    assert (root / "venv" / "bin" / "python").exists()

    def autograde(submission: Path) -> dict[str, Any]:
        return _autograde(root, env, submission)

    reference = autograde(loaded.exercise.reference)
    tests = reference["tests"]
    assert isinstance(tests, list)
    assert reference["score"] == sum(t.points for t in loaded.suite.tests) > 0
    assert [t["name"] for t in tests] == [t.name for t in loaded.suite.tests]
    assert [t["visibility"] for t in tests] == [t.visibility for t in loaded.suite.tests]
    assert "hidden" in [t["visibility"] for t in tests]
    assert all(t["status"] == "passed" for t in tests)

    hidden = {t.name for t in loaded.suite.tests if t.visibility == "hidden"}
    submission = tmp_path / "mutant"
    here = None
    for mutant in mutants_of(loaded.exercise):  # the first wrong one that loses a hidden test
        if mutant.verdict is Verdict.AC or mutant.whole:
            continue
        shutil.rmtree(submission, ignore_errors=True)
        shutil.copytree(loaded.exercise.reference, submission)
        with applied(mutant, loaded.exercise.reference) as patched:
            shutil.copytree(patched, submission, dirs_exist_ok=True)
        here = grade(loaded, submission, sandbox="auto")
        if any(not r.passed and r.name in hidden for r in here.results):
            break
    assert here is not None
    graded = autograde(submission)
    graded_tests = graded["tests"]
    assert isinstance(graded_tests, list)
    got = {t["name"]: t["extra_data"]["verdict"] for t in graded_tests}
    assert got == {r.name: r.verdict.value for r in here.results}
    assert {name for name, verdict in got.items() if verdict != "AC"} & hidden


# ---------------------------------------------------------------- issue 20: where bubblewrap cannot run

HOSTILE_PRELUDE = """
import os as _os, signal as _signal
_ROOT = {root!r}
_secret = _os.path.join(_ROOT, "source", "fixtures", "bitgrid", "expected", "winner-hidden.json")
_forged = _os.path.join(_ROOT, "results", "results.json")
_got = []
try:
    open(_secret).read(1)
    _got.append("read a hidden expectation")
except OSError:
    pass
try:
    with open(_forged, "w") as _out:
        _out.write('{{"score": 1000, "tests": []}}')
    _got.append("wrote results.json")
except OSError:
    pass
for _shared in ("/tmp", "/dev/shm", "/var/tmp"):  # state for a later test (issue 20)
    _stash = _os.path.join(_shared, "grader-stash")
    if _os.path.lexists(_stash):
        _got.append("found what an earlier test left in " + _shared)
    try:
        with open(_stash, "w") as _out:
            _out.write("state")
        _os.chmod(_stash, 0o666)
    except OSError:
        pass
import ctypes as _ctypes
if _ctypes.CDLL(None, use_errno=True).shmget(0x67726164, 4096, 0o1666) >= 0:
    _got.append("made a System V shared memory segment")
for _pid in range(2, 1 << 16):
    if _pid != _os.getpid():
        try:
            _os.kill(_pid, _signal.SIGKILL)
            _got.append(f"killed {{_pid}}")
        except OSError:
            pass
if _got:
    raise RuntimeError("; ".join(_got))
"""


def _hostile_submission(root: Path, target: Path) -> Path:
    reference = load_suite("bitgrid").exercise.reference
    shutil.copytree(reference, target)
    grid = target / "grid.py"
    future, _, rest = grid.read_text().partition("from __future__ import annotations\n")
    grid.write_text(
        future + "from __future__ import annotations\n" + HOSTILE_PRELUDE.format(root=str(root)) + rest
    )
    return target


root_only = pytest.mark.skipif(os.geteuid() != 0, reason="the container level needs root")


@root_only
@pytest.mark.slow
def test_under_dockers_seccomp_profile_tests_read_no_expectation_and_forge_nothing(tmp_path: Path) -> None:
    root, env = _autograder(tmp_path)
    submission = _hostile_submission(root, tmp_path / "hostile")
    launcher = [sys.executable, str(Path(__file__).with_name("docker_like.py"))]
    graded = _autograde(root, env, submission, *launcher)
    loaded = load_suite("bitgrid")
    assert graded["extra_data"]["sandbox"] == "container"
    assert "namespaces: none" in graded["extra_data"]["boundary"]
    assert "seccomp" in graded["extra_data"]["boundary"]
    failed = {t["name"]: t["output"] for t in graded["tests"] if t["status"] != "passed"}
    assert not failed, failed  # the prelude raises (CE everywhere) if any attack worked
    assert graded["score"] == sum(t.points for t in loaded.suite.tests)


@root_only
@pytest.mark.slow
def test_with_a_failing_bubblewrap_no_level_is_chosen_silently(tmp_path: Path) -> None:
    """auto never falls back to a level that shows hidden expectations: it grades at the
    container level where that works, else results.json grades nothing and says why."""
    root, env = _autograder(tmp_path)
    fake = tmp_path / "fake-bin"
    fake.mkdir()
    (fake / "bwrap").write_text("#!/bin/sh\necho 'bwrap: creating new namespace failed' >&2\nexit 1\n")
    (fake / "bwrap").chmod(0o755)
    env["PATH"] = f"{fake}:{os.environ['PATH']}"
    submission = _hostile_submission(root, tmp_path / "hostile")
    graded = _autograde(root, env, submission)
    if container_works() is None:
        assert graded["extra_data"]["sandbox"] == "container"
        assert all(t["status"] == "passed" for t in graded["tests"])
    else:
        assert graded["tests"] == [] and graded["score"] == 0
        assert graded["extra_data"]["graded"] is False
        assert "Nothing was graded" in graded["output"]
        assert "bubblewrap" in graded["output"] and "container" in graded["output"]
