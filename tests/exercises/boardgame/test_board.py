"""The boardgame reference Board, checked against an independent brute-force line finder."""

from __future__ import annotations

import random
from collections.abc import Iterator
from types import ModuleType

import pytest

from tests.support import exercise_modules

STEPS = ((0, 1), (1, 0), (1, 1), (1, -1))


@pytest.fixture(scope="module")
def modules() -> Iterator[dict[str, ModuleType]]:
    with exercise_modules("boardgame") as loaded:
        yield loaded


def brute_wins(grid: list[str], k: int, symbol: str) -> bool:
    """k adjacent `symbol`s in some direction, tried from every square."""
    rows, cols = len(grid), len(grid[0])
    return any(
        all(
            0 <= r + dr * i < rows and 0 <= c + dc * i < cols and grid[r + dr * i][c + dc * i] == symbol
            for i in range(k)
        )
        for r in range(rows)
        for c in range(cols)
        for dr, dc in STEPS
    )


def test_docstring_example(modules: dict[str, ModuleType]) -> None:
    grid = ["gggdg", "gbogg", "gobgg", "oggbg"]
    board = modules["board"].Board(4, 5, 3, 4, grid)
    assert board.wins("b") and board.wins("o")
    board4 = modules["board"].Board(4, 5, 4, 4, grid)
    assert not board4.wins("b") and not board4.wins("o")
    assert board.config() == "".join(grid)
    assert repr(board) == "Board(4, 5, 3, 4, ['gggdg', 'gbogg', 'gobgg', 'oggbg'])"


def test_wins_matches_brute_force(modules: dict[str, ModuleType]) -> None:
    rng = random.Random(3)
    for _ in range(400):
        rows, cols = rng.randint(1, 6), rng.randint(1, 6)
        k = rng.randint(1, max(rows, cols))
        grid = ["".join(rng.choice("obdgg") for _ in range(cols)) for _ in range(rows)]
        board = modules["board"].Board(rows, cols, k, 3, grid)
        for symbol in "ob":
            assert board.wins(symbol) == brute_wins(grid, k, symbol), (grid, k, symbol)


def test_blocked_square_breaks_a_line(modules: dict[str, ModuleType]) -> None:
    board = modules["board"].Board(1, 6, 3, 2, ["oodoog"])
    assert not board.wins("o")
    board.store_play(0, 5, "o")
    assert board.wins("o")


def test_lines_do_not_wrap_around(modules: dict[str, ModuleType]) -> None:
    board_type = modules["board"].Board
    assert not board_type(2, 3, 3, 2, ["ggb", "bbg"]).wins("b")
    assert not board_type(3, 2, 3, 2, ["go", "gg", "og"]).wins("o")
    assert not board_type(3, 3, 3, 2, ["gbg", "bgg", "ggb"]).wins("b")


def test_outcomes(modules: dict[str, ModuleType]) -> None:
    board_type, symbols = modules["board"].Board, modules["symbols"]
    drawn = board_type(3, 3, 3, 2, ["obo", "odb", "bob"])
    assert drawn.is_draw() and drawn.eval_board() == symbols.DRAW
    computer = board_type(3, 3, 3, 2, ["ooo", "bdb", "bgg"])
    assert computer.eval_board() == symbols.COMPUTER_WINS and not computer.is_draw()
    human = board_type(3, 3, 3, 2, ["bob", "obo", "bob"])
    assert human.eval_board() == symbols.HUMAN_WINS and not human.is_draw()
    open_board = board_type(3, 3, 3, 2, ["ggg", "gdg", "ggg"])
    assert open_board.eval_board() == symbols.UNDECIDED and not open_board.is_draw()
    blocked = board_type(2, 3, 2, 2, ["ddd", "ddd"])
    assert blocked.is_draw() and blocked.eval_board() == symbols.DRAW


def test_plays_and_configurations(modules: dict[str, ModuleType]) -> None:
    board = modules["board"].Board(3, 3, 3, 4, ["ggg", "gdg", "ggg"])
    assert board.square_is_empty(0, 0) and not board.square_is_empty(1, 1)
    board.store_play(0, 0, "o")
    board.store_play(1, 0, "b")
    assert board.config() == "oggbdgggg"
    assert not board.square_is_empty(0, 0)
    board.store_play(0, 0, "g")
    assert board.square_is_empty(0, 0) and board.config() == "gggbdgggg"


def test_repeated_and_insert_config(modules: dict[str, ModuleType]) -> None:
    board = modules["board"].Board(3, 4, 3, 6, ["gggg", "gdgg", "gggg"])
    table = modules["dictionary"].Dictionary(101)
    assert board.repeated_config(table) is None
    board.store_play(0, 0, "o")
    board.insert_config(table, 3, 5)
    found = board.repeated_config(table)
    assert (found.config, found.score, found.level) == ("oggg" + "gdgg" + "gggg", 3, 5)
    board.store_play(0, 0, "g")
    assert board.repeated_config(table) is None
    assert table.num_items() == 1
