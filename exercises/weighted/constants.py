"""Constants of weighted tic-tac-toe (given file: do not edit).

The board is 3x3 or 4x4, chosen per run. Every driver calls `configure(size)` before it plays,
and a call test that needs the 4x4 board starts with `constants.configure(4)`. Read the values
through the module at call time, e.g. `constants.BOARD_SIZE` inside a method:

    import constants

    def is_valid(self) -> bool:
        n = constants.BOARD_SIZE
        ...

`configure` also re-imports the exercise modules that are already loaded (`board`, `hashtable`,
`boardtree`), so a copy such as `from constants import BOARD_SIZE` at the top of your file is
refreshed too; still, reading `constants.X` where you need it is the way that cannot go stale.

Values per size:

| size | TABLE_SIZE | DEPTH_PRESET | SCORE_PRESET                                              |
| ---- | ---------- | ------------ | --------------------------------------------------------- |
| 3    | 101        | 4            | [[4, 3, 8], [9, 5, 1], [2, 7, 6]]                         |
| 4    | 200009     | 7            | [[4, 14, 15, 1], [9, 7, 6, 12], [5, 11, 10, 8], [16, 2, 3, 13]] |
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import TypeVar

Grid = list[list[int]]

WIN_SCORE = 10000
"""Score of a board where X has a full line (minus this for O)."""

ILLEGAL = 20000
"""Score of an illegal move or board: never a real score."""

SUPPORTED_SIZES = (3, 4)
TABLE_SIZES = {3: 101, 4: 200009}
DEPTH_PRESETS = {3: 4, 4: 7}
SCORE_PRESETS: dict[int, tuple[tuple[int, ...], ...]] = {
    3: (
        (4, 3, 8),
        (9, 5, 1),
        (2, 7, 6),
    ),
    4: (
        (4, 14, 15, 1),
        (9, 7, 6, 12),
        (5, 11, 10, 8),
        (16, 2, 3, 13),
    ),
}

# Set by configure(); the defaults are the 3x3 game.
BOARD_SIZE = 3
TABLE_SIZE = TABLE_SIZES[3]
DEPTH_PRESET = DEPTH_PRESETS[3]
SCORE_PRESET: Grid = [list(row) for row in SCORE_PRESETS[3]]

EXERCISE_MODULES = ("board", "hashtable", "boardtree")
"""Modules that configure() re-imports when they are loaded, in dependency order."""


class Cell(IntEnum):
    """What a square holds; X is the first player."""

    EMPTY = 0
    X = 1
    O = -1  # noqa: E741

    def __str__(self) -> str:
        return CELL_CHARS[self]


CELL_CHARS = {Cell.EMPTY: " ", Cell.X: "X", Cell.O: "O"}


def configure(size: int) -> None:
    """Select the 3x3 or the 4x4 game: sets BOARD_SIZE, TABLE_SIZE, DEPTH_PRESET, SCORE_PRESET.

    Re-imports the already loaded exercise modules (so the hash table starts empty, with
    TABLE_SIZE buckets). Call it before creating any board.
    """
    global BOARD_SIZE, TABLE_SIZE, DEPTH_PRESET, SCORE_PRESET
    if size not in SUPPORTED_SIZES:
        raise ValueError(f"board size must be one of {SUPPORTED_SIZES}, not {size}")
    BOARD_SIZE = size
    TABLE_SIZE = TABLE_SIZES[size]
    DEPTH_PRESET = DEPTH_PRESETS[size]
    SCORE_PRESET = [list(row) for row in SCORE_PRESETS[size]]
    for name in EXERCISE_MODULES:
        module = sys.modules.get(name)
        if module is not None:
            importlib.reload(module)


def get_cell_weight(cell: Cell) -> int:
    """The factor a cell's score is multiplied by: the number of moves the *other* player makes.

    X plays ceil(N*N / 2) moves and O floor(N*N / 2), so an X cell counts N*N // 2 times and an
    O cell (N*N + 1) // 2 times: 4 and 5 on the 3x3 board, 8 and 8 on the 4x4 board.
    An empty cell gives 1 (it adds nothing anyway: its value is 0).
    """
    squares = BOARD_SIZE * BOARD_SIZE
    if cell == Cell.X:
        return squares // 2
    if cell == Cell.O:
        return (squares + 1) // 2
    return 1


T = TypeVar("T")


def format_grid(grid: Sequence[Sequence[T]], show: Callable[[T], str] = str) -> str:
    """Draw a square grid the way the course prints boards, one text line per output line.

    A line of 4*N+1 '=' opens the grid and follows every row; a row reads
    `| a | b | c |`. The result ends with a newline. For the 3x3 score preset:

        =============
        | 4 | 3 | 8 |
        =============
        | 9 | 5 | 1 |
        ...
    """
    rule = "=" * (4 * len(grid) + 1)
    lines = [rule]
    for row in grid:
        lines.append("| " + " | ".join(show(value) for value in row) + " |")
        lines.append(rule)
    return "\n".join(lines) + "\n"
