"""A test that sleeps ends at once as TLE 'asleep'; a test that computes is never cut (issue 20).

The parent reads the kernel's state of the test's threads and its cgroup's CPU counter; these
tests check the verdicts and messages, never how long anything took (beyond bounds far from the
wall-clock safety net that a sleeper used to wait out).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from grader.judge.verdicts import TestResult as Result  # pytest would collect a class named Test*
from grader.run import asleep
from tests.conftest import Build
from tests.grader.run.test_load import busy_loops  # noqa: F401 - a fixture
from tests.support import TOY_DRIVER, TOY_REFERENCE, toy_suite

# No wall_s: the default safety net is max(3 x cpu_s, cpu_s + 30 s) = 36 s (a transcript's too).
SUITE = toy_suite("{cpu_s: 6, processes: PROCESSES}")
DRIVER, REFERENCE = TOY_DRIVER, TOY_REFERENCE
INPUTS = {"numbers.txt": "1\n2\n", "numbers.out.txt": ""}
SAFETY_NET_S = 36.0


def _grade(grade_toy: Build, student: str, processes: int = 1) -> list[Result]:
    suite = SUITE.replace("PROCESSES", str(processes))
    report = grade_toy(suite, REFERENCE, student, given={"drive.py": DRIVER}, inputs=INPUTS, sandbox="bwrap")
    return report.results


def _asleep(results: list[Result]) -> None:
    for result in results:
        assert result.verdict.value == "TLE", (result.name, result.verdict, result.message)
        assert result.message.startswith("asleep:"), result.message
        assert "wall-clock" not in result.message
        assert result.usage.wall_s < SAFETY_NET_S / 2, "it waited for the safety net"


SLEEPERS = {
    "sleeps-at-import": "import time\ntime.sleep(600)\n" + REFERENCE,
    "sleeps-in-the-call": "def answer(n):\n    import time\n    time.sleep(600)\n",
    "naps-in-a-loop": "import time\nwhile True:\n    time.sleep(0.02)\n" + REFERENCE,
    "naps-briefly-in-a-loop": (
        "import time\nwhile True:\n    sum(range(300))\n    time.sleep(0.0002)\n" + REFERENCE
    ),
    "blocks-reading-stdin": (
        "import os, sys\nr, w = os.pipe()\nos.dup2(r, 0)\nsys.stdin.read()\n" + REFERENCE
    ),
    "waits-for-a-sleeping-child": (
        "import os, time\nif os.fork() == 0:\n    time.sleep(600)\nos.wait()\n" + REFERENCE
    ),
    "stops-its-child-and-waits": (
        "import os, signal\nchild = os.fork()\nif child == 0:\n    while True:\n        pass\n"
        "os.kill(child, signal.SIGSTOP)\nos.waitpid(child, 0)\n" + REFERENCE
    ),
}


@pytest.mark.slow
@pytest.mark.bwrap
@pytest.mark.parametrize("case", sorted(SLEEPERS))
def test_a_sleeping_test_ends_as_asleep(grade_toy: Build, case: str) -> None:
    results = _grade(grade_toy, SLEEPERS[case], processes=2)
    assert [r.name for r in results] == ["call", "transcript"]
    _asleep(results)


@pytest.mark.slow
@pytest.mark.bwrap
def test_waiting_for_a_child_that_works_is_not_asleep(
    grade_toy: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(asleep, "AFTER_S", 0.3)  # stricter than in grading: the child works longer
    student = (
        "import os\nif os.fork() == 0:\n    total = 0\n"
        "    for i in range(15_000_000):\n        total += i\n    os._exit(0)\n"
        "os.wait()\n" + REFERENCE
    )
    results = _grade(grade_toy, student, processes=2)
    assert [(r.verdict.value, r.message) for r in results] == [("AC", ""), ("AC", "")]
    assert all(r.usage.cpu_s > 0.6 for r in results), [r.usage for r in results]


COMPUTES = (
    "def answer(n):\n    total = 0\n    for i in range(12_000_000):\n        total += i\n    return 2 * n\n"
)


@pytest.mark.bwrap
@pytest.mark.slow
def test_under_load_a_computing_test_keeps_its_time_and_a_sleeper_still_sleeps(
    grade_toy: Build,
    busy_loops: list[subprocess.Popen[bytes]],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(asleep, "AFTER_S", 0.3)  # far stricter than in grading
    results = _grade(grade_toy, COMPUTES)
    assert [(r.verdict.value, r.message) for r in results] == [("AC", ""), ("AC", "")]
    _asleep(_grade(grade_toy, SLEEPERS["sleeps-at-import"]))
    assert all(loop.poll() is None for loop in busy_loops), "the load ended early"


@pytest.fixture
def child() -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen([sys.executable, "-c", "import time\ntime.sleep(60)"])
    time.sleep(0.2)
    try:
        yield process
    finally:
        process.kill()
        process.wait()


def test_the_kernel_state_says_who_is_runnable(child: subprocess.Popen[bytes]) -> None:
    assert asleep.state(os.getpid()) == "R"  # reading its own stat, it runs
    assert asleep.state(child.pid) == "S"
    assert not asleep.awake([child.pid])
    assert asleep.awake([child.pid, os.getpid()])
    os.kill(child.pid, signal.SIGSTOP)
    time.sleep(0.1)
    assert asleep.state(child.pid) == "T"
    assert not asleep.awake([child.pid])
    assert asleep.awake([]), "a test with no thread left is ending, not asleep"
    assert asleep.state(2**22 + 7) == ""


def test_the_watch_counts_only_a_stretch_without_cpu(child: subprocess.Popen[bytes]) -> None:
    def threads() -> list[int]:
        return [child.pid]

    watch = asleep.SleepWatch(0.0, after_s=1.0)
    assert not watch.asleep(0.5, 0.0, threads), "no CPU yet: waiting for its request"
    assert not watch.asleep(0.6, 0.05, threads), "it worked"
    assert not watch.asleep(0.7, 0.05, threads)  # a stretch begins at 0.6
    assert not watch.asleep(1.5, 0.0501, threads)  # a little CPU (a nap's wake-up) is no work
    assert watch.asleep(1.6, 0.0501, threads)
    assert watch.longest_s == pytest.approx(1.0)
    assert not watch.asleep(1.7, 0.2, threads), "it worked again"
    assert not watch.asleep(2.6, 0.2, lambda: [os.getpid()]), "runnable, though it got no CPU"


def test_a_test_that_ran_or_waited_under_half_the_window_naps(monkeypatch: pytest.MonkeyPatch) -> None:
    """The nap rule, from the scheduler's statistics: a nap loop that uses a fifth of the wall
    time in CPU (far above CPU_SHARE, so never a stretch of sleep) and a starved computing test
    that gets a tenth of a CPU but waits for one the rest of the time."""
    scheduled = {"ns": 0}
    monkeypatch.setattr(asleep, "scheduled_ns", lambda tid: scheduled["ns"])

    def run(share_running_or_waiting: float, cpu_share: float) -> tuple[bool, float]:
        watch = asleep.SleepWatch(0.0)
        scheduled["ns"] = 0
        now = cpu = 0.0
        for _ in range(400):
            now += 0.05
            cpu += 0.05 * cpu_share
            scheduled["ns"] += int(0.05 * share_running_or_waiting * 1e9)
            if watch.asleep(now, cpu, lambda: [4242]):
                return watch.napped, now
        return False, now

    napped, at = run(share_running_or_waiting=0.3, cpu_share=0.2)
    assert napped and asleep.NAP_WINDOW_S <= at < asleep.NAP_WINDOW_S + 0.2
    assert run(share_running_or_waiting=1.0, cpu_share=0.1) == (False, pytest.approx(20.0))
