"""How the grader calls your functions (given; do not edit).

Test cases are plain data: a game state travels as the list of its six fields and is rebuilt
here; a game tree comes back as its breadth-first listing (`lazytree.bfs`), its node count or
its value.
"""

from __future__ import annotations

import sys
from types import CodeType, FrameType
from typing import Any

import gametree
from lazytree import bfs, count_nodes
from prelude import Bitmap, Leaf, Offset, State, Value, check_game


def state_of(fields: list[int]) -> State:
    """The State whose fields are `fields`: w, h, k, player_bitmap, opponent_bitmap, past_moves."""
    state = State(*fields)
    check_game(state.w, state.h, state.k)
    return state


def fields_of(state: object) -> list[int]:
    """The six fields of `state`, which must be a State."""
    if not isinstance(state, State):
        raise TypeError(f"expected a State, got a {type(state).__name__}")
    return list(state)


def alignments_with_step(w: int, h: int, k: int, step: Offset, bitmap: Bitmap) -> Bitmap:
    """`gametree.alignments` along the direction whose offset is `step`."""
    return gametree.alignments(w, h, k, lambda _w, _h: step, bitmap)


def initial(w: int, h: int, k: int) -> list[int]:
    """The fields of `gametree.initial(w, h, k)`."""
    return fields_of(gametree.initial(w, h, k))


def square_is_available(fields: list[int], i: int, j: int) -> bool:
    """`gametree.square_is_available` in the state written `fields`."""
    return gametree.square_is_available(state_of(fields), i, j)


def play(fields: list[int], i: int, j: int) -> list[int]:
    """The fields of `gametree.play` from the state written `fields`."""
    return fields_of(gametree.play(state_of(fields), i, j))


def no_square_is_available(fields: list[int]) -> bool:
    """`gametree.no_square_is_available` in the state written `fields`."""
    return gametree.no_square_is_available(state_of(fields))


def opponent_has_won(fields: list[int]) -> bool:
    """`gametree.opponent_has_won` in the state written `fields`."""
    return gametree.opponent_has_won(state_of(fields))


def tree_bfs(fields: list[int], limit: int) -> list[object]:
    """The first `limit` nodes, breadth first, of `gametree.tree` from the state `fields`."""
    return bfs(gametree.tree(state_of(fields)), limit)


def tree_size(fields: list[int]) -> int:
    """How many nodes `gametree.tree` has from the state written `fields`."""
    return count_nodes(gametree.tree(state_of(fields)))


def tree_value(fields: list[int], alpha: Value, beta: Value) -> Value:
    """`tictactoe.bval(alpha, beta, ...)` of `gametree.tree`, clamped into [alpha, beta]."""
    import tictactoe  # here, so that a broken tictactoe.py costs only the tests that use it

    value = tictactoe.bval(alpha, beta, gametree.tree(state_of(fields)))
    return max(alpha, min(beta, value))


def best_move(fields: list[int], alpha: Value, beta: Value) -> Offset | None:
    """The move that a player who trusts your `tictactoe.bval` plays in the state `fields`.

    Each move of `gametree.tree`'s offspring is rated by bval on its subtree in the window (alpha,
    beta) (the subtree's value, negated: it is the opponent's), and the first of the best rated is
    played; None when the tree is a leaf. Grading accepts any move as good as the best one, up to
    (alpha, beta)-equivalence (your bval may answer any value beyond the window there).
    """
    import tictactoe  # here, so that a broken tictactoe.py costs only the tests that use it

    root = gametree.tree(state_of(fields))
    if isinstance(root, Leaf):
        return None
    chosen: tuple[Value, Offset] | None = None
    for move, subtree in root.offspring:
        rating = -tictactoe.bval(-beta, -alpha, subtree)
        if chosen is None or rating > chosen[0]:
            chosen = (rating, move)
    return None if chosen is None else chosen[1]


# ---------------------------------------------------------------- the work of solve


class _Stopped(BaseException):
    """Raised inside `solve` once its search has searched more positions than the budget."""


_last: list[Value | None] = [None]  # what the last counted solve returned


def positions_searched(w: int, h: int, k: int, budget: int) -> int:
    """How many positions `tictactoe.solve(w, h, k)` searches: the calls of its search.

    The search is the function of tictactoe.py that calls itself deepest (your alpha-beta over
    game states; a call that the transposition table answers at once counts too). Each of its
    calls is one position searched; a search without a table searches the same positions again
    and again. The count is taken from outside the search (`sys.settrace` sees every call), and
    the search is stopped once it passes `budget`: the grader compares the count with the
    reference's on the same game (at most a stated multiple of it). `searched_value()` then
    gives what solve returned (None when it was stopped).
    """
    import tictactoe  # here, so that a broken tictactoe.py costs only the tests that use it

    mine = tictactoe.__file__
    calls: dict[CodeType, int] = {}
    depth: dict[CodeType, int] = {}
    deepest: list[Any] = [None, 0]  # the code that recursed deepest so far, and how deep

    def returned(frame: FrameType, event: str, _arg: Any) -> Any:
        if event == "return":
            depth[frame.f_code] -= 1
        return returned

    def called(frame: FrameType, _event: str, _arg: Any) -> Any:
        code = frame.f_code
        if code.co_filename != mine:
            return None
        calls[code] = calls.get(code, 0) + 1
        now = depth[code] = depth.get(code, 0) + 1
        if now > deepest[1]:
            deepest[0], deepest[1] = code, now
        if code is deepest[0] and calls[code] > budget:
            raise _Stopped
        frame.f_trace_lines = False
        return returned

    _last[0] = None
    sys.settrace(called)
    try:
        _last[0] = tictactoe.solve(w, h, k)
    except _Stopped:
        pass
    finally:
        sys.settrace(None)
    return calls.get(deepest[0], 0) if deepest[0] is not None else 0


def searched_value() -> Value | None:
    """What `tictactoe.solve` returned in the last `positions_searched` (None if stopped)."""
    return _last[0]
