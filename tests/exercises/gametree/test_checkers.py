"""fixtures/gametree/checkers.py: best-move's checker accepts every best move and nothing else
(issue 33), whatever shape the answer takes."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from tests.support import ROOT, exercise_modules

TOP = 2**62 - 1
EMPTY_3X3 = [3, 3, 3, 0, 0, 0]
MIXED = [3, 3, 3, 1, 4, 2]
"""X, who is up, holds (0, 0) and O (0, 2): offsets 4, 8 and 10 win for X, 5, 6 and 9 draw, and 1
loses (found with the checker's own search, which test_its_values_are_the_references checks)."""


def load_checkers() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gametree_checkers", ROOT / "fixtures/gametree/checkers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


checkers = load_checkers()


@pytest.fixture(scope="module")
def modules() -> Iterator[dict[str, ModuleType]]:
    with exercise_modules("gametree") as found:
        yield found


@pytest.mark.parametrize(
    "w, h, k", [(w, h, k) for w in range(1, 4) for h in range(1, 4) for k in range(1, 4)]
)
def test_its_values_are_the_references(modules: dict[str, ModuleType], w: int, h: int, k: int) -> None:
    assert checkers.value(w, h, k, 0, 0) == modules["tictactoe"].solve(w, h, k)


def test_every_first_move_of_tic_tac_toe_draws_so_each_is_right() -> None:
    for move in (0, 1, 2, 4, 5, 6, 8, 9, 10):
        assert checkers.optimal_move([EMPTY_3X3, -TOP, TOP], move) == ("AC", "")


def test_a_legal_but_worse_move_is_wa_with_its_value() -> None:
    for winning in (4, 8, 10):
        assert checkers.optimal_move([MIXED, -TOP, TOP], winning) == ("AC", "")
    verdict, message = checkers.optimal_move([MIXED, -TOP, TOP], 5)
    assert verdict == "WA"
    assert message == "the move 5, square (1, 1), is worth 0 to the player who is up, a best move 1"
    verdict, message = checkers.optimal_move([MIXED, -TOP, TOP], 1)
    assert (verdict, "worth -1" in message) == ("WA", True)


def test_in_a_narrowed_window_every_move_beyond_it_is_as_good() -> None:
    """Up to (alpha, beta)-equivalence: in (-1, 0) a draw is as good as a win, not a loss."""
    for move in (4, 5, 6, 8, 9, 10):
        assert checkers.optimal_move([MIXED, -1, 0], move) == ("AC", "")
    verdict, message = checkers.optimal_move([MIXED, -1, 0], 1)
    assert verdict == "WA"
    assert message.endswith("(in the window (-1, 0))")


def test_a_finished_game_has_no_move() -> None:
    won = [3, 3, 3, 2 + 4, 273, 5]
    assert checkers.optimal_move([won, -TOP, TOP], None) == ("AC", "")
    assert checkers.optimal_move([won, -TOP, TOP], 5)[0] == "WA"


@pytest.mark.parametrize(
    "answer",
    [None, True, 3, 12, -1, 2, 4.0, "4", [4], {"move": 4}, {"$set": [4]}, [[[[]]]], 10**400],
    ids=repr,
)
def test_anything_but_a_free_square_is_wa_never_an_error(answer: Any) -> None:
    """3 and 12 are the extra row and column, 2 is taken; True is not an int here."""
    verdict, message = checkers.optimal_move([MIXED, -TOP, TOP], answer)
    assert verdict == "WA"
    assert "not a free square" in message or "no move" in message
    assert len(message) < 200


def test_the_probe_plays_the_first_best_rated_move(modules: dict[str, ModuleType]) -> None:
    best_move = modules["probes"].best_move
    assert best_move(MIXED, -TOP, TOP) == 4
    assert best_move(MIXED, 0, 1) == 4
    assert best_move([3, 3, 3, 2 + 4, 273, 5], -TOP, TOP) is None
