"""Reference: moves, optimal moves and the weighted tic-tac-toe board.

Cells are two bitmasks (bit `row * N + col`), the board id is kept up to date move by move, and
the score and the "somebody has a line" flag are updated by `play`, so that reading them is free.
`moves()` previews every legal move at once; the search tree uses it to score leaves without
building a board for each.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import constants
from constants import ILLEGAL, WIN_SCORE, Cell, format_grid

Bitmask = int
Grid = list[list[int]]


class BoardCoordinate(NamedTuple):
    """A square: `row` from the top, `col` from the left, both counted from 0."""

    row: int
    col: int

    def is_valid(self) -> bool:
        """True when the square is on the board."""
        size = constants.BOARD_SIZE
        return 0 <= self.row < size and 0 <= self.col < size


class BoardOptimalMove(NamedTuple):
    """A move and the score the search expects from it; the default is the illegal move."""

    score: int = ILLEGAL
    coords: BoardCoordinate = BoardCoordinate(-1, -1)


def _lines(size: int) -> list[Bitmask]:
    """Masks of the rows, columns and both diagonals of a size x size board."""
    rows = [sum(1 << (r * size + c) for c in range(size)) for r in range(size)]
    cols = [sum(1 << (r * size + c) for r in range(size)) for c in range(size)]
    diagonal = sum(1 << (i * size + i) for i in range(size))
    anti_diagonal = sum(1 << (i * size + size - 1 - i) for i in range(size))
    return [*rows, *cols, diagonal, anti_diagonal]


SIZE = constants.BOARD_SIZE
SQUARES = SIZE * SIZE
FULL: Bitmask = (1 << SQUARES) - 1
COORDS = tuple(BoardCoordinate(*divmod(cell, SIZE)) for cell in range(SQUARES))
ID_STEP = tuple(3 ** (row * SIZE + col) for row, col in COORDS)  # an X there; O adds it twice


def _has_line_table() -> bytearray:
    """Entry `cells` (a bitmask of one player's cells) is 1 when they hold a whole line."""
    table = bytearray(1 << SQUARES)
    for line in _lines(SIZE):
        others = FULL & ~line
        extra = others
        while True:  # every subset of the other cells, added to the line
            table[line | extra] = 1
            if extra == 0:
                break
            extra = (extra - 1) & others
    return table


HAS_LINE = _has_line_table()
X_WEIGHT = constants.get_cell_weight(Cell.X)
O_WEIGHT = constants.get_cell_weight(Cell.O)

MoveTable = tuple[tuple[int, Bitmask, int, int], ...]


def _move_table(scores: tuple[int, ...], id_factor: int, weight: int) -> MoveTable:
    """(cell, bit, id change, score change) of a move on each cell, for one player."""
    return tuple(
        (cell, 1 << cell, id_factor * ID_STEP[cell], weight * scores[cell]) for cell in range(SQUARES)
    )


class Board:
    """A position: the cells, the score grid, whose turn it is and the board id."""

    __slots__ = ("_moves", "_o", "_scores", "_sum", "_won", "_x", "cur_player", "id")

    cur_player: Cell
    id: int

    def __init__(self, score: Grid) -> None:
        """An empty board with the given score grid; X to play; id 0."""
        self._scores = tuple(value for row in score for value in row)
        self._moves = (  # shared by every copy: X's table, then O's
            _move_table(self._scores, 1, X_WEIGHT),
            _move_table(self._scores, 2, -O_WEIGHT),
        )
        self._x: Bitmask = 0
        self._o: Bitmask = 0
        self._sum = 0  # weighted X total minus weighted O total
        self._won = 0  # WIN_SCORE or -WIN_SCORE once a player has a line
        self.cur_player = Cell.X
        self.id = 0

    def copy(self) -> Board:
        """An independent board in the same position."""
        twin = Board.__new__(Board)
        twin._scores = self._scores
        twin._moves = self._moves
        twin._x = self._x
        twin._o = self._o
        twin._sum = self._sum
        twin._won = self._won
        twin.cur_player = self.cur_player
        twin.id = self.id
        return twin

    def is_full(self) -> bool:
        """True when no cell is empty."""
        return self._x | self._o == FULL

    def is_finished(self) -> bool:
        """True when a player has a line or the board is full."""
        return self._won != 0 or self._x | self._o == FULL

    def get_board_score(self) -> int:
        """+/-WIN_SCORE for a line of X/O, else the weighted X total minus the weighted O total."""
        return self._won or self._sum

    def play(self, coords: BoardCoordinate) -> bool:
        """Play the current player's move at `coords`; False (and no change) if not allowed."""
        row, col = coords
        if not (0 <= row < SIZE and 0 <= col < SIZE):
            return False
        cell = row * SIZE + col
        bit = 1 << cell
        if (self._x | self._o) & bit:
            return False
        if self.cur_player is Cell.X:
            _, _, id_change, score_change = self._moves[0][cell]
            self._x |= bit
            if HAS_LINE[self._x]:
                self._won = WIN_SCORE
            self.cur_player = Cell.O
        else:
            _, _, id_change, score_change = self._moves[1][cell]
            self._o |= bit
            if HAS_LINE[self._o]:
                self._won = -WIN_SCORE
            self.cur_player = Cell.X
        self.id += id_change
        self._sum += score_change
        return True

    def child(self, cell: int) -> Board:
        """A copy with the current player's mark on `cell`, which must be empty (no checks)."""
        twin = Board.__new__(Board)
        twin._scores = self._scores
        twin._moves = self._moves
        twin._won = self._won
        bit = 1 << cell
        if self.cur_player is Cell.X:
            _, _, id_change, score_change = self._moves[0][cell]
            twin._x, twin._o = self._x | bit, self._o
            if HAS_LINE[twin._x]:
                twin._won = WIN_SCORE
            twin.cur_player = Cell.O
        else:
            _, _, id_change, score_change = self._moves[1][cell]
            twin._x, twin._o = self._x, self._o | bit
            if HAS_LINE[twin._o]:
                twin._won = -WIN_SCORE
            twin.cur_player = Cell.X
        twin.id = self.id + id_change
        twin._sum = self._sum + score_change
        return twin

    def moves(self) -> Iterator[tuple[int, int, int, bool]]:
        """Every legal move, row-major: (cell, id, score, finished) of the board it makes.

        `cell` is `row * N + col`; the board itself does not change. Lazily: a search that
        stops early (an alpha-beta cut-off) does not pay for the moves it skips.
        """
        taken = self._x | self._o
        last = taken.bit_count() == SQUARES - 1
        base, id = self._sum, self.id
        if self.cur_player is Cell.X:
            mine, won, table = self._x, WIN_SCORE, self._moves[0]
        else:
            mine, won, table = self._o, -WIN_SCORE, self._moves[1]
        for cell, bit, id_change, score_change in table:
            if not taken & bit:
                if HAS_LINE[mine | bit]:
                    yield cell, id + id_change, won, True
                else:
                    yield cell, id + id_change, base + score_change, last

    def cell(self, row: int, col: int) -> Cell:
        """What square (`row`, `col`) holds."""
        bit = 1 << (row * SIZE + col)
        if self._x & bit:
            return Cell.X
        return Cell.O if self._o & bit else Cell.EMPTY

    def __str__(self) -> str:
        """The board drawn as the course prints it (see `constants.format_grid`)."""
        grid = [[self.cell(row, col) for col in range(SIZE)] for row in range(SIZE)]
        return format_grid(grid)

    def __repr__(self) -> str:
        rows = [[self._scores[r * SIZE + c] for c in range(SIZE)] for r in range(SIZE)]
        return f"<Board id={self.id} score={rows}>"
