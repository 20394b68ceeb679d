"""Reference: the game board and the board-side half of the computer's search."""

from __future__ import annotations

from dictionary import Dictionary, Record
from symbols import (
    BLOCKED,
    COMPUTER,
    COMPUTER_WINS,
    DRAW,
    EMPTY,
    HUMAN,
    HUMAN_WINS,
    UNDECIDED,
    Config,
    Score,
    Symbol,
)

Line = tuple[int, ...]  # indexes into Board.squares of k adjacent squares
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # right, down, down-right, down-left


class Board:
    """A `rows` x `cols` grid of symbols; `k` in a line wins; the search looks `max_levels` deep."""

    def __init__(self, rows: int, cols: int, k: int, max_levels: int, grid: list[str]) -> None:
        self.rows = rows
        self.cols = cols
        self.k = k
        self.max_levels = max_levels
        self.squares = [symbol for line in grid for symbol in line]
        self.lines = [line for line in self.all_lines() if BLOCKED not in self.symbols_on(line)]

    def all_lines(self) -> list[Line]:
        """Every run of k adjacent squares that fits on the board, in any direction."""
        lines = []
        for row in range(self.rows):
            for col in range(self.cols):
                for down, right in DIRECTIONS:
                    last_row, last_col = row + down * (self.k - 1), col + right * (self.k - 1)
                    if 0 <= last_row < self.rows and 0 <= last_col < self.cols:
                        lines.append(
                            tuple(
                                (row + down * step) * self.cols + col + right * step for step in range(self.k)
                            )
                        )
        return lines

    def symbols_on(self, line: Line) -> list[Symbol]:
        """The symbols on the squares of `line`."""
        return [self.squares[index] for index in line]

    def square_is_empty(self, row: int, col: int) -> bool:
        return self.squares[row * self.cols + col] == EMPTY

    def store_play(self, row: int, col: int, symbol: Symbol) -> None:
        self.squares[row * self.cols + col] = symbol

    def wins(self, symbol: Symbol) -> bool:
        squares = self.squares
        return any(all(squares[index] == symbol for index in line) for line in self.lines)

    def is_draw(self) -> bool:
        return EMPTY not in self.squares and not self.wins(COMPUTER) and not self.wins(HUMAN)

    def eval_board(self) -> Score:
        if self.wins(COMPUTER):
            return COMPUTER_WINS
        if self.wins(HUMAN):
            return HUMAN_WINS
        return UNDECIDED if EMPTY in self.squares else DRAW

    def config(self) -> Config:
        return "".join(self.squares)

    def repeated_config(self, configurations: Dictionary) -> Record | None:
        return configurations.get(self.config())

    def insert_config(self, configurations: Dictionary, score: Score, level: int) -> None:
        configurations.put(Record(self.config(), score, level))

    def __repr__(self) -> str:
        squares = self.config()
        grid = [squares[row * self.cols : (row + 1) * self.cols] for row in range(self.rows)]
        return f"Board({self.rows}, {self.cols}, {self.k}, {self.max_levels}, {grid!r})"
