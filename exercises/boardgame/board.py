"""Part 2: the game board, and the board-side half of the computer's search.

The game: a human (`b`) and the computer (`o`) take turns putting a tile on an empty square (`g`)
of a `rows` x `cols` grid; some squares are blocked (`d`) and nobody may play there. The first
player with `k` tiles in a line of adjacent squares (in a row, a column, or either diagonal)
wins; when no empty square is left and nobody has won, the game is a draw.

`computer.py` (given) searches the game tree with these methods, in the order they are listed;
`play.py` (given) reads the board file and runs a game. Keep the constructor's arguments in
attributes of the same names (`rows`, `cols`, `k`, `max_levels`): the search reads them.

Example (3x3, three in a line, centre blocked), rows as strings:

    Board(3, 3, 3, 4, ["ggg", "gdg", "ggg"])
"""

from __future__ import annotations

from dictionary import Dictionary, Record
from symbols import Config, Score, Symbol


class Board:
    """A `rows` x `cols` grid of symbols; `k` in a line wins; the search looks `max_levels` deep."""

    rows: int
    cols: int
    k: int
    max_levels: int

    def __init__(self, rows: int, cols: int, k: int, max_levels: int, grid: list[str]) -> None:
        """Build the board from `grid`: `rows` strings of `cols` symbols each, top row first.

        Every character of `grid` is one of `o` (computer), `b` (human), `d` (blocked) or `g`
        (empty); the game only ever starts from `g` and `d` squares, but the tests also hand you
        boards with tiles on them. `max_levels` is the deepest level of the game tree the
        search explores (the fourth line of the board file). You may assume the arguments agree
        with each other (the driver checks the board file).
        """
        raise NotImplementedError

    def square_is_empty(self, row: int, col: int) -> bool:
        """Return True when square (`row`, `col`) holds `g`: not blocked and no tile on it."""
        raise NotImplementedError

    def store_play(self, row: int, col: int, symbol: Symbol) -> None:
        """Put `symbol` on square (`row`, `col`).

        The search also calls `store_play(row, col, "g")` to take a tile back.
        """
        raise NotImplementedError

    def wins(self, symbol: Symbol) -> bool:
        """Return True when `k` adjacent squares in a line all hold `symbol`.

        A line is a row, a column, a diagonal going down-right or a diagonal going down-left;
        a blocked square breaks a line. On this 4x5 board with k = 3

            g g g d g
            g b o g g
            g o b g g
            o g g b g

        `wins("b")` is True (down-right from (1, 1)) and so is `wins("o")` (down-left from
        (1, 2)); with k = 4 neither is.
        """
        raise NotImplementedError

    def is_draw(self) -> bool:
        """Return True when no square is empty and neither player wins."""
        raise NotImplementedError

    def eval_board(self) -> Score:
        """Score the board: 3 when the computer wins, 0 when the human wins, 2 for a draw,
        else 1 (undecided: some square is still empty and nobody has won).

        These are `COMPUTER_WINS`, `HUMAN_WINS`, `DRAW` and `UNDECIDED` of `symbols.py`.
        """
        raise NotImplementedError

    def config(self) -> Config:
        """Return the configuration string: every square's symbol, row after row.

        `Board(3, 3, 3, 4, ["ogg", "bdg", "ggg"]).config()` is `"oggbdgggg"`.
        """
        raise NotImplementedError

    def repeated_config(self, configurations: Dictionary) -> Record | None:
        """Look this board's configuration up in `configurations`; return its record or None."""
        raise NotImplementedError

    def insert_config(self, configurations: Dictionary, score: Score, level: int) -> None:
        """Store a `Record` of this board's configuration with `score` and `level` in
        `configurations`.
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        """Given: `Board(3, 3, 3, 4, ['ogg', 'bdg', 'ggg'])`, built from `config()`."""
        squares = self.config()
        grid = [squares[row * self.cols : (row + 1) * self.cols] for row in range(self.rows)]
        return f"Board({self.rows}, {self.cols}, {self.k}, {self.max_levels}, {grid!r})"
