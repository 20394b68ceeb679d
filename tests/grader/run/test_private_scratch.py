"""Issue 29: a grading's scratch is the grader's alone; each test reaches only its own code, inputs
and working folder, whatever it lists, guesses or reads from /proc.

The container level has no namespaces, so there only permissions keep a test out of another
grading's scratch (the other student of a batch, a service worker's submission, the reference
under `grader verify`). Each probe is student code in the toy exercise of test_isolation.py:
it answers `2 * n` only when it found nothing, else what it found.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from grader.judge.calibration import resolve_limits
from grader.judge.grade import select_tests
from grader.judge.testrun import Grader, prepared_submission
from grader.sandboxes import Confinement
from grader.suite.load import load_suite
from tests.grader.run.test_isolation import _answer, _toy

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="the tests' own uid needs root")
LEVELS = ["container", pytest.param("bwrap", marks=pytest.mark.bwrap)]
SECRET = "SECRET-OF-THE-OTHER-GRADING"

SNOOP = """
import os, re
MINE = os.path.dirname(os.path.abspath(__file__))
"""
# Every folder of the scratch root, and every path below it that the host's process list names
# (a fork server's command line holds its code and I/O folders): read what can be read. The root
# is this test's own, open to all, so that graders of other people on the host stay out of it.
SNOOP_BODY = """
found = []
def look(path):
    if path.startswith(os.path.dirname(MINE) + "/"):
        return  # its own grading
    try:
        if os.path.isdir(path):
            names = os.listdir(path)
            found.append(path + ": " + ",".join(sorted(names))[:80])
            for name in names:
                look(os.path.join(path, name))
        else:
            with open(path, "rb") as stolen:
                found.append(path + ": " + stolen.read(60).decode("utf-8", "replace"))
    except OSError:
        pass
try:
    names = os.listdir(ROOT)
except OSError:
    names = []
for name in names:
    for part in ("", "code", "code/toy.py", "inputs", "io"):
        look(os.path.join(ROOT, name, part))
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as line:
                words = line.read().decode("utf-8", "replace")
        except OSError:
            continue
        for path in re.findall(r'"(/[^"]+)"', words):
            if not path.startswith(ROOT + "/"):
                continue  # not this host's test graders (other people grade here too)
            look(path)
            look(os.path.join(path, "toy.py"))
return 2 * n if not found else found[:5]
"""


@pytest.fixture
def scratch_root(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A scratch root that every user may pass and list, as /tmp is."""
    root = Path(tempfile.mkdtemp(prefix="private-scratch-test-"))
    root.chmod(0o755)
    monkeypatch.setenv("GRADER_SCRATCH", str(root))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@contextmanager
def _other_grading(project: Path, level: Confinement) -> Iterator[Path]:
    """Another submission being graded meanwhile: its scratch laid out, its fork server started."""
    other = project / "other"
    other.mkdir()
    (other / "toy.py").write_text(f"# {SECRET}\ndef answer(n):\n    return 2 * n\n")
    loaded = load_suite("toy")
    tests = select_tests(loaded, False, None)
    with ExitStack() as stack:
        prepared, scratch = stack.enter_context(prepared_submission(loaded, other))
        limits = resolve_limits(loaded, tests, level)
        stack.enter_context(Grader(loaded, prepared, scratch, limits, level))
        yield scratch


def _graded(project: Path, submission: Path, level: Confinement) -> list[tuple[str, str]]:
    loaded = load_suite("toy")
    tests = select_tests(loaded, False, None)
    with prepared_submission(loaded, submission) as (prepared, scratch):
        limits = resolve_limits(loaded, tests, level)
        with Grader(loaded, prepared, scratch, limits, level) as grader:
            judged = [grader.grade_test(test)[0] for test in tests]
    return [(j.verdict.value, j.message) for j in judged]


@root_only
@pytest.mark.parametrize("level", LEVELS)
def test_a_test_reads_nothing_of_another_grading(
    project: Path, scratch_root: Path, level: Confinement
) -> None:
    body = f"ROOT = {str(scratch_root)!r}\n" + SNOOP_BODY
    submission = _toy(project, _answer(body, SNOOP))
    with _other_grading(project, level):
        verdicts = _graded(project, submission, level)
    assert verdicts == [("AC", ""), ("AC", "")], verdicts


@root_only
def test_a_scratch_is_closed_to_everyone_but_the_grader_and_its_own_tests(
    project: Path, scratch_root: Path
) -> None:
    """The top folder lets only the tests' own group pass (never list); its code, inputs and I/O
    folders are that group's; no file or folder below is open to others."""
    _toy(project, _answer("return 2 * n"))
    with _other_grading(project, "container") as scratch:
        top = scratch.stat()
        assert stat.S_IMODE(top.st_mode) & 0o007 == 0
        assert stat.S_IMODE(top.st_mode) & 0o040 == 0  # the group passes, never lists
        for path in [scratch, *scratch.rglob("*")]:
            mode = stat.S_IMODE(path.lstat().st_mode)
            assert mode & 0o007 == 0, f"{path} is open to others ({mode:o})"
            assert mode & 0o020 == 0, f"{path} is writable by its group ({mode:o})"


# A student of a batch graded beside another (-j 2): it waits for the other's scratch to appear
# in the scratch root, then reads what it can of it and of every path the process list names.
NEIGHBOUR_SNOOP = """
import os, re, time
MINE = os.path.dirname(os.path.abspath(__file__))
ROOT = {root!r}

def _snoop():
    found = []
    def look(path):
        if path.startswith(os.path.dirname(MINE) + "/"):
            return
        try:
            if os.path.isdir(path):
                found.append(path + ": " + ",".join(os.listdir(path)))
            else:
                with open(path, "rb") as stolen:
                    found.append(path + ": " + repr(stolen.read(40)))
        except OSError:
            pass
    deadline = time.monotonic() + 3
    others = []
    while not others and time.monotonic() < deadline:
        others = [n for n in os.listdir(ROOT) if n.startswith("grader-")
                  and not MINE.startswith(os.path.join(ROOT, n) + "/")]
        time.sleep(0.05)
    if not others:
        return ["no neighbour was graded meanwhile"]
    for name in others:
        for part in ("", "code", "code/toy.py", "io", "inputs"):
            look(os.path.join(ROOT, name, part))
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{{pid}}/cmdline", "rb") as line:
                    words = line.read().decode("utf-8", "replace")
            except OSError:
                continue
            for path in re.findall(r'"(/[^"]+)"', words):
                if path.startswith(ROOT + "/"):
                    look(path)
                    look(os.path.join(path, "toy.py"))
    return found

def double(n):
    found = _snoop()
    if found:
        return found
    if n < 0:
        raise ValueError(f"no negative numbers, got {{n}}")
    return 2 * n
"""
SLOW_SECRET = f"""
# {SECRET}
import time
def double(n):
    time.sleep(0.5)
    if n < 0:
        raise ValueError(f"no negative numbers, got {{n}}")
    return 2 * n
"""


@root_only
def test_in_a_container_batch_a_student_reads_nothing_of_the_one_graded_beside_it(
    project: Path, scratch_root: Path
) -> None:
    import json
    import subprocess
    import sys

    from tests.toy_class import add, make_toy

    make_toy(project)
    folder = project / "class"
    add(folder, "aaa", NEIGHBOUR_SNOOP.format(root=str(scratch_root)))
    add(folder, "bbb", SLOW_SECRET)
    out = project / "out"
    docker_like = Path(__file__).parents[1] / "commands" / "docker_like.py"
    done = subprocess.run(
        [
            sys.executable,
            str(docker_like),
            sys.executable,
            "-m",
            "grader",
            "batch",
            "toy",
            str(folder),
            "-j",
            "2",
            "--out",
            str(out),
            "--sandbox",
            "container",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "GRADER_ROOT": str(project), "GRADER_SCRATCH": str(scratch_root)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((out / "aaa" / "results.json").read_text())
    assert results["extra_data"]["sandbox"] == "container"
    failed = [t["output"] for t in results["tests"] if t["status"] != "passed"]
    assert not failed, failed


def test_a_scratch_that_cannot_be_closed_to_others_runs_nothing(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fail closed: where the grader cannot give the scratch to its tests' group alone (a host
    that refuses the chown), every test is JE saying so, and the submission never ran."""
    from grader.judge.grade import grade
    from grader.run import private

    marker = project / "ran"
    submission = _toy(project, _answer(f"open({str(marker)!r}, 'w'); return 2 * n"))

    def refused(path: Path, group: int | None, mode: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(private, "share", refused)
    report = grade(load_suite("toy"), submission, sandbox="process")
    assert [r.verdict.value for r in report.results] == ["JE", "JE"]
    assert "could not be opened to the tests' uid alone" in report.results[0].message
    assert not marker.exists()
