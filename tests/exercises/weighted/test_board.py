"""Weighted tic-tac-toe: the reference Board, the hash table and the given constants module."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import pytest

from tests.support import exercise_modules

PRESET_3 = [[4, 3, 8], [9, 5, 1], [2, 7, 6]]


@pytest.fixture
def weighted() -> Iterator[dict[str, ModuleType]]:
    with exercise_modules("weighted") as modules:
        modules["constants"].configure(3)
        yield modules


def play(modules: dict[str, ModuleType], moves: list[tuple[int, int]], size: int = 3) -> object:
    board_module, constants = modules["board"], modules["constants"]
    board = board_module.Board(constants.SCORE_PRESET)
    for row, col in moves:
        assert board.play(board_module.BoardCoordinate(row, col))
    return board


def test_configure_switches_every_value_and_reloads(weighted: dict[str, ModuleType]) -> None:
    constants = weighted["constants"]
    constants.configure(4)
    assert (constants.BOARD_SIZE, constants.TABLE_SIZE, constants.DEPTH_PRESET) == (4, 200009, 7)
    assert constants.SCORE_PRESET[3] == [16, 2, 3, 13]
    assert weighted["board"].SIZE == 4  # board.py was re-imported with the new size
    assert constants.get_cell_weight(constants.Cell.X) == 8
    assert constants.get_cell_weight(constants.Cell.O) == 8
    constants.configure(3)
    weights = [constants.get_cell_weight(cell) for cell in (constants.Cell.X, constants.Cell.O)]
    assert weights == [4, 5]
    with pytest.raises(ValueError):
        constants.configure(5)


def test_configure_refreshes_copied_names() -> None:
    """A student's `from constants import BOARD_SIZE` at the top is refreshed by configure()."""
    with exercise_modules("weighted") as modules:
        constants = modules["constants"]
        constants.configure(4)
        assert modules["hashtable"].BoardHashTable.get_instance()._size == 200009


def test_format_grid(weighted: dict[str, ModuleType]) -> None:
    text = weighted["constants"].format_grid(PRESET_3)
    assert text.splitlines() == [
        "=" * 13,
        "| 4 | 3 | 8 |",
        "=" * 13,
        "| 9 | 5 | 1 |",
        "=" * 13,
        "| 2 | 7 | 6 |",
        "=" * 13,
    ]


def test_ids_and_scores_3x3(weighted: dict[str, ModuleType]) -> None:
    board = play(weighted, [(0, 0)])
    assert (board.id, board.get_board_score(), str(board.cur_player)) == (1, 16, "O")
    assert weighted["board"].Board.play(board, weighted["board"].BoardCoordinate(1, 1))
    assert (board.id, board.get_board_score()) == (1 + 2 * 81, 16 - 25)


def test_ids_use_the_board_size(weighted: dict[str, ModuleType]) -> None:
    weighted["constants"].configure(4)
    board = play(weighted, [(1, 0), (3, 3)])
    assert board.id == 3**4 + 2 * 3**15
    assert board.get_board_score() == 9 * 8 - 13 * 8


@pytest.mark.parametrize(
    ("moves", "score"),
    [
        ([(1, 1), (0, 0), (2, 0), (2, 1), (2, 2)], -3),
        ([(0, 2), (0, 1), (1, 2), (1, 0), (2, 2)], 10000),
        ([(0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (1, 1), (2, 0), (2, 2), (2, 1)], -27),
        ([(0, 0), (0, 2), (0, 1), (1, 1), (2, 2), (2, 0)], -10000),  # O's anti-diagonal
    ],
)
def test_seed_score_examples(
    weighted: dict[str, ModuleType], moves: list[tuple[int, int]], score: int
) -> None:
    board = play(weighted, moves)
    assert board.get_board_score() == score
    assert board.is_finished() == (abs(score) == 10000 or len(moves) == 9)


def test_anti_diagonal_on_4x4(weighted: dict[str, ModuleType]) -> None:
    weighted["constants"].configure(4)
    board = play(weighted, [(0, 3), (0, 0), (1, 2), (1, 1), (2, 1), (2, 2)])
    assert not board.is_finished()
    assert board.play(weighted["board"].BoardCoordinate(3, 0))
    assert board.get_board_score() == 10000 and board.is_finished() and not board.is_full()


def test_rejected_moves_change_nothing(weighted: dict[str, ModuleType]) -> None:
    coordinate = weighted["board"].BoardCoordinate
    board = play(weighted, [(1, 1)])
    for row, col in [(1, 1), (3, 0), (0, -1)]:
        assert not board.play(coordinate(row, col))
    assert (board.id, str(board.cur_player), board.get_board_score()) == (81, "O", 20)


def test_copy_is_independent(weighted: dict[str, ModuleType]) -> None:
    board = play(weighted, [(1, 1)])
    twin = board.copy()
    assert twin.play(weighted["board"].BoardCoordinate(0, 0))
    assert (board.id, twin.id) == (81, 83)
    assert str(board) != str(twin)


def test_moves_preview_matches_play(weighted: dict[str, ModuleType]) -> None:
    """Board.moves() (the search's shortcut) agrees with play() on every square."""
    board_module = weighted["board"]
    board = play(weighted, [(1, 1), (0, 0), (0, 2), (2, 0), (1, 0)])
    for cell, child_id, score, finished in board.moves():
        child = board.copy()
        assert child.play(board_module.COORDS[cell])
        assert (child.id, child.get_board_score(), child.is_finished()) == (child_id, score, finished)


def test_str_draws_the_board(weighted: dict[str, ModuleType]) -> None:
    board = play(weighted, [(0, 0), (1, 1)])
    assert str(board).splitlines()[1:4:2] == ["| X |   |   |", "|   | O |   |"]


def test_hash_table_seed_examples(weighted: dict[str, ModuleType]) -> None:
    board_module, table_class = weighted["board"], weighted["hashtable"].BoardHashTable
    table = table_class.get_instance()
    assert table is table_class.get_instance()
    found = board_module.BoardOptimalMove(-3, board_module.BoardCoordinate(2, 1))
    table.update_table(1920, 4, found)
    table.update_table(200, 1, found)  # bucket 99
    illegal = board_module.BoardOptimalMove()
    assert table.get_hashed_move(306, 3) == illegal
    assert table.get_hashed_move(402, 3) == illegal
    assert table.get_hashed_move(1920, 4) == found == table.get_hashed_move(1920, 3)
    assert table.get_hashed_move(1920, 5) == illegal


def test_hash_table_chains_and_updates(weighted: dict[str, ModuleType]) -> None:
    board_module = weighted["board"]
    table = weighted["hashtable"].BoardHashTable.get_instance()

    def move(score: int) -> object:
        return board_module.BoardOptimalMove(score, board_module.BoardCoordinate(0, 0))

    for id, depth in ((5, 1), (106, 2), (207, 3)):
        table.update_table(id, depth, move(id))
    assert table.chain(5) == [207, 106, 5]
    table.update_table(106, 4, move(1))  # deeper: replaced in place
    table.update_table(207, 1, move(2))  # shallower: ignored
    assert table.chain(5) == [207, 106, 5]
    assert table.get_hashed_move(106, 4).score == 1
    assert table.get_hashed_move(207, 3).score == 207
    table.clear_table()
    assert table.chain(5) == [] and table.get_hashed_move(5, 0).score == 20000
