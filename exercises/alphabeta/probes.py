"""How the grader calls your functions (given; do not edit).

Test cases are plain data: a tree travels as nested lists (see `lazytree.tree_of_plain`) and is
rebuilt here before your function sees it; what comes back must be plain data too. The probes
of `bval`, `assured_win` and `bmove` also count the offspring elements your function asked for.
"""

from __future__ import annotations

import alphabeta
from lazytree import CellCounter, instrument, tree_of_plain
from prelude import Sense, Value


def size(plain: object) -> int:
    """`alphabeta.size` of the tree written `plain`."""
    return alphabeta.size(tree_of_plain(plain))


def height(plain: object) -> int:
    """`alphabeta.height` of the tree written `plain`."""
    return alphabeta.height(tree_of_plain(plain))


def eval(sense: str, plain: object) -> Value:
    """`alphabeta.eval` with `Sense(sense)` ("even" or "odd") up at the root."""
    return alphabeta.eval(Sense(sense), tree_of_plain(plain))


def nval(plain: object) -> Value:
    """`alphabeta.nval` of the tree written `plain`."""
    return alphabeta.nval(tree_of_plain(plain))


def ntval(plain: object) -> Value:
    """`alphabeta.ntval` of the tree written `plain`."""
    return alphabeta.ntval(tree_of_plain(plain))


def bval(alpha: Value, beta: Value, plain: object) -> dict[str, int]:
    """`alphabeta.bval` brought into [alpha, beta], and the offspring cells it forced.

    Every value at or below alpha is as good an answer as alpha, and every value at or above
    beta as good as beta, so the result is compared after clamping it into [alpha, beta].
    """
    counter = CellCounter()
    value = alphabeta.bval(alpha, beta, instrument(tree_of_plain(plain), counter))
    return {"value": max(alpha, min(beta, value)), "cells_forced": counter.cells}


def assured_win(plain: object) -> dict[str, object]:
    """`alphabeta.assured_win`, and the offspring cells it forced."""
    counter = CellCounter()
    won = alphabeta.assured_win(instrument(tree_of_plain(plain), counter))
    return {"won": won, "cells_forced": counter.cells}


def bmove(alpha: Value, beta: Value, plain: object) -> dict[str, object]:
    """`alphabeta.bmove`, and the offspring cells it forced."""
    counter = CellCounter()
    move = alphabeta.bmove(alpha, beta, instrument(tree_of_plain(plain), counter))
    return {"move": move, "cells_forced": counter.cells}
