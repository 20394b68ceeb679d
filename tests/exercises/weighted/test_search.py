"""Weighted tic-tac-toe: the reference tree against a plain minimax, and the table's contents."""

from __future__ import annotations

import random
from collections.abc import Iterator
from types import ModuleType

import pytest

from tests.support import exercise_modules

WINDOW = 10001


@pytest.fixture
def weighted() -> Iterator[dict[str, ModuleType]]:
    with exercise_modules("weighted") as modules:
        modules["constants"].configure(3)
        yield modules


def plain_minimax(board: object, depth: int, modules: dict[str, ModuleType]) -> tuple[int, int, int]:
    """(score, row, col) by the textbook recursion: no table, no tree, row-major, strict ties."""
    constants, board_module = modules["constants"], modules["board"]
    if depth == 0 or board.is_finished():
        return board.get_board_score(), -1, -1
    maximizing = board.cur_player == constants.Cell.X
    best = (-(10**9) if maximizing else 10**9, -1, -1)
    size = constants.BOARD_SIZE
    for row in range(size):
        for col in range(size):
            child = board.copy()
            if not child.play(board_module.BoardCoordinate(row, col)):
                continue
            score = plain_minimax(child, depth - 1, modules)[0]
            if score > best[0] if maximizing else score < best[0]:
                best = (score, row, col)
    return best


def random_position(modules: dict[str, ModuleType], rng: random.Random, stones: int) -> object:
    board_module, constants = modules["board"], modules["constants"]
    size = constants.BOARD_SIZE
    while True:
        board = board_module.Board(constants.SCORE_PRESET)
        squares = [(r, c) for r in range(size) for c in range(size)]
        rng.shuffle(squares)
        for row, col in squares[:stones]:
            board.play(board_module.BoardCoordinate(row, col))
        if not board.is_finished():
            return board


def as_tuple(move: object) -> tuple[int, int, int]:
    return move.score, move.coords.row, move.coords.col


def searched(
    modules: dict[str, ModuleType], board: object, depth: int, alpha_beta: bool
) -> tuple[int, int, int]:
    """A search from a fresh tree and an empty table (stored deeper results would be reused)."""
    modules["hashtable"].BoardHashTable.get_instance().clear_table()
    tree = modules["boardtree"].BoardTree(board)
    if alpha_beta:
        return as_tuple(tree.get_optimal_move_alpha_beta(depth, -WINDOW, WINDOW))
    return as_tuple(tree.get_optimal_move(depth))


def test_minimax_and_alpha_beta_match_plain_minimax_3x3(weighted: dict[str, ModuleType]) -> None:
    rng = random.Random(3)
    for _ in range(25):
        board = random_position(weighted, rng, rng.randrange(0, 7))
        depth = rng.randrange(1, 6)
        expected = plain_minimax(board, depth, weighted)
        assert searched(weighted, board, depth, alpha_beta=False) == expected
        assert searched(weighted, board, depth, alpha_beta=True) == expected


def test_minimax_and_alpha_beta_match_plain_minimax_4x4(weighted: dict[str, ModuleType]) -> None:
    weighted["constants"].configure(4)
    rng = random.Random(4)
    for _ in range(6):
        board = random_position(weighted, rng, rng.randrange(6, 11))
        depth = rng.randrange(1, 4)
        expected = plain_minimax(board, depth, weighted)
        assert searched(weighted, board, depth, alpha_beta=False) == expected
        assert searched(weighted, board, depth, alpha_beta=True) == expected


def test_seed_and_docstring_examples(weighted: dict[str, ModuleType]) -> None:
    board_module, constants = weighted["board"], weighted["constants"]
    tree = weighted["boardtree"].BoardTree(board_module.Board(constants.SCORE_PRESET))
    assert as_tuple(tree.get_optimal_move(1)) == (36, 1, 0)
    assert as_tuple(tree.get_optimal_move(2)) == (-4, 1, 0)
    assert tree.get_sub_tree(board_module.BoardCoordinate(1, 1)).board.id == 81


def test_alpha_beta_stores_only_exact_scores(weighted: dict[str, ModuleType]) -> None:
    """Every entry alpha-beta leaves in the table is the true minimax score at that depth."""
    board_module, constants = weighted["board"], weighted["constants"]
    table = weighted["hashtable"].BoardHashTable.get_instance()
    start = board_module.Board(constants.SCORE_PRESET)
    weighted["boardtree"].BoardTree(start).get_optimal_move_alpha_beta(5, -WINDOW, WINDOW)
    checked = 0
    stack = [(start, 5)]
    while stack:  # walk the game tree 5 plies deep, comparing every stored entry
        board, depth = stack.pop()
        stored = table.get_hashed_move(board.id, depth)
        if stored.score != constants.ILLEGAL and depth > 0 and not board.is_finished():
            assert stored.score == plain_minimax(board, depth, weighted)[0]
            checked += 1
        if depth > 0 and not board.is_finished():
            for cell in range(9):
                child = board.copy()
                if child.play(board_module.BoardCoordinate(*divmod(cell, 3))):
                    stack.append((child, depth - 1))
    assert checked > 50


def test_sub_trees_are_built_once_and_kept(weighted: dict[str, ModuleType]) -> None:
    board_module, constants = weighted["board"], weighted["constants"]
    coordinate = board_module.BoardCoordinate
    board = board_module.Board(constants.SCORE_PRESET)
    tree = weighted["boardtree"].BoardTree(board)
    board.play(coordinate(0, 0))  # the tree holds its own copy
    assert tree.board.id == 0
    child = tree.get_sub_tree(coordinate(1, 1))
    assert tree.get_sub_tree(coordinate(1, 1)) is child
    assert child.get_sub_tree(coordinate(1, 1)).is_empty()
    assert child.get_sub_tree(coordinate(-1, 0)).is_empty()
    assert weighted["boardtree"].BoardTree().get_optimal_move(2).score == constants.ILLEGAL
    best = tree.get_optimal_move(3)
    assert tree.get_sub_tree(best.coords).board.id == 3 ** (best.coords.row * 3 + best.coords.col)


def test_minimax_stores_searched_nodes_not_leaves(weighted: dict[str, ModuleType]) -> None:
    """The searched node is in the table; depth-0 leaves are not (no lookup could return them)."""
    board_module, constants = weighted["board"], weighted["constants"]
    table = weighted["hashtable"].BoardHashTable.get_instance()
    board = board_module.Board(constants.SCORE_PRESET)
    board.play(board_module.BoardCoordinate(1, 1))
    weighted["boardtree"].BoardTree(board).get_optimal_move(1)
    assert table.get_hashed_move(81, 1).score == 20 - 5 * 9  # O's best answer: the 9
    assert table.get_hashed_move(81 + 2 * 1, 0).score == constants.ILLEGAL
