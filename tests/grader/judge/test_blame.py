"""Blame by evidence: the student's code as written decides, the reference can only forgive, a
passing test runs once, and a whole-program test never charges a bug its question already did."""

from __future__ import annotations

from typing import Any

import pytest

from grader.judge.testrun import Grader
from grader.judge.verdicts import Verdict
from grader.report.reports import results_json
from tests.conftest import Build

# `Table` (question `table`) keeps its cells; `best` (question `search`) reads a table.
SUITE = """\
exercise: toy
submit: [toy.py]
questions:
  - {id: search, title: Search}
  - {id: table, title: Table}
tests:
  - name: best
    question: search
    steps:
      - {call: toy.Table, args: [[3, 9, 4]], let: t}
      - {call: toy.best, args: [{$ref: t}]}
    reference_helpers: {toy.Table: table}
  - name: cells
    question: table
    steps:
      - {call: toy.Table, args: [[3, 9, 4]], let: t}
      - {call: t.cell, args: [1]}
"""

REFERENCE = """\
class Table:
    def __init__(self, cells):
        self.values = list(cells)

    def cell(self, i):
        return self.values[i]

    def size(self):
        return len(self.values)


def best(table):
    return max(range(table.size()), key=table.cell)
"""

# An honest solution whose search reads its own table's private list, which the reference's
# `Table` does not have: graded swap-first, `best` was an RTE.
OWN_INTERNALS = """\
class Table:
    def __init__(self, cells):
        self._cells = list(cells)

    def cell(self, i):
        return self._cells[i]

    def size(self):
        return len(self._cells)


def best(table):
    cells = table._cells
    return cells.index(max(cells))
"""

WRONG_TABLE = REFERENCE.replace("return self.values[i]", "return -self.values[i]")
WRONG_BEST = REFERENCE.replace("key=table.cell)", "key=lambda i: -table.cell(i))")


def verdicts(report: Any) -> dict[str, Verdict]:
    return {r.name: r.verdict for r in report.results}


def test_honest_code_using_its_own_private_attributes_gets_full_marks(grade_toy: Build) -> None:
    report = grade_toy(SUITE, REFERENCE, OWN_INTERNALS)
    assert verdicts(report) == {"best": Verdict.AC, "cells": Verdict.AC}
    assert report.score == report.max_score


def test_a_wrong_helper_is_forgiven_by_the_reference_and_charged_once(grade_toy: Build) -> None:
    report = grade_toy(SUITE, REFERENCE, WRONG_TABLE)
    assert verdicts(report) == {"best": Verdict.AC, "cells": Verdict.WA}
    best = report.results[0]
    assert best.points == best.max_points
    # `cells` is graded after `best` in the suite, yet it ran first: the advice names it as failed
    assert "Passed with the reference's toy.Table; with your own it gets WA" in best.message
    assert "Fix question 'table' first" in best.message
    assert [q.points for q in report.questions] == [1.0, 0.0]


def test_a_failure_of_its_own_is_charged_to_its_question(grade_toy: Build) -> None:
    report = grade_toy(SUITE, REFERENCE, WRONG_BEST)
    assert verdicts(report) == {"best": Verdict.WA, "cells": Verdict.AC}
    assert "reference" not in report.results[0].message  # no helper failed: no second run


def test_failing_both_ways_keeps_the_own_codes_verdict_and_says_so(grade_toy: Build) -> None:
    both = WRONG_TABLE.replace("return max(range(table.size()), key=table.cell)", "return 0")
    report = grade_toy(SUITE, REFERENCE, both)
    assert verdicts(report) == {"best": Verdict.WA, "cells": Verdict.WA}
    assert "With the reference's toy.Table it fails as well (WA)" in report.results[0].message


def test_a_swap_the_students_code_cannot_run_under_is_not_what_is_judged(grade_toy: Build) -> None:
    """Own internals plus a wrong table: the reference's table has no `_cells`, so the second run
    is an RTE; the verdict stays the one of the student's own code, and the message says both."""
    student = OWN_INTERNALS.replace(
        "self._cells = list(cells)", "self._cells = list(cells[1:]) + list(cells[:1])"
    )
    report = grade_toy(SUITE, REFERENCE, student)
    best = report.results[0]
    assert best.verdict is Verdict.WA, best.message
    assert "it fails as well (RTE)" in best.message


def test_a_passing_test_runs_once(grade_toy: Build, monkeypatch: pytest.MonkeyPatch) -> None:
    grade_toy(SUITE, REFERENCE, REFERENCE)
    runs: list[tuple[str, tuple[str, ...]]] = []
    original = Grader.grade_test

    def counted(self: Grader, test: Any, swapped: Any = ()) -> Any:
        runs.append((test.name, tuple(swapped)))
        return original(self, test, swapped)

    monkeypatch.setattr(Grader, "grade_test", counted)
    report = grade_toy(SUITE, REFERENCE, OWN_INTERNALS)
    assert sorted(runs) == [("best", ()), ("cells", ())]
    cost = results_json(report)["extra_data"]["cost"]
    assert cost["runs_cpu_s"] == pytest.approx(cost["tests_cpu_s"], abs=0.01)
    assert cost["grading_cpu_s"] >= cost["runs_cpu_s"] > 0

    runs.clear()
    grade_toy(SUITE, REFERENCE, WRONG_TABLE)
    assert sorted(runs) == [("best", ()), ("best", ("toy.Table",)), ("cells", ())]


INTEGRATION_SUITE = (
    SUITE.replace(
        "  - {id: table, title: Table}\n",
        "  - {id: table, title: Table}\n  - {id: program, title: Program, integration: true}\n",
    )
    + """\
  - name: whole-program
    question: program
    given: []
    transcript: {driver: play, expected: play.out.txt}
""".replace("    given: []\n", "")
)

PLAY = """\
import toy

table = toy.Table([3, 9, 4])
print(toy.best(table), table.cell(0), table.size())
"""


def with_driver(suite: str) -> str:
    return suite.replace("submit: [toy.py]\n", "submit: [toy.py]\ngiven: [play.py]\n")


def test_a_whole_program_never_charges_a_bug_its_question_charged(grade_toy: Build) -> None:
    report = grade_toy(with_driver(INTEGRATION_SUITE), REFERENCE, WRONG_TABLE, given={"play.py": PLAY})
    assert verdicts(report) == {"best": Verdict.AC, "cells": Verdict.WA, "whole-program": Verdict.AC}
    assert "Fix question 'table' first" in report.results[2].message


def test_a_whole_program_charges_a_bug_no_question_saw(grade_toy: Build) -> None:
    no_size = REFERENCE.replace("return len(self.values)", "return len(self.values) + 1").replace(
        "range(table.size())", "range(len(table.values))"
    )
    report = grade_toy(with_driver(INTEGRATION_SUITE), REFERENCE, no_size, given={"play.py": PLAY})
    assert verdicts(report) == {"best": Verdict.AC, "cells": Verdict.AC, "whole-program": Verdict.WA}


def test_a_stubs_whole_program_is_not_forgiven(grade_toy: Build) -> None:
    stub = (
        "class Table:\n    def __init__(self, cells):\n        raise NotImplementedError\n\n"
        "    def cell(self, i):\n        raise NotImplementedError\n\n"
        "def best(table):\n    raise NotImplementedError\n"
    )
    report = grade_toy(with_driver(INTEGRATION_SUITE), REFERENCE, stub, given={"play.py": PLAY})
    assert verdicts(report) == {"best": Verdict.NI, "cells": Verdict.NI, "whole-program": Verdict.NI}


def test_a_whole_program_forgives_one_questions_bug_not_two(grade_toy: Build) -> None:
    """A stub with one function done must not earn the whole program's points: with two
    questions failing, the program's failure stands."""
    two_wrong = WRONG_TABLE.replace("return max(range(table.size()), key=table.cell)", "return 0")
    report = grade_toy(with_driver(INTEGRATION_SUITE), REFERENCE, two_wrong, given={"play.py": PLAY})
    assert verdicts(report) == {"best": Verdict.WA, "cells": Verdict.WA, "whole-program": Verdict.WA}


def test_nothing_of_the_second_run_reaches_the_student(grade_toy: Build) -> None:
    """The second run holds the reference's code: a submission that prints it, returns it or
    raises it there shows none of it, passing or failing."""
    leaky = (
        OWN_INTERNALS.replace("return self._cells[i]", "return -self._cells[i]")
        .replace(
            "def best(table):\n    cells = table._cells\n    return cells.index(max(cells))\n",
            REFERENCE[REFERENCE.index("def best") :],
        )
        .replace(
            "def best(table):\n",
            """def best(table):
    if hasattr(table, "values"):  # the reference's Table: carry it out any way it can
        print("LEAKED-BY-PRINT", sorted(vars(type(table))))
        raise ValueError("LEAKED-BY-RAISE " + repr(sorted(vars(type(table)))))
""",
        )
    )
    report = grade_toy(SUITE, REFERENCE, leaky)
    best = report.results[0]
    assert best.verdict is Verdict.WA, (best.message, best.stdout)
    shown = results_json(report)["tests"][0]["output"] + (best.stdout or "") + best.message
    assert "LEAKED" not in shown and "it fails as well (RTE)" in shown
    honest_printer = WRONG_TABLE.replace(
        "def best(table):\n",
        """def best(table):
    if table.cell(1) == 9:  # the reference's Table (the student's negates)
        print("LEAKED-BY-PRINT", sorted(vars(type(table))))
""",
    )
    report = grade_toy(SUITE, REFERENCE, honest_printer)
    best = report.results[0]
    assert best.verdict is Verdict.AC and "Passed with the reference's toy.Table" in best.message
    assert "LEAKED" not in results_json(report)["tests"][0]["output"] + (best.stdout or "")


def test_a_regrade_of_one_test_blames_as_the_full_grading_did(grade_toy: Build, project: Any) -> None:
    """The table's `size` is wrong, which its own test does not see: the full grading charges
    `best`. A regrade of `best` alone, given the last grading's verdicts, does the same (without
    them the table's question is ungraded, so suspect, and `best` would be forgiven)."""
    from grader.judge.grade import grade
    from grader.suite.load import load_suite

    undetected = REFERENCE.replace("return len(self.values)", "return 1")
    full = grade_toy(SUITE, REFERENCE, undetected)
    assert verdicts(full) == {"best": Verdict.WA, "cells": Verdict.AC}
    prior = {result.name: result.verdict.value for result in full.results}
    again = grade(load_suite("toy"), project / "student", names=["best"], sandbox="process", prior=prior)
    assert verdicts(again) == {"best": Verdict.WA}
    blind = grade(load_suite("toy"), project / "student", names=["best"], sandbox="process")
    assert verdicts(blind) == {"best": Verdict.AC}
