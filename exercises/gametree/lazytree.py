"""Game trees whose children are computed on demand, shared by the alphabeta and gametree exercises.

This file is given: do not edit it. Both exercises hand out the same file (in the course's
sources, exercises/alphabeta/lazytree.py is a link to exercises/gametree/lazytree.py).

A game tree is either a `Leaf`, a finished game whose `value` is seen by the player who is up
(+1 won, 0 drawn, -1 lost, or any integer from BOTTOM to TOP), or a `NonLeaf`, a game that goes
on, whose `offspring` is a nonempty lazy sequence of `(move, subtree)` pairs, one per permitted
move. Each move is an integer; the subtree is the game after that move, where the other player
is up.

A `Seq` computes its elements only when they are asked for, one at a time, and can be traversed
any number of times (each traversal computes the elements afresh). The grader counts how many
elements ("cells") of the offspring sequences a function asks for: an algorithm that may stop
early must stop early.

Trees can also be written as plain nested lists (`tree_of_plain`): an int is a leaf with that
value and a nonempty list is a nonleaf whose children are the list's items, with moves numbered
0, 1, 2, ... For instance `[[1, -1], 0]` is `nonleaf([nonleaf([leaf(1), leaf(-1)]), leaf(0)])`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeAlias, TypeVar

T = TypeVar("T")
U = TypeVar("U")

Value = int
Move = int

MAX_INT = 2**62 - 1
"""The largest integer of OCaml on a 64-bit machine, where these exercises come from."""

TOP: Value = MAX_INT
"""The best value a tree can have; every value lies between BOTTOM and TOP (included)."""

BOTTOM: Value = -MAX_INT
"""The worst value a tree can have; BOTTOM == -TOP, so negating a value never leaves the range."""


class Seq(Generic[T]):
    """A lazy sequence: `produce(*args)` is called afresh for every traversal.

    >>> squares = Seq.interval(0, 4).map(lambda n: n * n)
    >>> list(squares), list(squares.filter(lambda n: n % 2 == 0))
    ([0, 1, 4, 9], [0, 4])
    """

    __slots__ = ("_args", "_produce")

    def __init__(self, produce: Callable[..., Iterator[T]], *args: Any) -> None:
        self._produce = produce
        self._args = args

    def __iter__(self) -> Iterator[T]:
        return self._produce(*self._args)

    def __repr__(self) -> str:
        return "Seq(...)"

    @staticmethod
    def of_list(items: Iterable[T]) -> Seq[T]:
        """The sequence of the given items (copied now, handed out one by one later)."""
        return Seq(iter, tuple(items))

    @staticmethod
    def interval(start: int, stop: int) -> Seq[int]:
        """The integers from `start` (included) to `stop` (excluded), in increasing order."""
        return Seq(iter, range(start, stop))

    def map(self, function: Callable[[T], U]) -> Seq[U]:
        """The sequence of `function(x)` for every `x` of this one, computed on demand."""
        return Seq(map, function, self)

    def filter(self, keep: Callable[[T], bool]) -> Seq[T]:
        """The elements `x` of this sequence for which `keep(x)` is true, found on demand."""
        return Seq(filter, keep, self)


@dataclass(frozen=True, slots=True)
class Leaf:
    """A finished game, worth `value` to the player who is up."""

    value: Value


@dataclass(frozen=True, slots=True)
class NonLeaf:
    """A game that goes on: `offspring` holds one `(move, subtree)` pair per permitted move."""

    offspring: Offspring


Tree: TypeAlias = Leaf | NonLeaf
Offspring: TypeAlias = Seq[tuple[Move, Tree]]


def leaf(value: Value) -> Tree:
    """The leaf of the given value."""
    return Leaf(value)


def nonleaf(children: Iterable[Tree]) -> Tree:
    """The nonleaf whose children are `children`, reached by the moves 0, 1, 2, ..."""
    pairs = tuple(enumerate(children))
    if not pairs:
        raise ValueError("a nonleaf needs at least one child")
    return NonLeaf(Seq(iter, pairs))


def tree_of_plain(plain: object) -> Tree:
    """The tree written as nested lists: an int is a leaf, a nonempty list is a nonleaf."""
    if type(plain) is int:
        if not BOTTOM <= plain <= TOP:
            raise ValueError(f"leaf value {plain} lies outside BOTTOM..TOP")
        return Leaf(plain)
    if isinstance(plain, list | tuple):
        if not plain:
            raise ValueError("a nonleaf needs at least one child, got []")
        return nonleaf(tree_of_plain(child) for child in plain)
    raise ValueError(f"a plain tree is an int or a nonempty list, not {plain!r}")


def plain_of_tree(tree: Tree) -> object:
    """The tree as nested lists (forces the whole tree; moves are left out)."""
    if isinstance(tree, Leaf):
        return tree.value
    return [plain_of_tree(child) for _move, child in tree.offspring]


class CellCounter:
    """Counts the offspring cells forced in a tree made by `instrument`."""

    __slots__ = ("cells",)

    def __init__(self) -> None:
        self.cells = 0


def instrument(tree: Tree, counter: CellCounter) -> Tree:
    """The same tree, where every offspring element handed out adds 1 to `counter.cells`."""
    if isinstance(tree, Leaf):
        return tree
    return NonLeaf(Seq(_counting, tree.offspring, counter))


def _counting(offspring: Offspring, counter: CellCounter) -> Iterator[tuple[Move, Tree]]:
    """The elements of `offspring`, instrumented, counted as they are handed out."""
    for move, child in offspring:
        counter.cells += 1
        yield move, instrument(child, counter)


TREE_TYPES = (Leaf, NonLeaf)


def check_tree(tree: object) -> Tree:
    """`tree` itself if it is a Leaf or a NonLeaf; a TypeError otherwise."""
    if not isinstance(tree, TREE_TYPES):
        raise TypeError(f"expected a Leaf or a NonLeaf, got a {type(tree).__name__}")
    return tree


MAX_MOVES = 1000
"""No node of the trees these exercises build has more moves than this."""


def _moves_of(offspring: Offspring) -> Iterator[tuple[Move, Tree]]:
    """The pairs of `offspring`, checked, failing beyond MAX_MOVES of them."""
    for count, pair in enumerate(offspring):
        if count == MAX_MOVES:
            raise ValueError(f"a node has more than {MAX_MOVES} moves")
        move, child = pair
        yield move, check_tree(child)


def bfs(tree: Tree, limit: int) -> list[object]:
    """The first `limit` nodes of `tree` in breadth-first order, as plain data.

    A leaf shows as its value; a nonleaf as the list of its moves, in order.
    """
    queue: deque[Tree] = deque([check_tree(tree)])
    nodes: list[object] = []
    while queue and len(nodes) < limit:
        node = queue.popleft()
        if isinstance(node, Leaf):
            nodes.append(node.value)
            continue
        moves = []
        for move, child in _moves_of(node.offspring):
            moves.append(move)
            queue.append(child)
        nodes.append(moves)
    return nodes


def count_nodes(tree: Tree) -> int:
    """The number of nodes of `tree`, leaves and nonleaves, found without recursion."""
    count = 0
    stack = [check_tree(tree)]
    while stack:
        node = stack.pop()
        count += 1
        if isinstance(node, NonLeaf):
            moves = len(stack)
            for _move, child in node.offspring:
                if not isinstance(child, TREE_TYPES):
                    check_tree(child)
                stack.append(child)
                if len(stack) - moves > MAX_MOVES:
                    raise ValueError(f"a node has more than {MAX_MOVES} moves")
    return count
