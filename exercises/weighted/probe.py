"""Counting the work of a search (given file: do not edit; the task-4 efficiency tests call it).

The course's alpha-beta (see `BoardTree.get_optimal_move_alpha_beta`) asks the transposition
table about every position it searches with a depth of 1 or more (step 3): leaves (depth 0 or
a finished game) are scored, not searched. So the number of those lookups is the number of
positions the search had to search, whoever wrote it:

- a search that tests its cut-off too late searches positions the course's does not;
- a search that does not store what it found, or ignores what the table returns, searches the
  same positions again and again;
- a search that never asks the table does not use it.

`positions_searched` counts those lookups from outside the search, by wrapping the table's
`get_hashed_move` for the length of one search. Lookups at depth 0 and lookups of finished
games (read from the board id) are not searches and are not counted, nor is the same lookup
made twice in a row. The count goes back to the grader, which compares it with the reference's
count on the same position.
"""

from __future__ import annotations

import sys
from typing import Any

import constants


def positions_searched(tree: Any, depth: int) -> int:
    """The positions one alpha-beta search of `tree`, `depth` moves deep, looks up in the table.

    The grader holds the count against the reference's on the same position (`compare: at_most`).
    """
    return searches(tree, depth)


def minimax_positions_searched(tree: Any, depth: int) -> int:
    """The positions one minimax search of `tree` (`get_optimal_move`), `depth` moves deep, looks
    up in the table: the course's minimax asks the table about every position it searches, as
    its alpha-beta does. The grader holds the count against the reference's (`at_most`).
    """
    return searches(tree, depth, minimax=True)


def asked_the_table(count: int) -> bool:
    """Whether a search that looked up `count` positions used the table at all.

    >>> asked_the_table(0), asked_the_table(569)
    (False, True)
    """
    return count > 0


def searches(tree: Any, depth: int, minimax: bool = False) -> int:
    """The number of positions one alpha-beta (or, with `minimax`, minimax) search of `tree`
    looks up in the table.

    The search runs `depth` moves deep (alpha-beta with the drivers' window (-WIN_SCORE - 1,
    WIN_SCORE + 1)) and a new table (the given `get_instance` creates one once the old one is
    dropped).
    """
    table_class = sys.modules["hashtable"].BoardHashTable
    table_class._instance = None
    lookup = table_class.get_hashed_move
    searched: list[tuple[int, int]] = []

    def counted_lookup(table: Any, *args: Any, **kwargs: Any) -> Any:
        id = args[0] if args else kwargs.get("id")
        asked = args[1] if len(args) > 1 else kwargs.get("depth")
        if (
            isinstance(id, int)
            and isinstance(asked, int)
            and asked >= 1
            and not finished(id, constants.BOARD_SIZE)
            and (not searched or searched[-1] != (id, asked))
        ):
            searched.append((id, asked))
        return lookup(table, *args, **kwargs)

    table_class.get_hashed_move = counted_lookup
    try:
        if minimax:
            tree.get_optimal_move(depth)
        else:
            tree.get_optimal_move_alpha_beta(depth, -constants.WIN_SCORE - 1, constants.WIN_SCORE + 1)
    finally:
        table_class.get_hashed_move = lookup
    return len(searched)


def finished(id: int, size: int) -> bool:
    """Whether the board with this id is full or has a line (id: base-3 digits, 1 X, 2 O).

    >>> finished(1 + 3 + 9, 3), finished(1 + 3 + 2 * 9, 3)
    (True, False)
    """
    cells = []
    for _ in range(size * size):
        id, digit = divmod(id, 3)
        cells.append(digit)
    if 0 not in cells:
        return True
    lines = [range(row * size, row * size + size) for row in range(size)]
    lines += [range(col, size * size, size) for col in range(size)]
    lines += [range(0, size * size, size + 1), range(size - 1, size * size - 1, size - 1)]
    return any(cells[line[0]] and all(cells[i] == cells[line[0]] for i in line) for line in lines)
