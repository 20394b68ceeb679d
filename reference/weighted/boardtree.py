"""Reference: the search tree, minimax and alpha-beta with the transposition table.

A node keeps its board and, once it has been searched, one slot per square for its children.
Children are built on demand, and only those that get searched below: a child that is a leaf
(depth 0 or a finished game) or a hit in the table is scored from `Board.moves()` and stays
unbuilt until `get_sub_tree` asks for it. The results are those of the course's algorithm.

Leaves (depth 0) are not stored in the table: every lookup asks for a depth of at least 1, so a
depth-0 entry could never be returned; storing them, as the course's pseudocode does, changes no
output and costs a third of the time of the 4x4 depth-7 games.

Alpha-beta reads the table like minimax but stores only exact scores (strictly inside the
window it was given): a score from a cut-off is a bound, and storing it would change later
moves. With that rule task 4 prints the game of task 2, as the course's fixtures do.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, cast

import constants
from board import Board, BoardCoordinate, BoardOptimalMove
from constants import ILLEGAL, Cell
from hashtable import BoardHashTable


class Previewing(Protocol):
    """The reference Board's extra: every legal move's (cell, id, score, finished) at once."""

    def moves(self) -> Iterator[tuple[int, int, int, bool]]: ...


class Growing(Protocol):
    """The reference Board's other extra: the board after a legal move, made without checks."""

    def child(self, cell: int) -> Board: ...


SIZE = constants.BOARD_SIZE  # this module is re-imported by constants.configure()
COORDS = tuple(BoardCoordinate(*divmod(cell, SIZE)) for cell in range(SIZE * SIZE))

ILLEGAL_MOVE = BoardOptimalMove()
ANYWHERE = BoardCoordinate(-1, -1)  # the coordinates stored with a leaf's score: never read
LEAVES: dict[int, BoardOptimalMove] = {}  # one shared leaf move per score


def leaf_move(score: int) -> BoardOptimalMove:
    """The move stored for a leaf of this score (moves are immutable, so one per score)."""
    move = LEAVES.get(score)
    if move is None:
        move = LEAVES[score] = BoardOptimalMove(score, ANYWHERE)
    return move


INFINITY = 1 << 30


class BoardTree:
    """A search tree node (or an empty tree) for one board position."""

    __slots__ = ("_board", "_children")

    def __init__(self, board: Board | None = None) -> None:
        """A one-node tree holding a copy of `board`, or an empty tree without one."""
        self._board = None if board is None else board.copy()
        self._children: list[BoardTree | None] | None = None

    @property
    def board(self) -> Board | None:
        """The position at the root (None for an empty tree)."""
        return self._board

    def is_empty(self) -> bool:
        """True for a tree without a root."""
        return self._board is None

    def get_sub_tree(self, coords: BoardCoordinate) -> BoardTree:
        """The child reached by playing `coords`, built if needed; empty if the move is illegal."""
        if self._board is None or not coords.is_valid():
            return BoardTree()
        cell = coords.row * SIZE + coords.col
        if self._children is not None:
            child = self._children[cell]
            if child is not None:
                return child
        return self._build(cell, coords)

    def _build(self, cell: int, coords: BoardCoordinate) -> BoardTree:
        """Build and keep the child for square `cell`; an empty tree if the move is illegal."""
        assert self._board is not None
        child = BoardTree()
        board = self._board.copy()
        if board.play(coords):
            child._board = board
            children = self._children
            if children is None:
                children = self._children = [None] * (SIZE * SIZE)
            children[cell] = child
        return child

    def _grow(self, cell: int) -> BoardTree:
        """Build and keep the child for square `cell`, a move the search knows to be legal."""
        child = BoardTree.__new__(BoardTree)
        child._board = cast(Growing, self._board).child(cell)
        child._children = None
        children = self._children
        if children is None:
            children = self._children = [None] * (SIZE * SIZE)
        children[cell] = child
        return child

    def get_optimal_move(self, depth: int) -> BoardOptimalMove:
        """Minimax `depth` moves ahead, with the transposition table."""
        board = self._board
        if board is None:
            return ILLEGAL_MOVE
        table = BoardHashTable.get_instance()
        if depth == 0 or board.is_finished():
            leaf = leaf_move(board.get_board_score())
            table.update_table(board.id, depth, leaf)
            return leaf
        hashed = table.get_hashed_move(board.id, depth)
        if hashed.score != ILLEGAL:
            return hashed
        return self._minimax(board, depth, table)

    def _minimax(self, board: Board, depth: int, table: BoardHashTable) -> BoardOptimalMove:
        """Step 4 and 5 of minimax: `board` is this node's, unfinished, not in the table."""
        store, leaves = table.update_table, LEAVES
        maximizing = board.cur_player is Cell.X
        best_score = -INFINITY if maximizing else INFINITY
        best_cell = -1
        children = self._children
        below = depth - 1
        if below == 0 and children is None:  # the most frequent case: every child is a leaf
            if maximizing:
                for cell, _, score, _ in cast(Previewing, board).moves():
                    if score > best_score:
                        best_score, best_cell = score, cell
            else:
                for cell, _, score, _ in cast(Previewing, board).moves():
                    if score < best_score:
                        best_score, best_cell = score, cell
            best = BoardOptimalMove(best_score, COORDS[best_cell])
            store(board.id, depth, best)
            return best
        lookup = table.get_hashed_move
        for cell, child_id, score, finished in cast(Previewing, board).moves():
            child = None if children is None else children[cell]
            if child is not None:
                score = child.get_optimal_move(below).score
            elif below == 0 or finished:
                store(child_id, below, leaves.get(score) or leaf_move(score))
            else:
                score = lookup(child_id, below).score
                if score == ILLEGAL:
                    child = self._grow(cell)
                    score = child._minimax(cast(Board, child._board), below, table).score
                    children = self._children
            if score > best_score if maximizing else score < best_score:
                best_score, best_cell = score, cell
        best = BoardOptimalMove(best_score, COORDS[best_cell]) if best_cell >= 0 else ILLEGAL_MOVE
        store(board.id, depth, best)
        return best

    def get_optimal_move_alpha_beta(self, depth: int, alpha: int, beta: int) -> BoardOptimalMove:
        """Minimax with alpha-beta pruning; the table keeps only exact results (alpha < s < beta)."""
        board = self._board
        if board is None:
            return ILLEGAL_MOVE
        table = BoardHashTable.get_instance()
        if depth == 0 or board.is_finished():
            leaf = leaf_move(board.get_board_score())
            table.update_table(board.id, depth, leaf)
            return leaf
        hashed = table.get_hashed_move(board.id, depth)
        if hashed.score != ILLEGAL:
            return hashed
        return self._alpha_beta(board, depth, alpha, beta, table)

    def _alpha_beta(
        self, board: Board, depth: int, alpha: int, beta: int, table: BoardHashTable
    ) -> BoardOptimalMove:
        """Steps 4 and 5 of alpha-beta: `board` is this node's, unfinished, not in the table."""
        store, lookup, leaves = table.update_table, table.get_hashed_move, LEAVES
        window_low, window_high = alpha, beta
        maximizing = board.cur_player is Cell.X
        best_score = -INFINITY if maximizing else INFINITY
        best_cell = -1
        children = self._children
        below = depth - 1
        if below == 0 and children is None:  # every child is a leaf: alpha and beta stay put
            if maximizing:
                for cell, _, score, _ in cast(Previewing, board).moves():
                    if score > best_score:
                        best_score, best_cell = score, cell
                        if score > beta:
                            break
            else:
                for cell, _, score, _ in cast(Previewing, board).moves():
                    if score < best_score:
                        best_score, best_cell = score, cell
                        if score < alpha:
                            break
            best = BoardOptimalMove(best_score, COORDS[best_cell])
            if window_low < best_score < window_high:
                store(board.id, depth, best)
            return best
        for cell, child_id, score, finished in cast(Previewing, board).moves():
            child = None if children is None else children[cell]
            if child is not None:
                score = child.get_optimal_move_alpha_beta(below, alpha, beta).score
            elif below == 0 or finished:
                store(child_id, below, leaves.get(score) or leaf_move(score))
            else:
                score = lookup(child_id, below).score
                if score == ILLEGAL:
                    child = self._grow(cell)
                    score = child._alpha_beta(cast(Board, child._board), below, alpha, beta, table).score
                    children = self._children
            if maximizing:
                if score > best_score:
                    best_score, best_cell = score, cell
                    if score > beta:
                        break
                    if score > alpha:
                        alpha = score
            elif score < best_score:
                best_score, best_cell = score, cell
                if score < alpha:
                    break
                if score < beta:
                    beta = score
        best = BoardOptimalMove(best_score, COORDS[best_cell]) if best_cell >= 0 else ILLEGAL_MOVE
        if window_low < best_score < window_high:
            store(board.id, depth, best)
        return best
