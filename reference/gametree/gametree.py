"""Reference solution: bitmaps and the game tree of (w, h, k) tic-tac-toe."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from prelude import (
    Bitmap,
    Direction,
    Leaf,
    Move,
    NonLeaf,
    Offset,
    Seq,
    State,
    Tree,
    encode,
    north,
)


def decode(w: int, h: int, offset: Offset) -> tuple[int, int]:
    """The square (i, j) whose bit number is `offset`."""
    i, j = divmod(offset, h + 1)
    return i, j


def mask(w: int, h: int, i: int, j: int) -> Bitmap:
    """The bitmap where only square (i, j) is marked."""
    return 1 << encode(w, h, i, j)


def read(w: int, h: int, bitmap: Bitmap, i: int, j: int) -> bool:
    """Whether square (i, j) is marked in `bitmap`."""
    return bitmap & mask(w, h, i, j) != 0


def update(w: int, h: int, bitmap: Bitmap, i: int, j: int) -> Bitmap:
    """`bitmap` with square (i, j) marked too."""
    return bitmap | mask(w, h, i, j)


def east(w: int, h: int) -> Offset:
    """One step east: the next column."""
    return h + 1


def northeast(w: int, h: int) -> Offset:
    """One step east and one step north."""
    return h + 2


def southeast(w: int, h: int) -> Offset:
    """One step east and one step south."""
    return h


def alignments(w: int, h: int, k: int, direction: Direction, bitmap: Bitmap) -> Bitmap:
    """The squares where a k-alignment along `direction` begins (k >= 1), in O(log k) steps."""
    step = direction(w, h)
    found, length = bitmap, 1  # the squares where a `length`-alignment begins
    while 2 * length <= k:
        found &= found >> length * step
        length *= 2
    if length < k:  # two overlapping `length`-alignments make a k-alignment
        found &= found >> (k - length) * step
    return found


@lru_cache(maxsize=1 << 16)  # a game tree asks about the same few bitmaps over and over
def has_alignment(w: int, h: int, k: int, bitmap: Bitmap) -> bool:
    """Whether `bitmap` holds a k-alignment in any of the four directions."""
    return bool(
        alignments(w, h, k, north, bitmap)
        or alignments(w, h, k, east, bitmap)
        or alignments(w, h, k, northeast, bitmap)
        or alignments(w, h, k, southeast, bitmap)
    )


def initial(w: int, h: int, k: int) -> State:
    """The empty board; the first player is up."""
    return State(w, h, k, 0, 0, 0)


def square_is_available(state: State, i: int, j: int) -> bool:
    """Whether (i, j) is a square of the board proper that nobody has marked."""
    w, h = state.w, state.h
    return (
        i < w
        and j < h
        and not read(w, h, state.player_bitmap, i, j)
        and not read(w, h, state.opponent_bitmap, i, j)
    )


def play(state: State, i: int, j: int) -> State:
    """The state after the player who is up marks square (i, j); then the other one is up."""
    w, h, k, player, opponent, past_moves = state
    return State(w, h, k, opponent, update(w, h, player, i, j), past_moves + 1)


def no_square_is_available(state: State) -> bool:
    """Whether the board is full."""
    return state.past_moves == state.w * state.h


def opponent_has_won(state: State) -> bool:
    """Whether the player who just played has a k-alignment."""
    w, h, k, _player, opponent, _past_moves = state
    return has_alignment(w, h, k, opponent)


def tree(state: State) -> Tree:
    """The game tree from `state`, its children built on demand."""
    # Self-contained on purpose: a test may run this definition in place of a student's `tree`
    # (reference_helpers), inside the student's module, where this file's other names are absent.
    if opponent_has_won(state):
        return Leaf(-1)
    if no_square_is_available(state):
        return Leaf(0)

    def offspring() -> Iterator[tuple[Move, Tree]]:
        """One (offset, subtree) pair per free square, in increasing offset order."""
        w, h, k, player, opponent, past_moves = state
        columns = ((1 << (h + 1) * w) - 1) // ((1 << h + 1) - 1)  # bit 0 of every column
        free = ~(player | opponent) & columns * ((1 << h) - 1)
        while free:
            square = free & -free  # the lowest free square
            free ^= square
            child = State(w, h, k, opponent, player | square, past_moves + 1)
            yield square.bit_length() - 1, tree(child)

    return NonLeaf(Seq(offspring))
