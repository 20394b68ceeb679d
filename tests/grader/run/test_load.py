"""Fair time under load (issue 11): with two busy loops per core running, grading the bitgrid and
weighted references gives exactly the idle verdicts, and `grader verify` passes.

Time limits judge CPU time; the wall clock is only a safety net far above it, so a busy machine
may slow grading (about 3x in wall time here) but must change no verdict.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from grader.commands.verify import verify
from grader.judge.grade import grade
from grader.judge.verdicts import TestResult as Result  # pytest would collect a class named Test*
from grader.judge.verdicts import Verdict
from grader.suite.load import load_suite

LOOPS_PER_CORE = 2
# A busy loop that also ends by itself within a few milliseconds should pytest die without teardown.
BUSY_LOOP = (
    "import os\nparent = os.getppid()\nwhile os.getppid() == parent:\n    for _ in range(100_000): pass\n"
)


@pytest.fixture
def busy_loops() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Two busy-loop processes per core, running for the rest of the test, killed after it.

    Each loop is a session of its own, as independent jobs are: with the kernel's autogroup
    scheduling (sched_autogroup_enabled) loops sharing one session would share one core's worth
    of CPU between them and barely slow the test (whose fork server is a session of its own).
    """
    loops: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(LOOPS_PER_CORE * (os.cpu_count() or 1)):
            loops.append(
                subprocess.Popen(
                    [sys.executable, "-c", BUSY_LOOP], stdin=subprocess.DEVNULL, start_new_session=True
                )
            )
        yield loops
    finally:
        for loop in loops:
            loop.kill()
        for loop in loops:
            loop.wait()


def _still_running(loops: list[subprocess.Popen[bytes]]) -> None:
    """The load lasted as long as the work it was meant to slow down."""
    ended = [loop.returncode for loop in loops if loop.poll() is not None]
    assert not ended, f"{len(ended)} of {len(loops)} busy loops ended early: {ended}"


def _line(result: Result) -> str:
    usage = result.usage
    return (
        f"{result.name}: {result.verdict.value} (cpu {usage.cpu_s:.3f} s, wall "
        f"{usage.wall_s:.3f} s, {usage.peak_mb:.1f} MB) {result.message}"
    )


@pytest.mark.slow
@pytest.mark.bwrap
@pytest.mark.timeout(900)
@pytest.mark.parametrize("exercise", ["bitgrid", "weighted"])
def test_reference_verdicts_do_not_change_under_load(exercise: str, request: pytest.FixtureRequest) -> None:
    # The whole suite, the heavy weighted tests included (task4-3-9, task4-4-4: ~0.03-0.4 s of
    # CPU each): under this load their wall time grows about 3x, their CPU time does not.
    loaded = load_suite(exercise)
    idle = grade(loaded, loaded.exercise.reference, sandbox="bwrap")
    loops: list[subprocess.Popen[bytes]] = request.getfixturevalue("busy_loops")
    loaded_machine = grade(loaded, loaded.exercise.reference, sandbox="bwrap")
    _still_running(loops)

    shown = "\n".join(
        [
            "idle:",
            *map(_line, idle.results),
            f"under {len(loops)} busy loops:",
            *map(_line, loaded_machine.results),
        ]
    )
    idle_verdicts = [(r.name, r.verdict) for r in idle.results]
    loaded_verdicts = [(r.name, r.verdict) for r in loaded_machine.results]
    assert idle_verdicts == loaded_verdicts, shown
    assert [name for name, _ in idle_verdicts] == [t.name for t in loaded.suite.tests], shown
    assert all(verdict is Verdict.AC for _, verdict in loaded_verdicts), shown


@pytest.mark.slow
@pytest.mark.bwrap
@pytest.mark.timeout(900)
def test_verify_passes_under_load(busy_loops: list[subprocess.Popen[bytes]]) -> None:
    outcome = verify(load_suite("bitgrid"), sandbox="bwrap")
    _still_running(busy_loops)
    assert outcome.ok, "\n".join(outcome.problems.lines())
