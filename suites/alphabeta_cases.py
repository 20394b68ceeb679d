"""Deterministic test cases for the alphabeta suite: random game trees written as plain lists.

A tree is an int (a leaf of that value) or a nonempty list of trees (a nonleaf whose moves are
0, 1, 2, ...), as `lazytree.tree_of_plain` reads it. Trees are drawn uniformly among those of
each size, the size counting the edges of the tree (its nodes minus one), like the original
grader's enumeration: every size from 0 to 10, all trees of a size when there are at most 50 of
them, else 50 distinct ones drawn at random.
"""

from __future__ import annotations

import random
from functools import cache

LEAF_VALUES = (-1, 0, 1)
MAX_SIZE = 10
PER_SIZE = 50
TOP = 2**62 - 1
BOTTOM = -TOP
WINDOWS = ((-1, 0), (-1, 1), (0, 1), (BOTTOM, TOP))
"""The original's three windows around the leaf values, and the full window."""

Plain = int | list["Plain"]


@cache
def trees_of_size(size: int) -> int:
    """How many trees have `size` edges."""
    return len(LEAF_VALUES) if size == 0 else nonempty_lists_of_size(size - 1)


@cache
def lists_of_size(size: int) -> int:
    """How many lists of trees (maybe empty) weigh `size`: each item after the first costs 1."""
    return 1 if size == 0 else nonempty_lists_of_size(size - 1)


@cache
def nonempty_lists_of_size(size: int) -> int:
    """How many nonempty lists of trees weigh `size`: a first tree, then a list."""
    return sum(trees_of_size(first) * lists_of_size(size - first) for first in range(size + 1))


def nth_tree(size: int, rank: int) -> Plain:
    """The tree number `rank` (from 0) among those with `size` edges."""
    if size == 0:
        return LEAF_VALUES[rank]
    return nth_nonempty_list(size - 1, rank)


def nth_list(size: int, rank: int) -> list[Plain]:
    """The list number `rank` among the lists of weight `size`."""
    return [] if size == 0 else nth_nonempty_list(size - 1, rank)


def nth_nonempty_list(size: int, rank: int) -> list[Plain]:
    """The nonempty list number `rank` among those of weight `size`."""
    for first in range(size + 1):
        rests = lists_of_size(size - first)
        block = trees_of_size(first) * rests
        if rank < block:
            return [nth_tree(first, rank // rests), *nth_list(size - first, rank % rests)]
        rank -= block
    raise IndexError("rank out of range")


@cache
def sample_trees() -> tuple[Plain, ...]:
    """The trees of the suite: for each size 0..10, all of them or 50 drawn at random."""
    rng = random.Random(20240601)
    trees: list[Plain] = []
    for size in range(MAX_SIZE + 1):
        count = trees_of_size(size)
        ranks = range(count) if count <= PER_SIZE else sorted(rng.sample(range(count), PER_SIZE))
        trees.extend(nth_tree(size, rank) for rank in ranks)
    return tuple(trees)


def random_wide_tree(rng: random.Random, nodes: int) -> Plain:
    """A random tree of about `nodes` nodes whose leaves range over -9..9."""
    if nodes <= 1:
        return rng.randint(-9, 9)
    children = rng.randint(1, min(4, nodes - 1))
    shares = [1] * children
    for _ in range(nodes - 1 - children):
        shares[rng.randrange(children)] += 1
    return [random_wide_tree(rng, share) for share in shares]


@cache
def wide_trees() -> tuple[Plain, ...]:
    """Extra trees with leaves in -9..9, so that values other than -1, 0, 1 are exercised."""
    rng = random.Random(7)
    return tuple(random_wide_tree(rng, rng.randint(4, 16)) for _ in range(30))


WIDE_WINDOWS = ((-3, 4), (2, 3), (-9, -8), (BOTTOM, TOP))


def one_tree() -> list[list[object]]:
    """Cases `(tree,)` for size, height, nval, ntval and assured_win."""
    return [[tree] for tree in sample_trees()]


def one_tree_any_values() -> list[list[object]]:
    """Cases `(tree,)`, the sample trees and the trees with leaves in -9..9."""
    return [[tree] for tree in (*sample_trees(), *wide_trees())]


def sense_and_tree() -> list[list[object]]:
    """Cases `(sense, tree)` for eval: every tree with each player up at the root."""
    return [
        [sense, tree] for tree in (*sample_trees(), *wide_trees()) for sense in ("even", "odd")
    ]


def window_and_tree() -> list[list[object]]:
    """Cases `(alpha, beta, tree)` for bval and bmove."""
    cases: list[list[object]] = [
        [alpha, beta, tree] for alpha, beta in WINDOWS for tree in sample_trees()
    ]
    cases += [[alpha, beta, tree] for alpha, beta in WIDE_WINDOWS for tree in wide_trees()]
    return cases
