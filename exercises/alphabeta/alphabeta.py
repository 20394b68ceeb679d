"""Evaluating game trees: minimax, negamax and alpha-beta (the file you hand in).

A game tree (see `lazytree.py`, re-exported by `prelude.py`) is a `Leaf(value)`, a finished
game whose value is seen by the player who is up there (+1 won, 0 drawn, -1 lost, or any integer
from BOTTOM to TOP), or a `NonLeaf(offspring)`, where `offspring` is a lazy sequence of
`(move, subtree)` pairs, one per permitted move. Players take turns, so the player who is up in a
subtree is always the opponent of the player who is up at its parent.

Loop over an offspring with `for move, child in tree.offspring:`. The sequence computes its
elements only when the loop asks for them, so leaving the loop early (`return`, `break`) saves
the work of building the rest. Every element asked for counts: the grader checks that
`bval`, `assured_win` and `bmove` ask for exactly as many elements as needed, no more (so
traverse each offspring once, front to back, and never convert it to a list).

The examples below write trees as nested lists with `tree_of_plain`: an int is a leaf, a list a
nonleaf whose moves are numbered 0, 1, 2, ... For instance the tree

    T = tree_of_plain([[5, 10], -8])

has a root where two moves are permitted: move 0 leads to a node where two moves lead to the
leaves 5 and 10; move 1 leads to the leaf -8.

Replace each `raise NotImplementedError` with your code; you may add helper functions.
"""

from __future__ import annotations

from lazytree import CellCounter, instrument  # noqa: F401 - for the examples
from prelude import (  # noqa: F401 - everything you may need
    BOTTOM,
    TOP,
    Leaf,
    Move,
    NonLeaf,
    Sense,
    Tree,
    Value,
    interpret,
    join,
    leaf,
    opposite,
    tree_of_plain,
    unit,
)


def size(tree: Tree) -> int:
    """Question 1. The size of `tree`: how many nodes it has, leaves and nonleaves alike.

    >>> size(tree_of_plain([[5, 10], -8]))
    5
    >>> size(leaf(0))
    1
    """
    raise NotImplementedError


def height(tree: Tree) -> int:
    """Question 2. The height of `tree`: the most moves that can be played one after the other
    from its root, that is, the length of its longest branch (a leaf has height 0).

    >>> height(tree_of_plain([[5, 10], -8]))
    2
    >>> height(leaf(7))
    0
    """
    raise NotImplementedError


def eval(sense: Sense, tree: Tree) -> Value:
    """Question 3. Minimax: the value of `tree` in the eyes of player EVEN, when player `sense`
    is up at the root and both players play perfectly.

    At a leaf, the game is over: its value is seen by whoever is up there, so turn it into
    EVEN's eyes with `interpret(sense, value)`. At a nonleaf, the player who is up picks the
    child that suits them best, knowing that the other player is up in that child: EVEN takes
    the largest value, ODD the smallest. Write one piece of code for both senses with
    `join(sense, a, b)` (max for EVEN, min for ODD), `unit(sense)` (the value to start from)
    and `opposite(sense)`.

    In T = [[5, 10], -8] with EVEN up at the root: move 1 reaches the leaf -8, seen by ODD, that
    is 8 for EVEN; move 0 lets ODD choose between the leaves 5 and 10 (seen by EVEN, who is up
    again there), and ODD picks 5. So EVEN plays move 1 and the value is 8.

    >>> T = tree_of_plain([[5, 10], -8])
    >>> eval(Sense.EVEN, T), eval(Sense.ODD, T)
    (8, -8)

    Whoever is up, the two players see opposite values:
    `eval(opposite(sense), t) == -eval(sense, t)` for every tree.
    """
    raise NotImplementedError


def nval(tree: Tree) -> Value:
    """Question 4. Negamax: the value of `tree` in the eyes of the player who is up at its root.

    Because the two players always see opposite values, no sense is needed: a child's value
    seen by the opponent is `v`, so the same child is worth `-v` to us, and we take the largest
    of these. The law `interpret(sense, nval(t)) == eval(sense, t)` holds; in particular
    `nval(t) == eval(Sense.EVEN, t)`.

    >>> nval(tree_of_plain([[5, 10], -8]))
    8
    >>> nval(tree_of_plain([[1, 0], [-1, [1]], 0]))
    0
    """
    raise NotImplementedError


def ntval(tree: Tree) -> Value:
    """Question 5. Negamax again, written as a loop over the children.

    Examine the children in the order of the offspring, first to last, and keep the running
    maximum of their values (negated, as in `nval`), starting from BOTTOM. The result is the
    same as `nval`'s: `ntval(t) == nval(t)` for every tree.

    >>> ntval(tree_of_plain([[5, 10], -8]))
    8
    """
    raise NotImplementedError


def bval(alpha: Value, beta: Value, tree: Tree) -> Value:
    """Question 6. Alpha-beta: the value of `tree` for the player who is up, up to
    (alpha, beta)-equivalence, where `alpha < beta`.

    Let v be the exact value (`ntval(tree)`). If alpha < v < beta, return v exactly. If
    v <= alpha, any result <= alpha will do (the tree is too bad for us to care how bad); if
    v >= beta, any result >= beta will do (it is so good that the opponent will never let us
    reach it). In the words of `prelude.equivalent`:
    `equivalent(alpha, beta, bval(alpha, beta, t), ntval(t))` always holds, and
    `bval(BOTTOM, TOP, t) == ntval(t)`.

    Loop over the children like `ntval`, where `alpha` plays the part of the running maximum:
    once a child is worth v to us, every value up to v is bad, so alpha may become max(alpha, v).
    As soon as a child is worth beta or more, stop (a "cut"): the rest of the offspring is never
    examined. The child is seen by the opponent, for whom our window (alpha, beta) is the window
    (-beta, -alpha): evaluate it with `-bval(-beta, -alpha, child)`.

    >>> T = tree_of_plain([[5, 10], -8])
    >>> bval(BOTTOM, TOP, T)
    8
    >>> bval(-1, 6, T) >= 6
    True

    Pruning: here the first child is already worth +1 to us, and +1 >= beta, so the two other
    children are never asked for (`instrument` counts the offspring elements handed out):

    >>> counter = CellCounter()
    >>> bval(-1, 1, instrument(tree_of_plain([-1, 0, 1]), counter)), counter.cells
    (1, 1)
    """
    raise NotImplementedError


def assured_win(tree: Tree) -> bool:
    """Question 7. Whether the player who is up at the root wins for sure (whatever the opponent
    does), in a tree where every leaf is -1 (lost), 0 (drawn) or +1 (won).

    A single well-chosen call of `bval` answers this: pick the narrowest window that still
    tells a win apart from everything else. The grader counts the offspring elements examined,
    and the narrow window examines the fewest.

    >>> assured_win(tree_of_plain([0, -1])), assured_win(tree_of_plain([0, 1]))
    (True, False)
    """
    raise NotImplementedError


def bmove(alpha: Value, beta: Value, tree: Tree) -> Move | None:
    """Question 8. Alpha-beta that tells which move to play: None if `tree` is a leaf, else the
    move that yields the value `bval(alpha, beta, tree)`.

    Walk the offspring like `bval` does, with the same window updates and the same cut, and
    remember a candidate move: the first move, unless a later child is worth strictly more than
    the current alpha (then that move becomes the candidate and alpha rises); when a child is
    worth beta or more, its move is the answer at once. So among equally good moves the first
    one wins, and if no move beats the initial alpha, the answer is the first move.

    >>> bmove(BOTTOM, TOP, tree_of_plain([[5, 10], -8]))
    1
    >>> bmove(BOTTOM, TOP, tree_of_plain([0, 0, 1]))  # two draws, then a loss: the first draw
    0
    >>> bmove(BOTTOM, TOP, tree_of_plain([0, 0, -1])), bmove(BOTTOM, TOP, leaf(3))
    (2, None)

    Like `bval`, `bmove` must not examine more of the tree than needed.
    """
    raise NotImplementedError
