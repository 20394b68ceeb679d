"""Going further: solving (w, h, k) tic-tac-toe (the second file you hand in).

This part combines this exercise with its companion, alphabeta. With your `tree` from
gametree.py and your alpha-beta `bval`, you can check that tic-tac-toe is a draw: although its
tree has 549946 nodes, alpha-beta examines only part of it and finds the value in a moment.

Bigger games, such as (4, 4, 4), are out of reach of a plain tree search: the same position is
reached by many orders of moves, and the tree examines it again every time. A transposition
table (a dict from positions to what is known of their values) fixes that.

Replace each `raise NotImplementedError` with your code; you may add helper functions, and
import what you need from gametree.py (`from gametree import ...`).
"""

from __future__ import annotations

from prelude import (  # noqa: F401 - everything you may need
    BOTTOM,
    TOP,
    Bitmap,
    Leaf,
    NonLeaf,
    State,
    Tree,
    Value,
    check_game,
    encode,
)


def bval(alpha: Value, beta: Value, tree: Tree) -> Value:
    """Your alpha-beta evaluation from the companion exercise (its question 6): the value of
    `tree` for the player who is up, up to (alpha, beta)-equivalence, where alpha < beta.

    If the exact value v lies strictly between alpha and beta, the result is v; if v <= alpha,
    any result <= alpha will do; if v >= beta, any result >= beta will do.

    The grader evaluates your own game trees with it: for tic-tac-toe,
    `bval(BOTTOM, TOP, tree(initial(3, 3, 3)))` must be 0 (a draw) and take well under a second.
    """
    raise NotImplementedError


def solve(w: int, h: int, k: int) -> Value:
    """The value of the (w, h, k) game for the first player when both play perfectly: +1 if
    the first player can force a win, -1 if the second player can, 0 if it is a draw.

    `solve(3, 3, 3)` is 0; so is `solve(4, 4, 4)`, which must fit in the test's CPU limit (the
    suite states it): a plain solution as described here fits easily, a tree search without a
    table does not.
    To get there, search the game states directly (no tree needed) with alpha-beta, and keep a
    transposition table keyed by the position (the two bitmaps, for instance). Take care: a
    value found with a narrowed window (alpha, beta) is only a bound when it lands on or
    outside the window, so store whether you know the exact value, a lower bound or an upper
    bound, and use each kind accordingly when the position comes back.

    The grader also counts your search's work (`probes.positions_searched`): the calls of the
    function in this file that calls itself (your alpha-beta over states, one call per
    position searched) while solving (7, 2, 5). It may make at most 6 times as many as the
    reference's; without a table it makes about 35 times as many.

    >>> solve(3, 3, 2), solve(3, 3, 3)
    (1, 0)
    """
    raise NotImplementedError
