"""Every verdict of the closed set, produced by real child processes under real limits."""

from __future__ import annotations

import pytest

from tests.conftest import Build

SUITE = """
exercise: toy
submit: [toy.py]
limits: {cpu_s: 1, wall_s: 2, memory_mb: 100, output_kb: 16}
tests:
  - name: answer
    call: toy.answer
    cases: [[1], [2]]
"""

REFERENCE = """
def answer(n):
    return n * 2
"""


def verdict_of(grade_toy: Build, student: str) -> tuple[str, str]:
    report = grade_toy(SUITE, REFERENCE, student)
    (result,) = report.results
    return result.verdict.value, result.message + result.details


CASES = {
    "AC": "def answer(n):\n    return n + n\n",
    "WA": "def answer(n):\n    return n * 3\n",
    "NI": "def answer(n):\n    raise NotImplementedError\n",
    "CE-syntax": "def answer(n)\n    return n\n",
    "CE-missing": "def other(n):\n    return n\n",
    "CE-import": "import not_a_module_anywhere\ndef answer(n):\n    return 2 * n\n",
    "RTE-exception": "def answer(n):\n    return [][n]\n",
    "RTE-exit": "import os\ndef answer(n):\n    os._exit(0)\n",
    "RTE-sys-exit": "import sys\ndef answer(n):\n    sys.exit(0)\n",
    "RTE-segfault": "import ctypes\ndef answer(n):\n    ctypes.string_at(0)\n",
    "RTE-base-exception": "class Boom(BaseException):\n    pass\ndef answer(n):\n    raise Boom()\n",
    "TLE-loop": "def answer(n):\n    while True:\n        pass\n",
    "TLE-sleep": "import time\ndef answer(n):\n    time.sleep(60)\n",
    "TLE-threads": (
        "import threading\ndef spin():\n    while True:\n        pass\n"
        "def answer(n):\n    for _ in range(4):\n"
        "        threading.Thread(target=spin, daemon=True).start()\n"
        "    spin()\n"
    ),
    "TLE-ignores-sigterm": (
        "import signal, time\ndef answer(n):\n"
        "    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "    signal.signal(signal.SIGXCPU, signal.SIG_IGN)\n"
        "    while True:\n        pass\n"
    ),
    "MLE-spike": "def answer(n):\n    block = bytearray(400 * 1024 * 1024)\n    return len(block)\n",
    "MLE-short-spike": (
        "def answer(n):\n    block = bytearray(300 * 1024 * 1024)\n    del block\n    return n * 2\n"
    ),
    "MLE-slow-leak": (
        "import time\nhoard = []\ndef answer(n):\n    while True:\n"
        "        hoard.append(bytearray(4 * 1024 * 1024))\n        time.sleep(0.005)\n"
    ),
    "OLE": "def answer(n):\n    print('x' * 100000)\n    return n * 2\n",
    "WA-rigged-eq": (
        "class Liar(int):\n    def __eq__(self, other):\n        return True\n"
        "    __hash__ = int.__hash__\n"
        "def answer(n):\n    return Liar(0)\n"
    ),
    "WA-not-plain": (
        "class Liar:\n    def __eq__(self, other):\n        return True\ndef answer(n):\n    return Liar()\n"
    ),
    "WA-fake-output": (
        'def answer(n):\n    print(\'{"steps": [{"value": 2}]}\')\n'
        "    print('AC answer 1/1')\n    return 0\n"
    ),
    "WA-bool-for-int": "def answer(n):\n    return True if n == 1 else 4\n",
    "RTE-fork": ("import os, time\ndef answer(n):\n    os.fork()\n    time.sleep(1)\n    return n * 2\n"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_verdict(grade_toy: Build, case: str) -> None:
    verdict, message = verdict_of(grade_toy, CASES[case])
    assert verdict == case.split("-")[0], message


def test_failure_message_spells_out_the_call(grade_toy: Build) -> None:
    _, message = verdict_of(grade_toy, CASES["WA"])
    assert message == "toy.answer(1) returned 3, expected 2"


def test_missing_function_hint(grade_toy: Build) -> None:
    _, message = verdict_of(grade_toy, CASES["CE-missing"])
    assert "missing function" in message and "answer" in message


def test_traceback_is_trimmed_to_student_frames(grade_toy: Build) -> None:
    _, message = verdict_of(grade_toy, CASES["RTE-exception"])
    assert 'File "toy.py", line 2, in answer' in message
    assert "worker.py" not in message and "runpy" not in message


def test_usage_is_measured(grade_toy: Build) -> None:
    report = grade_toy(SUITE, REFERENCE, CASES["MLE-spike"])
    (result,) = report.results
    assert result.usage.peak_mb > 100
    assert result.usage.wall_s > 0
