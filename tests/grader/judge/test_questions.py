"""Questions are first-class: points per question in every report format, and a driver test that
runs the student's program with a reference class swapped in (so a wrong class costs only its own
question)."""

from __future__ import annotations

import json
from io import StringIO

from rich.console import Console

from grader.judge.verdicts import Verdict
from grader.report.gradebook import attempt_from_results
from grader.report.reports import junit_xml, print_report, results_json
from grader.report.summary import feedback_html
from tests.conftest import Build

SUITE = """\
exercise: toy
submit: [toy.py]
given: [play.py]
questions:
  - {id: counter, title: "Question 1: the counter"}
  - {id: game, title: "Question 2: the game"}
tests:
  - name: counts
    question: counter
    points: 2
    steps:
      - {let: c, call: toy.Counter, args: [3]}
      - {call: c.bump}
      - {call: c.bump}
  - name: whole-game
    question: game
    points: 3
    reference_helpers: {toy.Counter: counter}   # the question grading it
    transcript: {driver: play, args: ["2"], stdin: moves.txt, expected: game.out.txt}
"""

REFERENCE = """\
STEP = 1


def _advance(value: int) -> int:
    return value + STEP


class Counter:
    def __init__(self, start: int) -> None:
        self.value = start

    def bump(self) -> int:
        self.value = _advance(self.value)
        return self.value


def total(counter: Counter, words: list[str]) -> int:
    for _ in words:
        counter.bump()
    return counter.value
"""

WRONG_COUNTER = """\
class Counter:
    def __init__(self, start):
        self.value = start

    def bump(self):
        self.value += 2
        return self.value


def total(counter, words):
    for _ in words:
        counter.bump()
    return counter.value
"""

PLAY = """\
import sys

from toy import Counter, total

words = sys.stdin.read().split()
print("total", total(Counter(int(sys.argv[1])), words))
"""


def graded(grade_toy: Build, student: str) -> object:
    return grade_toy(SUITE, REFERENCE, student, given={"play.py": PLAY}, inputs={"moves.txt": "a b c\n"})


def test_a_wrong_class_costs_only_its_question_even_in_a_driver_test(grade_toy: Build) -> None:
    report = graded(grade_toy, WRONG_COUNTER)
    verdicts = {r.name: r.verdict for r in report.results}  # type: ignore[attr-defined]
    assert verdicts == {"counts": Verdict.WA, "whole-game": Verdict.AC}
    game = report.results[1]  # type: ignore[attr-defined]
    assert game.points == 3
    assert "with your own it gets WA" in game.message
    assert "Fix question 'counter' first" in game.message


def test_the_student_program_still_fails_on_its_own_question(grade_toy: Build) -> None:
    wrong_total = REFERENCE.replace("return counter.value", "return counter.value + 1")
    report = graded(grade_toy, wrong_total)
    verdicts = {r.name: r.verdict for r in report.results}  # type: ignore[attr-defined]
    assert verdicts == {"counts": Verdict.AC, "whole-game": Verdict.WA}


def test_points_per_question_in_every_report_format(grade_toy: Build) -> None:
    report = graded(grade_toy, WRONG_COUNTER)
    data = results_json(report)  # type: ignore[arg-type]
    assert data["extra_data"]["questions"] == [
        {
            "id": "counter",
            "title": "Question 1: the counter",
            "score": 0.0,
            "max_score": 2.0,
            "lost": ["counts"],
        },
        {"id": "game", "title": "Question 2: the game", "score": 3.0, "max_score": 3.0, "lost": []},
    ]
    assert [t["extra_data"]["question"] for t in data["tests"]] == ["counter", "game"]

    xml = junit_xml(report)  # type: ignore[arg-type]
    assert '<property name="question:counter" value="0/2" />' in xml
    assert '<property name="question:game" value="3/3" />' in xml

    out = StringIO()
    print_report(report, Console(file=out, width=120))  # type: ignore[arg-type]
    terminal = out.getvalue()
    assert "Points per question" in terminal
    assert "counter: Question 1: the counter" in terminal and "0/2" in terminal
    assert "counts (WA)" in terminal  # the failed test, with its verdict
    assert terminal.index("Points per question") < terminal.index("Tests") < terminal.index("counts: WA")

    attempt = attempt_from_results("ann", {}, "graded", json.loads(json.dumps(data)), "now")
    page = feedback_html("toy", attempt)
    assert "<tr><td>counter: Question 1: the counter</td><td>0/2</td><td>counts (WA)</td></tr>" in page
    assert "<tr><td>game: Question 2: the game</td><td>3/3</td><td></td></tr>" in page
    assert (
        page.index("Points per question") < page.index("<h2>Tests</h2>") < page.index("<h3>counts: WA</h3>")
    )
