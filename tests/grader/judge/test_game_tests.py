"""A suite's `game:` test on a toy exercise (Nim): the referee in the grader, one sandboxed call per
move; forfeits, demands, the referee's own errors as JE, and the checks made before grading."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.judge.preflight import static_problems
from grader.judge.verdicts import TestResult, Verdict
from grader.suite.load import load_suite
from tests.conftest import Build

SUITE = """\
exercise: toy
submit: [toy.py]
limits: {cpu_s: 2}
tests:
  - name: nim
    points: 2
    game: {matches: games:matches}
"""

GAMES = """\
from grader.suite.games import Illegal, Match
from grader.suite.schema import Step


class Nim:
    def __init__(self, pile):
        self.pile, self.side, self.last = pile, 0, -1

    def to_move(self):
        return self.side

    def ask(self):
        return [Step(call="toy.take", args=[self.pile])]

    def play(self, answer):
        if answer == 3:
            raise KeyError("the referee's own bug")
        if type(answer) is not int or answer not in (1, 2) or answer > self.pile:
            raise Illegal("take 1 or 2, at most what is left")
        self.pile -= answer
        self.last, self.side = self.side, 1 - self.side
        return f"-{answer}"

    def result(self):
        if self.pile:
            return None
        return 1.0 if self.last == 0 else 0.0


def one(game):
    return 1


def keeps_the_win(game, answer):
    if game.pile % 3 and (game.pile - answer) % 3:
        return f"from {game.pile}, taking {answer} gives the won game away"
    return None


def matches():
    return [Match(label=f"pile {n}", game=Nim(n), opponent=one, demand=keeps_the_win) for n in (4, 5, 7)]
"""

REFERENCE = "def take(pile):\n    return pile % 3 or 1\n"


def nim(grade_toy: Build, student: str) -> TestResult:
    return grade_toy(SUITE, REFERENCE, student, inputs={"games.py": GAMES}).results[0]


def test_the_reference_wins_every_game(grade_toy: Build) -> None:
    result = nim(grade_toy, REFERENCE)
    assert result.verdict is Verdict.AC, result.message
    assert result.kind == "game" and result.usage.cpu_s > 0


@pytest.mark.parametrize(
    ("student", "verdict", "message"),
    [
        ("def take(pile):\n    return 9\n", Verdict.WA, "pile 4, ply 1: answered 9: take 1 or 2"),
        ("def take(pile):\n    return '<b>'\n", Verdict.WA, "answered '<b>'"),
        (
            "def take(pile):\n    return 1\n",
            Verdict.WA,
            "pile 4, ply 3: from 2, taking 1 gives the won game away",
        ),
        (
            "def take(pile):\n    raise NotImplementedError\n",
            Verdict.NI,
            "pile 4, ply 1: toy.take(4): not implemented",
        ),
        ("def take(pile):\n    while True:\n        pass\n", Verdict.TLE, "pile 4, ply 1"),
        ("def take(pile):\n    return 1 // 0\n", Verdict.RTE, "ZeroDivisionError"),
    ],
)
def test_a_failing_engine_loses_its_game_with_the_reason(
    grade_toy: Build, student: str, verdict: Verdict, message: str
) -> None:
    result = nim(grade_toy, student)
    assert result.verdict is verdict, result.message
    assert message in result.message


def test_the_failing_games_record_is_in_the_details(grade_toy: Build) -> None:
    result = nim(grade_toy, "def take(pile):\n    return 1 if pile == 4 else 2\n")
    assert result.verdict is Verdict.WA
    assert "pile 7 (submission - referee): 1.-2" in result.details  # its moves, up to the shortfall


def test_the_referees_own_error_is_je_never_the_students(grade_toy: Build) -> None:
    result = nim(grade_toy, "def take(pile):\n    return 3\n")
    assert result.verdict is Verdict.JE
    assert "KeyError" in result.message and "the grader's fault" in result.message


def test_matches_that_do_not_exist_are_one_located_error(project: Path) -> None:
    for part in ("exercises", "reference", "fixtures"):
        (project / part / "toy").mkdir(parents=True, exist_ok=True)
    (project / "exercises" / "toy" / "toy.py").write_text("def take(pile):\n    raise NotImplementedError\n")
    (project / "reference" / "toy" / "toy.py").write_text(REFERENCE)
    (project / "fixtures" / "toy" / "suite.yaml").write_text(SUITE)
    messages = static_problems(load_suite("toy")).messages()
    assert len(messages) == 1 and ":7: tests.nim.game.matches: " in messages[0], messages


def test_a_game_test_is_one_kind_only(project: Path) -> None:
    from grader.suite.model import SuiteError

    for part in ("exercises", "reference", "fixtures"):
        (project / part / "toy").mkdir(parents=True, exist_ok=True)
    (project / "fixtures" / "toy" / "suite.yaml").write_text(SUITE + "    call: toy.take\n    cases: [[1]]\n")
    with pytest.raises(SuiteError, match="'interactive' or 'game'"):
        load_suite("toy")
