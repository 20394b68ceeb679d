"""Issue 29: a test that cannot write because the grader's disk is full is JE naming the disk,
never a WA for a transcript the disk cut short ("your output stops there (0 lines, ...)").

The grader's disk holds the tests' stdout and stderr files (and, at the container level, their
working folders). Here it is a small tmpfs filled by the grader's side, as a neighbour that
filled the scratch file system would leave it.
"""

from __future__ import annotations

import ctypes
import os
import tempfile
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.commands.record import record
from grader.judge.calibration import resolve_limits
from grader.judge.grade import select_tests
from grader.judge.testrun import Grader, prepared_submission
from grader.sandboxes import Confinement
from grader.suite.load import load_suite

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small disk needs root")
# The container level is the one whose tests write their working folders on that disk too; its
# transcripts need the interpreter open to others (tests/grader/commands/docker_like.py), which
# this host's is not: the check is the same at every level (grader/run/runner.py, disk_problem).
LEVELS = ["process", pytest.param("bwrap", marks=pytest.mark.bwrap)]

SUITE = """
exercise: toy
submit: [toy.py]
given: [drive.py]
limits: {cpu_s: 2, wall_s: 6, memory_mb: 100, output_kb: 64, scratch_mb: 1}
tests:
  - name: transcript
    transcript: {driver: drive, expected: numbers.out.txt}
"""
DRIVER = """
from toy import answer
for n in range(30):
    print(answer(n))
"""
RIGHT = "def answer(n):\n    return 2 * n\n"
libc = ctypes.CDLL(None, use_errno=True)


@pytest.fixture
def small_disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A 4 MB file system as the grader's scratch root."""
    folder = Path(tempfile.mkdtemp(prefix="full-disk-test-"))
    if libc.mount(b"tmpfs", str(folder).encode(), b"tmpfs", 0, b"size=4m,mode=0755") != 0:
        pytest.skip(f"cannot mount a tmpfs here ({os.strerror(ctypes.get_errno())})")
    monkeypatch.setenv("GRADER_SCRATCH", str(folder))
    try:
        yield folder
    finally:
        libc.umount2(str(folder).encode(), 2)  # MNT_DETACH
        folder.rmdir()


def _fill(disk: Path) -> None:
    with open(disk / "filler", "wb") as filler:
        try:
            while True:
                filler.write(b"\0" * 65536)
                filler.flush()
        except OSError:
            pass


def _toy(project: Path) -> Path:
    for folder in ("exercises/toy", "reference/toy", "fixtures/toy"):
        (project / folder).mkdir(parents=True, exist_ok=True)
    (project / "fixtures/toy/suite.yaml").write_text(SUITE)
    (project / "exercises/toy/toy.py").write_text("")
    (project / "exercises/toy/drive.py").write_text(textwrap.dedent(DRIVER))
    (project / "reference/toy/toy.py").write_text(RIGHT)
    assert not record(load_suite("toy")).failures
    submission = project / "student"
    submission.mkdir()
    (submission / "toy.py").write_text(RIGHT)
    return submission


@root_only
@pytest.mark.parametrize("level", LEVELS)
def test_a_right_submission_on_a_full_disk_is_je_naming_the_disk(
    project: Path, small_disk: Path, level: Confinement
) -> None:
    submission = _toy(project)
    loaded = load_suite("toy")
    tests = select_tests(loaded, False, None)
    with prepared_submission(loaded, submission) as (prepared, scratch):
        limits = resolve_limits(loaded, tests, level)
        with Grader(loaded, prepared, scratch, limits, level) as grader:
            before = grader.grade_test(tests[0])[0]
            assert before.verdict.value == "AC", before
            _fill(small_disk)
            judged = grader.grade_test(tests[0])[0]
            (small_disk / "filler").unlink()
            after = grader.grade_test(tests[0])[0]
    assert judged.verdict.value == "JE", judged
    assert f"the grader's disk {small_disk} is full" in judged.message
    assert after.verdict.value == "AC", after


@root_only
@pytest.mark.parametrize("level", LEVELS)
def test_a_disk_filled_while_a_test_runs_is_je_not_a_transcript_cut_short(
    project: Path, small_disk: Path, level: Confinement
) -> None:
    submission = _toy(project)
    (project / "exercises/toy/drive.py").write_text("import time\ntime.sleep(1)\n" + textwrap.dedent(DRIVER))
    loaded = load_suite("toy")
    tests = select_tests(loaded, False, None)
    with prepared_submission(loaded, submission) as (prepared, scratch):
        limits = resolve_limits(loaded, tests, level)
        with Grader(loaded, prepared, scratch, limits, level) as grader:
            filler = threading.Timer(0.3, _fill, [small_disk])
            filler.start()
            judged = grader.grade_test(tests[0])[0]
            filler.join()
    assert judged.verdict.value == "JE", judged
    assert f"the grader's disk {small_disk}" in judged.message
