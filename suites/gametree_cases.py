"""Deterministic test cases for the gametree suite.

Bitmaps are drawn at random over the squares of the board proper (the extra row and column
stay empty); game states come from random games played to their end. Everything here is plain
data, computed without the reference: bit (i, j) of a w x h board is (h + 1) * i + j.
"""

from __future__ import annotations

import random
from functools import cache

SIZES = ((3, 3), (4, 4), (4, 3), (3, 4))
"""The board sizes of the original grader."""

RANDOM_BITMAPS = 50
TOP = 2**62 - 1
BOTTOM = -TOP

State = list[int]  # w, h, k, player_bitmap, opponent_bitmap, past_moves


def bit(w: int, h: int, i: int, j: int) -> int:
    """The bitmap of square (i, j) alone."""
    return 1 << (h + 1) * i + j


def squares(w: int, h: int) -> list[tuple[int, int]]:
    """The squares of the board proper, column by column."""
    return [(i, j) for i in range(w) for j in range(h)]


def full(w: int, h: int) -> int:
    """The bitmap where every square of the board proper is marked."""
    return sum(bit(w, h, i, j) for i, j in squares(w, h))


def random_bitmaps(w: int, h: int, count: int, seed: int) -> list[int]:
    """The empty and the full board, then `count` random ones of various densities."""
    rng = random.Random(seed)
    bitmaps = [0, full(w, h)]
    for n in range(count):
        density = (0.3, 0.5, 0.7)[n % 3]
        bitmaps.append(sum(bit(w, h, i, j) for i, j in squares(w, h) if rng.random() < density))
    return bitmaps


def decode_cases() -> list[list[int]]:
    """Cases `(w, h, offset)` for every offset of the board and its extra row and column."""
    return [[w, h, offset] for w, h in SIZES for offset in range((w + 1) * (h + 1))]


def mask_cases() -> list[list[int]]:
    """Cases `(w, h, i, j)` for every square of the board proper."""
    return [[w, h, i, j] for w, h in SIZES for i, j in squares(w, h)]


def bitmap_square_cases() -> list[list[int]]:
    """Cases `(w, h, bitmap, i, j)` for read and update: 52 bitmaps per size, every square."""
    return [
        [w, h, bitmap, i, j]
        for w, h in SIZES
        for bitmap in random_bitmaps(w, h, RANDOM_BITMAPS, seed=w * 10 + h)
        for i, j in squares(w, h)
    ]


def direction_steps() -> list[dict[str, object]]:
    """Steps calling east, northeast and southeast on the sizes and a few more."""
    sizes = (*SIZES, (1, 1), (2, 5), (6, 7), (7, 6))
    return [
        {"call": f"gametree.{direction}", "args": [w, h]}
        for w, h in sizes
        for direction in ("east", "northeast", "southeast")
    ]


def steps(w: int, h: int) -> list[int]:
    """The offsets of north, east, northeast and southeast."""
    return [1, h + 1, h + 2, h]


def alignment_cases() -> list[list[int]]:
    """Cases `(w, h, k, step, bitmap)`: k from 1 to 4, every direction, 22 bitmaps per size."""
    return [
        [w, h, k, step, bitmap]
        for w, h in SIZES
        for bitmap in random_bitmaps(w, h, 20, seed=100 + w * 10 + h)
        for k in range(1, 5)
        for step in steps(w, h)
    ]


def has_alignment_cases() -> list[list[int]]:
    """Cases `(w, h, k, bitmap)`: k from 1 to 3 (as the original), 22 bitmaps per size."""
    return [
        [w, h, k, bitmap]
        for w, h in SIZES
        for bitmap in random_bitmaps(w, h, 20, seed=200 + w * 10 + h)
        for k in range(1, 4)
    ]


def has_line(w: int, h: int, k: int, bitmap: int) -> bool:
    """Whether `bitmap` holds k marks in a line, checked square by square."""
    for i, j in squares(w, h):
        for di, dj in ((0, 1), (1, 0), (1, 1), (1, -1)):
            line = [(i + t * di, j + t * dj) for t in range(k)]
            if all(0 <= a < w and 0 <= b < h and bitmap & bit(w, h, a, b) for a, b in line):
                return True
    return False


def random_game(w: int, h: int, k: int, rng: random.Random) -> list[State]:
    """The states of one random game, from the empty board to a win or a full board."""
    state = [w, h, k, 0, 0, 0]
    states = [state]
    while not has_line(w, h, k, state[4]) and state[5] < w * h:
        _, _, _, player, opponent, past_moves = state
        i, j = rng.choice([s for s in squares(w, h) if not (player | opponent) & bit(w, h, *s)])
        state = [w, h, k, opponent, player | bit(w, h, i, j), past_moves + 1]
        states.append(state)
    return states


GAMES = ((3, 3, 3), (4, 4, 3), (4, 3, 3), (3, 4, 4), (4, 4, 4), (3, 3, 2), (2, 2, 2))


@cache
def game_states() -> tuple[tuple[int, ...], ...]:
    """The states of three random games of each of GAMES."""
    rng = random.Random(99)
    found = []
    for w, h, k in GAMES:
        for _ in range(3):
            found.extend(tuple(state) for state in random_game(w, h, k, rng))
    return tuple(found)


def initial_cases() -> list[list[int]]:
    """Cases `(w, h, k)`."""
    return [[w, h, k] for w, h, k in (*GAMES, (1, 1, 1), (6, 7, 4))]


def availability_cases() -> list[list[object]]:
    """Cases `(state, i, j)` for every square, the extra row and column included."""
    rng = random.Random(5)
    chosen = rng.sample(game_states(), 40)
    return [
        [list(state), i, j]
        for state in chosen
        for i in range(state[0] + 1)
        for j in range(state[1] + 1)
    ]


def play_cases() -> list[list[object]]:
    """Cases `(state, i, j)` for every free square of states where the game goes on."""
    rng = random.Random(6)
    going_on = [
        state
        for state in game_states()
        if state[5] < state[0] * state[1] and not has_line(*state[:3], state[4])
    ]
    cases: list[list[object]] = []
    for state in rng.sample(going_on, 40):
        w, h, _k, player, opponent, _past_moves = state
        cases += [
            [list(state), i, j]
            for i, j in squares(w, h)
            if not (player | opponent) & bit(w, h, i, j)
        ]
    return cases


def state_cases() -> list[list[object]]:
    """Cases `(state,)`: every state of the random games."""
    return [[list(state)] for state in game_states()]


def tree_steps() -> list[dict[str, object]]:
    """Steps for the tree test: breadth-first listings, and the size of tic-tac-toe's tree."""
    listings: list[tuple[State, int]] = [
        ([w, h, k, 0, 0, 0], 3000)
        for w, h, k in ((3, 3, 1), (2, 2, 2), (3, 2, 2), (2, 3, 2), (3, 3, 2), (2, 2, 3), (3, 2, 3))
    ]
    listings += [([3, 3, 3, 0, 0, 0], 1500), ([4, 4, 4, 0, 0, 0], 400), ([4, 3, 3, 0, 0, 0], 300)]
    rng = random.Random(11)
    middle = [s for s in game_states() if s[:3] == (3, 3, 3) and s[5] >= 2]
    listings += [(list(state), 1000) for state in rng.sample(middle, 8)]
    found: list[dict[str, object]] = [
        {"call": "probes.tree_bfs", "args": [state, limit]} for state, limit in listings
    ]
    found.append({"call": "probes.tree_size", "args": [[3, 3, 3, 0, 0, 0]]})
    return found


def tree_value_cases() -> list[list[object]]:
    """Cases `(state, alpha, beta)`: tic-tac-toe with several windows, and other small games."""
    windows = ((BOTTOM, TOP), (-1, 0), (0, 1), (-1, 1))
    cases: list[list[object]] = [[[3, 3, 3, 0, 0, 0], alpha, beta] for alpha, beta in windows]
    for w, h, k in ((3, 3, 2), (2, 2, 3), (4, 2, 3), (4, 3, 3), (3, 2, 3)):
        cases.append([[w, h, k, 0, 0, 0], BOTTOM, TOP])
    rng = random.Random(12)
    middle = [s for s in game_states() if s[:3] == (3, 3, 3) and s[5] >= 1]
    cases += [[list(state), BOTTOM, TOP] for state in rng.sample(middle, 10)]
    return cases
