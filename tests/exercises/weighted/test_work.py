"""Weighted tic-tac-toe: task 4's efficiency tests (the given probe, the reference's counts)."""

from __future__ import annotations

import doctest
import json
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from grader.judge.compare import allowance
from grader.judge.grade import grade
from grader.judge.mutants import applied, mutants_of
from grader.judge.verdicts import Verdict
from grader.suite.load import load_suite
from tests.support import ROOT, exercise_modules

FIXTURES = ROOT / "fixtures" / "weighted"
WORK_TESTS = ["alpha-beta-work-3x3", "alpha-beta-work-4x4"]


def cases_module() -> Any:
    """fixtures/weighted/cases.py, as the suite loads it."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("weighted_cases", FIXTURES / "cases.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def weighted() -> Iterator[dict[str, ModuleType]]:
    with exercise_modules("weighted") as modules:
        yield modules


def tree_for(modules: dict[str, ModuleType], size: int, moves: list[tuple[int, int]]) -> Any:
    """A fresh tree for the position after `moves` on a freshly configured board of `size`."""
    constants, board_module = modules["constants"], modules["board"]
    constants.configure(size)
    board = board_module.Board(constants.SCORE_PRESET)
    for row, col in moves:
        board.play(board_module.BoardCoordinate(row, col))
    return modules["boardtree"].BoardTree(board)


def searched(modules: dict[str, ModuleType], size: int, moves: list[tuple[int, int]], depth: int) -> int:
    count: int = modules["probe"].searches(tree_for(modules, size, moves), depth)
    return count


def test_a_plain_solution_searches_the_references_positions() -> None:
    """solutions/plain-student follows the stub's steps with its own board, table and tree."""
    from bench.weighted_work import measure

    plain = FIXTURES / "solutions" / "plain-student"
    assert [count for count, _ in measure(over=plain)] == [count for count, _ in measure()]


def test_the_recorded_expectations_are_the_references_counts() -> None:
    """Each search's expectation is a count the grader compares (`at_most`), then True."""
    for name in WORK_TESTS:
        steps = json.loads((FIXTURES / "expected" / f"{name}.json").read_text())["steps"]
        counts = [step["value"] for step in steps if step["call"] == "probe.positions_searched"]
        asked = [step["value"] for step in steps if step["call"] == "probe.asked_the_table"]
        assert counts and all(type(count) is int and count > 0 for count in counts)
        assert asked == [True] * len(counts)


def test_docstring_examples_of_the_probe(weighted: dict[str, ModuleType]) -> None:
    failed, attempted = doctest.testmod(weighted["probe"])
    assert (failed, attempted > 0) == (0, True)


def test_probe_reads_finished_games_from_ids(weighted: dict[str, ModuleType]) -> None:
    probe = weighted["probe"]
    assert probe.finished(sum(3**cell for cell in (2, 4, 6)), 3)  # X's anti-diagonal
    assert probe.finished(sum(2 * 3**cell for cell in (3, 6, 9, 12)), 4)  # O's, on 4x4
    assert probe.finished(sum(3**cell for cell in (1, 5, 9, 13)), 4)  # X's second column
    assert not probe.finished(sum(3**cell for cell in (0, 5, 10)), 4)  # 3 of 4 on a diagonal
    assert not probe.finished(sum(3**cell for cell in (2, 4, 6)), 4)  # no line on 4x4


def test_probe_skips_depth_zero_finished_and_repeated_lookups(weighted: dict[str, ModuleType]) -> None:
    """Asking twice in a row, about leaves or about a finished game is not searching a position."""
    weighted["constants"].configure(3)
    table_class = weighted["hashtable"].BoardHashTable
    honest = table_class.get_hashed_move

    class Asking:
        """A search that only asks the table, as a student's search might."""

        def get_optimal_move_alpha_beta(self, depth: int, alpha: int, beta: int) -> None:
            table = table_class.get_instance()
            table.get_hashed_move(81, depth)  # searched
            table.get_hashed_move(81, depth)  # the same, asked again at once
            table.get_hashed_move(82, 0)  # a leaf
            table.get_hashed_move(1 + 3 + 9, depth - 1)  # X's top row: finished
            table.get_hashed_move(3**9 - 1, depth - 1)  # a full board
            table.get_hashed_move(id=83, depth=depth - 1)  # searched
            table.get_hashed_move(81, depth)  # searched again, after another position

    assert weighted["probe"].searches(Asking(), 3) == 3
    assert table_class.get_hashed_move is honest


@pytest.mark.bwrap
@pytest.mark.parametrize(
    ("mutant_name", "message"),
    [
        (
            "late-cut",
            r"positions alpha-beta searched \(table lookups\) {depth} moves deep from "
            r"{moves} returned (\d+), expected at most {at_most} \(the reference's "
            r"{reference} \+ 20%\)",
        ),
        (
            "no-table",
            r"whether alpha-beta {depth} moves deep from {moves} looked positions up in the "
            r"transposition table returned False, expected True",
        ),
    ],
)
def test_student_like_mutants_fail_the_efficiency_tests(mutant_name: str, message: str) -> None:
    """Right moves, so the other task-4 tests pass; the first efficiency search says what it counted."""
    loaded = load_suite("weighted")
    (mutant,) = [m for m in mutants_of(loaded.exercise) if m.path.stem == mutant_name]
    with applied(mutant, loaded.exercise.reference) as folder:
        report = grade(
            loaded,
            Path(folder),
            names=[*WORK_TESTS, "alpha-beta-3x3", "task4-3-9"],
            overlay=loaded.exercise.reference,
        )
    verdicts = {result.name: result.verdict for result in report.results}
    assert verdicts == {
        "alpha-beta-3x3": Verdict.AC,
        "task4-3-9": Verdict.AC,
        "alpha-beta-work-3x3": Verdict.WA,
        "alpha-beta-work-4x4": Verdict.WA,
    }
    cases = cases_module()
    moves, (depth, *_) = cases.WORK_POSITIONS[3][0]
    recorded = json.loads((FIXTURES / "expected" / "alpha-beta-work-3x3.json").read_text())
    reference = recorded["steps"][0]["value"]
    most = allowance(reference, cases.WORK_MARGIN)
    first = next(result for result in report.results if result.name == "alpha-beta-work-3x3")
    said = re.fullmatch(
        message.format(depth=depth, moves=re.escape(str(moves)), at_most=most, reference=reference),
        first.message,
    )
    assert said is not None, first.message
    if said.groups():
        assert int(said.group(1)) > most
