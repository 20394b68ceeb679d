"""Reference solution: solving (w, h, k) tic-tac-toe with game trees and a transposition table."""

from __future__ import annotations

from prelude import Bitmap, Leaf, Tree, Value, check_game, encode


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


def lines(w: int, h: int, k: int) -> list[Bitmap]:
    """Every set of k squares in a row, a column or a diagonal, as a bitmap."""
    found = []
    for i in range(w):
        for j in range(h):
            for di, dj in ((0, 1), (1, 0), (1, 1), (1, -1)):
                if 0 <= i + (k - 1) * di < w and 0 <= j + (k - 1) * dj < h:
                    found.append(sum(1 << encode(w, h, i + t * di, j + t * dj) for t in range(k)))
    return found


def solve(w: int, h: int, k: int) -> Value:
    """The value of the (w, h, k) game for the first player: +1 win, 0 draw, -1 loss."""
    check_game(w, h, k)
    all_lines = lines(w, h, k)
    board = sum(1 << encode(w, h, i, j) for i in range(w) for j in range(h))
    bounds: dict[tuple[Bitmap, Bitmap], tuple[Value, Value]] = {}  # the transposition table

    def winning_squares(mine: Bitmap, theirs: Bitmap) -> Bitmap:
        """The free squares that would complete a line for the owner of `mine`."""
        squares = 0
        for line in all_lines:
            if not line & theirs:
                missing = line & ~mine
                if missing & (missing - 1) == 0:  # exactly one square missing
                    squares |= missing
        return squares

    def value(player: Bitmap, opponent: Bitmap, alpha: Value, beta: Value) -> Value:
        """The value for the player who is up, up to (alpha, beta)-equivalence."""
        if winning_squares(player, opponent):
            return 1
        free = board & ~(player | opponent)
        if not free or all(line & player and line & opponent for line in all_lines):
            return 0  # the board is full, or no line can be completed any more
        lower, upper = bounds.get((player, opponent), (-1, 1))
        if lower >= beta or lower == upper:
            return lower
        if upper <= alpha:
            return upper
        alpha, beta = max(alpha, lower), min(beta, upper)
        threats = winning_squares(opponent, player)
        if threats & (threats - 1):
            bounds[player, opponent] = (-1, -1)  # two threats: only one can be blocked
            return -1
        best, low = -1, alpha
        moves = threats or free  # a single threat must be blocked at once
        while moves and best < beta:
            square = moves & -moves
            moves ^= square
            best = max(best, -value(opponent, player | square, -beta, -max(alpha, best)))
        if best <= low:
            bounds[player, opponent] = (lower, best)
        elif best >= beta:
            bounds[player, opponent] = (best, upper)
        else:
            bounds[player, opponent] = (best, best)
        return best

    return value(0, 0, -1, 1)
