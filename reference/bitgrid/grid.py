"""Reference solution: a tic-tac-toe grid packed into one integer, two bits per field."""

from __future__ import annotations

from functools import cache

Grid = int
EMPTY, X, O = 0, 1, 2
GRID_BITS = 18
FIELD_MASK = 0b11
LINES = (
    ((0, 0), (1, 0), (2, 0)),
    ((0, 1), (1, 1), (2, 1)),
    ((0, 2), (1, 2), (2, 2)),
    ((0, 0), (0, 1), (0, 2)),
    ((1, 0), (1, 1), (1, 2)),
    ((2, 0), (2, 1), (2, 2)),
    ((0, 0), (1, 1), (2, 2)),
    ((2, 0), (1, 1), (0, 2)),
)


def _check_grid(grid: Grid) -> None:
    if not isinstance(grid, int) or grid < 0 or grid >> GRID_BITS:
        raise ValueError(f"grid must be an integer in 0..2**18-1, got {grid!r}")
    for shift in range(0, GRID_BITS, 2):
        if (grid >> shift) & FIELD_MASK == FIELD_MASK:
            raise ValueError(f"grid {grid} holds the impossible field value 3 at bit {shift}")


def position(x: int, y: int) -> int:
    if x not in (0, 1, 2) or y not in (0, 1, 2):
        raise ValueError(f"coordinates must be in 0..2, got ({x!r}, {y!r})")
    return (x + y * 3) * 2


def get_field(grid: Grid, x: int, y: int) -> int:
    _check_grid(grid)
    shift = position(x, y)
    return (grid & (FIELD_MASK << shift)) >> shift


def set_field(grid: Grid, x: int, y: int, value: int) -> Grid:
    _check_grid(grid)
    if value not in (EMPTY, X, O):
        raise ValueError(f"a field holds 0, 1 or 2, got {value!r}")
    shift = position(x, y)
    return (grid & ~(FIELD_MASK << shift)) | (value << shift)


def winner(grid: Grid) -> int:
    _check_grid(grid)
    for line in LINES:
        first = get_field(grid, *line[0])
        if first != EMPTY and all(get_field(grid, x, y) == first for x, y in line[1:]):
            return first
    return EMPTY


def is_full(grid: Grid) -> bool:
    _check_grid(grid)
    return all(get_field(grid, x, y) != EMPTY for y in range(3) for x in range(3))


def count_games() -> int:
    @cache
    def games_from(grid: Grid, player: int) -> int:
        if winner(grid) != EMPTY or is_full(grid):
            return 1
        return sum(
            games_from(set_field(grid, x, y, player), 3 - player)
            for y in range(3)
            for x in range(3)
            if get_field(grid, x, y) == EMPTY
        )

    return games_from(0, X)
