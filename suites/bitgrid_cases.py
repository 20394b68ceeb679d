"""Deterministic case generators for suites/bitgrid.yaml (run by the grader, never the student)."""

from __future__ import annotations

import random

WORKED_EXAMPLE = 4737
FIELDS = [(x, y) for y in range(3) for x in range(3)]


def _grid(values: list[int]) -> int:
    return sum(value << ((x + y * 3) * 2) for (x, y), value in zip(FIELDS, values, strict=True))


def sample_grids(count: int = 40, seed: int = 4) -> list[int]:
    """The empty, full and worked-example grids, then random grids of 0/1/2 fields."""
    rng = random.Random(seed)
    grids = [0, WORKED_EXAMPLE, _grid([1, 2] * 4 + [1]), _grid([2] * 9), _grid([1] * 9)]
    grids += [_grid([rng.choice((0, 1, 2)) for _ in FIELDS]) for _ in range(count)]
    return grids


def played_grids(count: int = 60, seed: int = 7) -> list[int]:
    """Grids reached by random legal play, stopped at random moments (wins and draws included)."""
    rng = random.Random(seed)
    grids = []
    for _ in range(count):
        values = [0] * 9
        order = rng.sample(range(9), rng.randint(0, 9))
        for turn, index in enumerate(order):
            values[index] = 1 + turn % 2
        grids.append(_grid(values))
    return grids


def position_cases() -> list[list[int]]:
    return [[x, y] for x, y in FIELDS]


def bad_coordinate_cases() -> list[list[int]]:
    return [[-1, 0], [0, -1], [3, 0], [0, 3], [7, 7]]


def get_field_cases() -> list[list[int]]:
    return [[grid, x, y] for grid in sample_grids() for x, y in FIELDS]


def set_field_cases() -> list[list[int]]:
    return [[grid, x, y, value] for grid in sample_grids(12) for x, y in FIELDS
            for value in (0, 1, 2)]


def bad_grid_cases() -> list[list[int]]:
    return [[-1, 0, 0], [1 << 18, 0, 0], [3, 0, 0], [3 << 8, 1, 1], [0, 3, 0]]


def winner_cases() -> list[list[int]]:
    return [[grid] for grid in played_grids() + played_grids(40, seed=11)]


def hidden_winner_cases() -> list[list[int]]:
    return [[grid] for grid in played_grids(200, seed=2026)]


def is_full_cases() -> list[list[int]]:
    return [[grid] for grid in sample_grids(20, seed=5) + played_grids(30, seed=3)]
