"""Reference solution: evaluating game trees (minimax, negamax, alpha-beta)."""

from __future__ import annotations

from prelude import BOTTOM, Leaf, Move, Sense, Tree, Value, interpret, join, opposite, unit


def size(tree: Tree) -> int:
    """The number of nodes of `tree`."""
    if isinstance(tree, Leaf):
        return 1
    return 1 + sum(size(child) for _move, child in tree.offspring)


def height(tree: Tree) -> int:
    """The largest number of moves from the root to a leaf."""
    if isinstance(tree, Leaf):
        return 0
    return 1 + max(height(child) for _move, child in tree.offspring)


def eval(sense: Sense, tree: Tree) -> Value:
    """The minimax value of `tree` seen by EVEN, when player `sense` is up at the root."""
    if isinstance(tree, Leaf):
        return interpret(sense, tree.value)
    best = unit(sense)
    for _move, child in tree.offspring:
        best = join(sense, best, eval(opposite(sense), child))
    return best


def nval(tree: Tree) -> Value:
    """The negamax value of `tree` seen by the player who is up."""
    if isinstance(tree, Leaf):
        return tree.value
    return max(-nval(child) for _move, child in tree.offspring)


def ntval(tree: Tree) -> Value:
    """Negamax again, with a running maximum over the children, first to last."""
    if isinstance(tree, Leaf):
        return tree.value
    running_max = BOTTOM
    for _move, child in tree.offspring:
        running_max = max(running_max, -ntval(child))
    return running_max


def bval(alpha: Value, beta: Value, tree: Tree) -> Value:
    """The value of `tree` up to (alpha, beta)-equivalence, found by alpha-beta pruning."""
    if isinstance(tree, Leaf):
        return tree.value
    for _move, child in tree.offspring:
        value = -bval(-beta, -alpha, child)
        if value >= beta:
            return value
        alpha = max(alpha, value)
    return alpha


def assured_win(tree: Tree) -> bool:
    """Whether the player who is up wins for sure, in a tree of leaves -1, 0, +1."""
    return bval(0, 1, tree) >= 1


def bmove(alpha: Value, beta: Value, tree: Tree) -> Move | None:
    """The move that achieves `bval(alpha, beta, tree)`, or None at a leaf."""
    if isinstance(tree, Leaf):
        return None
    best = None
    for move, child in tree.offspring:
        value = -bval(-beta, -alpha, child)
        if value >= beta:
            return move
        if value > alpha or best is None:
            best = move
            alpha = max(alpha, value)
    return best
