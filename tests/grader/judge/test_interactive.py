"""Interactive tests: a trusted referee plays the sandboxed driver over its stdin and stdout.

A toy game: the driver prompts `Number: `, reads n, prints the student's `answer(n)`; -1 ends it
with `bye`. The referee types 1..5, checks each answer is 2n, types -1 and waits for the end of
the output. Hostile engines lose with the reason; the referee's own mistakes are JE; nothing of
a test outlives it.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import psutil
import pytest

from grader.commands.record import record
from grader.judge.grade import GradeReport, grade
from grader.judge.verdicts import Verdict
from grader.suite.load import load_suite

SUITE = """
exercise: toy
submit: [toy.py]
given: [duel.py]
limits: {cpu_s: 2, memory_mb: 100, output_kb: 16, processes: 4}
tests:
  - name: game
    interactive: {driver: duel, referee: "referees:REFEREE", game: {rounds: 5}}
  - name: call
    call: toy.answer
    cases: [[3]]
"""
DRIVER = """
import sys
from toy import answer
while True:
    print("Number: ", end="", flush=True)
    line = sys.stdin.readline()
    if not line:
        break
    n = int(line)
    if n < 0:
        print("bye", flush=True)
        break
    print(answer(n), flush=True)
"""
SECRET = "the-referees-secret-4217"
REFEREES = f'''
SECRET = "{SECRET}"


def doubles(game):
    heard = yield None
    for n in range(1, game["rounds"] + 1):
        while not heard.endswith("Number: "):
            more = yield None
            if more is None:
                return "WA", "the program ended before the game did"
            heard += more
        heard = yield f"{{n}}\\n"
        if heard is None:
            return "WA", "the program ended before answering"
        while "\\n" not in heard:
            more = yield None
            if more is None:
                return "WA", "the program ended before answering"
            heard += more
        said, heard = heard.split("\\n", 1)
        if said.strip() != str(2 * n):
            return "WA", f"answered {{said[:40]!r}} to {{n}}, not {{2 * n}}"
    while not heard.endswith("Number: "):
        heard += (yield None) or ""
    after = yield "-1\\n"
    while after is not None:
        heard = after if heard.endswith("Number: ") else heard + after
        if heard.strip() != "bye":
            return "WA", f"played after the end: {{heard[:40]!r}}"
        after = yield None
    return "AC", ""


def slow(game):
    import time

    heard = ""
    for n in (1, 2):
        while not heard.endswith("Number: "):
            heard += (yield None) or ""
        time.sleep(3.5)  # longer than a test may sleep: the test waits for the referee, not asleep
        heard = (yield f"{{n}}\\n") or ""
    return "AC", ""


def raises(game):
    yield "1\\n"
    raise KeyError("oops")


def shapeless(game):
    yield None
    return "fine"


def types_numbers(game):
    yield 42


def not_a_generator(game):
    return "AC", ""
'''
REFERENCE = "def answer(n):\n    return 2 * n\n"

HOSTILE: dict[str, tuple[str, str, str]] = {
    # name: (verdict, what its message says, the student's toy.py)
    "silence": ("TLE", "asleep", "import time\ndef answer(n):\n    time.sleep(600)\n"),
    "flood": ("OLE", "16 kB", "def answer(n):\n    while True:\n        print('x' * 4096, end='')\n"),
    # A wrong line, then a flood: the referee hears the bytes up to the limit, whatever the timing.
    "wrong-then-flood": ("WA", "not 2", "def answer(n):\n    while True:\n        print('x' * 4096)\n"),
    "garbage": ("WA", "not 2", "def answer(n):\n    return '\\x1b[31m\\x00<script>'\n"),
    "illegal-move": ("WA", "to 3, not 6", "def answer(n):\n    return 2 * n + (n == 3)\n"),
    "move-after-the-end": (
        "WA",
        "played after the end",
        """
import builtins
_print = builtins.print
def _cheat(*args, **kwargs):
    _print(*args, **kwargs)
    if args == ("bye",):
        _print("12", flush=True)
builtins.print = _cheat
def answer(n):
    return 2 * n
""",
    ),
    "fork-bomb": (
        "RTE",
        "process",
        "import os\ndef answer(n):\n    while True:\n        try:\n            os.fork()\n"
        "        except OSError:\n            pass\n",
    ),
    "crash": ("RTE", "ZeroDivisionError", "def answer(n):\n    return 1 // 0\n"),
    "spin": ("TLE", "2 s of CPU time", "def answer(n):\n    while True:\n        pass\n"),
}


def _build(project: Path, referee: str = "doubles") -> None:
    for folder in ("exercises", "reference", "fixtures"):
        (project / folder / "toy").mkdir(parents=True, exist_ok=True)
    (project / "exercises" / "toy" / "toy.py").write_text("")
    (project / "exercises" / "toy" / "duel.py").write_text(textwrap.dedent(DRIVER))
    (project / "reference" / "toy" / "toy.py").write_text(REFERENCE)
    (project / "fixtures" / "toy" / "referees.py").write_text(REFEREES)
    (project / "fixtures" / "toy" / "suite.yaml").write_text(SUITE.replace("REFEREE", referee))


def _grade(project: Path, student: str, sandbox: str = "process") -> GradeReport:
    loaded = load_suite("toy")
    recording = record(loaded)
    assert not recording.failures, recording.failures
    submission = project / "student"
    submission.mkdir(exist_ok=True)
    (submission / "toy.py").write_text(student)
    return grade(loaded, submission, sandbox=sandbox)  # type: ignore[arg-type]


def _children() -> set[int]:
    return {child.pid for child in psutil.Process().children(recursive=True)}


def test_the_reference_wins_and_its_game_is_recorded(project: Path) -> None:
    _build(project)
    report = _grade(project, REFERENCE)
    game = report.results[0]
    assert (game.verdict, game.points, game.kind) == (Verdict.AC, 1.0, "interactive")
    assert "> 1\n< 2" in game.details and "< bye" in game.details
    recorded = json.loads((project / "fixtures" / "toy" / "expected" / "game.json").read_text())
    assert recorded["verdict"] == "AC" and [">", "1\n"] in recorded["game"]


@pytest.mark.parametrize("sandbox", ["process", pytest.param("bwrap", marks=pytest.mark.bwrap)])
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_engine_loses_with_the_reason_and_harms_nobody(
    project: Path, name: str, sandbox: str
) -> None:
    verdict, says, student = HOSTILE[name]
    _build(project)
    before = _children()
    report = _grade(project, student, sandbox)
    game = report.results[0]
    assert game.verdict.value == verdict, (game.message, game.details)
    assert says in game.message, game.message
    assert "turn " in game.message
    assert _children() <= before  # nothing of the test outlives it
    assert not list(project.glob("**/*.stdin")) and not list(project.glob("**/*.stdout"))
    assert report.results[1].verdict is not Verdict.JE  # the next test ran: its fork server is fine


@pytest.mark.parametrize(
    ("referee", "says"),
    [
        ("raises", "raised KeyError"),
        ("shapeless", "returned 'fine'"),
        ("types_numbers", "yielded 42"),
        ("not_a_generator", "not a generator"),
    ],
)
def test_the_referees_own_errors_are_je_never_the_students(project: Path, referee: str, says: str) -> None:
    _build(project, referee)
    loaded = load_suite("toy")
    submission = project / "student"
    submission.mkdir()
    (submission / "toy.py").write_text(REFERENCE)
    (project / "fixtures" / "toy" / "expected").mkdir()
    game = grade(loaded, submission, names=["game"], sandbox="process").results[0]
    assert game.verdict is Verdict.JE, game.message
    assert says in game.message and "the grader's fault" in game.message


def test_a_driver_that_never_prompts_is_asleep_while_the_referee_waits(project: Path) -> None:
    _build(project)
    report = _grade(project, "import time\ntime.sleep(600)\ndef answer(n):\n    return 2 * n\n")
    game = report.results[0]
    assert game.verdict is Verdict.TLE, game.message
    assert "asleep" in game.message and "the referee was waiting for its output" in game.message


@pytest.mark.bwrap
def test_an_engine_reading_its_opponent_finds_nothing_of_the_referee(project: Path) -> None:
    """Under bubblewrap: the referee's module, the grader's processes and environment are out of
    reach, by their exact paths too; what it found is its answer, and it holds no secret."""
    _build(project)
    referee = project / "fixtures" / "toy" / "referees.py"
    student = f"""
import os
def answer(n):
    found = []
    for path in ({str(referee)!r}, "/proc/1/environ", "/proc/1/cmdline", "/proc/self/../1/mem"):
        try:
            with open(path, "rb") as stolen:
                found.append(stolen.read(4096).decode("latin-1"))
        except OSError as error:
            found.append(type(error).__name__)
    found.append(" ".join(sorted(os.listdir("/proc"))))
    return "|".join(found).replace(chr(10), " ")
"""
    report = _grade(project, student, sandbox="bwrap")
    game = report.results[0]
    assert game.verdict is Verdict.WA, game.message
    assert SECRET not in game.message + game.details
    assert "FileNotFoundError" in game.details


def test_the_game_record_is_in_the_feedback_and_a_hidden_games_stays_hidden(project: Path) -> None:
    from grader.report.reports import results_json

    _build(project)
    suite = project / "fixtures" / "toy" / "suite.yaml"
    suite.write_text(
        suite.read_text().replace("  - name: call\n", "  - name: call\n    visibility: hidden\n")
    )
    hidden_game = (
        "  - name: hidden-game\n    visibility: hidden\n"
        '    interactive: {driver: duel, referee: "referees:doubles", game: {rounds: 2}}\n'
    )
    suite.write_text(suite.read_text() + hidden_game)
    report = _grade(project, "def answer(n):\n    return 2 * n + (n == 2)\n")
    tests = {test["name"]: test for test in results_json(report)["tests"]}
    assert "> 1\n< 2" in tests["game"]["output"] and "turn 2" in tests["game"]["output"]
    assert tests["hidden-game"]["status"] == "failed" and tests["hidden-game"]["visibility"] == "hidden"
    passed = _grade(project, REFERENCE)
    tests = {test["name"]: test for test in results_json(passed)["tests"]}
    assert tests["game"]["status"] == "passed" and "< bye" in tests["game"]["output"]


def test_the_referees_turns_are_not_the_tests_time(project: Path) -> None:
    _build(project, "slow")
    loaded = load_suite("toy")
    submission = project / "student"
    submission.mkdir()
    (submission / "toy.py").write_text(REFERENCE)
    (project / "fixtures" / "toy" / "expected").mkdir()
    game = grade(loaded, submission, names=["game"], sandbox="process").results[0]
    assert game.verdict is Verdict.AC, game.message  # 7 s of the referee's turns: never asleep
    assert game.usage.wall_s < 3.5  # nor its wall clock
