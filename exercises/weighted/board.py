"""Task 1: the weighted tic-tac-toe board.

The game: X and O take turns filling an empty square of an N x N board (N is 3 or 4, see
`constants.configure`). Each square has a score (the score grid). A player who fills a whole
row, column or diagonal wins at once: the board's score is then WIN_SCORE for X, -WIN_SCORE for
O. Otherwise the board's score is the weighted sum of X's squares minus the weighted sum of O's
squares, each square's score multiplied by `constants.get_cell_weight(player)` (the number of
moves the *other* player makes: 4 for X and 5 for O on 3x3, 8 for both on 4x4). When the board
is full without a line, the sign of that score decides: positive X wins, negative O wins, 0 is
a draw.

Example on the 3x3 preset grid [[4, 3, 8], [9, 5, 1], [2, 7, 6]]: X on (1,1), (2,0), (2,2) and
O on (0,0), (2,1) score (5 + 2 + 6) * 4 - (4 + 7) * 5 = -3.

Read sizes and constants through the module at call time (`constants.BOARD_SIZE`), never at
import time: the size is chosen by the driver or by a test after your module is imported.
You may add helper functions and private attributes; keep the names below.
"""

from __future__ import annotations

from typing import NamedTuple

import constants  # noqa: F401  (read constants.BOARD_SIZE etc. at call time)
from constants import ILLEGAL, Cell

Grid = list[list[int]]


class BoardCoordinate(NamedTuple):
    """A square: `row` from the top, `col` from the left, both counted from 0."""

    row: int
    col: int

    def is_valid(self) -> bool:
        """Return True when the square lies on the board: 0 <= row, col < BOARD_SIZE.

        On a 3x3 board (2, 0) is valid, (3, 0) and (0, -1) are not; on a 4x4 board (3, 3) is.
        """
        raise NotImplementedError


class BoardOptimalMove(NamedTuple):
    """A move found by the search and the score it leads to (given: nothing to write here).

    `BoardOptimalMove()` is the *illegal* move: score ILLEGAL (20000) and coordinates (-1, -1).
    The search returns it for an empty tree, and the hash table for a board it does not know.
    """

    score: int = ILLEGAL
    coords: BoardCoordinate = BoardCoordinate(-1, -1)


class Board:
    """A position of the game.

    Public attributes (the drivers and the tests read them):

    - `cur_player`: the Cell (Cell.X or Cell.O) who plays next; X plays first.
    - `id`: a number that identifies the position, kept up to date by `play`. Each square is a
      base-3 digit: 0 empty, 1 X, 2 O; the square (row, col) is the digit of weight
      3 ** (row * BOARD_SIZE + col). So after X plays (0, 0) the id is 1, after O then plays
      (0, 1) it is 1 + 2 * 3 = 7; on a 4x4 board X on (1, 0) adds 3 ** 4 = 81.
      Update it when a move is played; do not recompute it from the whole board.
    """

    cur_player: Cell
    id: int

    def __init__(self, score: Grid) -> None:
        """Create an empty board that uses the score grid `score` (BOARD_SIZE rows of BOARD_SIZE ints).

        Every square starts empty, X is to play and the id is 0. Keep your own copy of the
        grid's values (the caller may reuse its list). Example:
        `Board(constants.SCORE_PRESET)` is the empty board with score 0 and id 0.
        """
        raise NotImplementedError

    def copy(self) -> Board:
        """Return an independent board in the same position (same squares, grid, player, id).

        Playing on the copy must not change this board. The search tree uses it to build a
        child position: copy the board, then `play` the move on the copy.
        """
        raise NotImplementedError

    def is_full(self) -> bool:
        """Return True when no square is empty."""
        raise NotImplementedError

    def is_finished(self) -> bool:
        """Return True when the game is over: a player has a whole line, or the board is full."""
        raise NotImplementedError

    def get_board_score(self) -> int:
        """Return the score of the position.

        WIN_SCORE if X has a whole row, column or diagonal (both diagonals count), -WIN_SCORE
        if O has one (both cannot happen in a real game). Otherwise the sum over X's squares of
        score * get_cell_weight(Cell.X) minus the sum over O's squares of
        score * get_cell_weight(Cell.O). Examples on the 3x3 preset grid: the empty board
        scores 0; X on (0, 0) scores 4 * 4 = 16; then O on (1, 1) makes it 16 - 5 * 5 = -9.
        X on (0, 2), (1, 1), (2, 0) (the anti-diagonal) scores 10000.
        """
        raise NotImplementedError

    def play(self, coords: BoardCoordinate) -> bool:
        """Play the current player's move on `coords` and return True; return False if not allowed.

        A move is not allowed when `coords` is off the board or the square is taken; the board
        then stays exactly as it was. Otherwise fill the square with `cur_player`, update `id`
        (add 3 ** (row * N + col) for X, twice that for O) and hand the turn to the other
        player. (The drivers never play on a finished board, so you need not check for it.)
        """
        raise NotImplementedError

    def __str__(self) -> str:
        """Return the board drawn as the course prints it, ending with a newline.

        Use `constants.format_grid` with the squares' characters: " " empty, "X", "O"
        (`str(cell)` of a Cell gives them). The empty 3x3 board, then after X plays (0, 0):

            =============          =============
            |   |   |   |          | X |   |   |
            =============          =============
            |   |   |   |          |   |   |   |
            =============          =============
            |   |   |   |          |   |   |   |
            =============          =============
        """
        raise NotImplementedError
