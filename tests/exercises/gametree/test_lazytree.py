"""Tests of the lazy game trees shared by two exercises (exercises/gametree/lazytree.py).

The one file lives in exercises/gametree/; exercises/alphabeta/lazytree.py is a symbolic link to
it, so both exercises' stubs, grading and handouts (which copy its contents) use the same code.
"""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.support import ROOT, exercise_modules

SHARED = ROOT / "exercises" / "gametree" / "lazytree.py"
LINK = ROOT / "exercises" / "alphabeta" / "lazytree.py"


@pytest.fixture(scope="module")
def lazytree() -> ModuleType:
    with exercise_modules("gametree") as modules:
        return modules["lazytree"]


def test_alphabeta_links_to_the_one_copy() -> None:
    assert SHARED.is_file() and not SHARED.is_symlink()
    assert LINK.is_symlink() and LINK.resolve() == SHARED.resolve(), (
        "exercises/alphabeta/lazytree.py must be a link to ../gametree/lazytree.py, not a copy"
    )


def test_seq_is_lazy_and_can_be_traversed_again(lazytree: ModuleType) -> None:
    produced: list[int] = []

    def numbers() -> object:
        for n in range(5):
            produced.append(n)
            yield n

    seq = lazytree.Seq(numbers)
    assert produced == []
    iterator = iter(seq)
    assert next(iterator) == 0
    assert produced == [0]
    assert list(seq) == [0, 1, 2, 3, 4]
    assert list(seq) == [0, 1, 2, 3, 4]


def test_seq_combinators(lazytree: ModuleType) -> None:
    Seq = lazytree.Seq
    assert list(Seq.interval(2, 6)) == [2, 3, 4, 5]
    assert list(Seq.interval(3, 3)) == []
    evens = Seq.interval(0, 10).filter(lambda n: n % 2 == 0).map(lambda n: n * 10)
    assert list(evens) == [0, 20, 40, 60, 80]
    assert list(evens) == [0, 20, 40, 60, 80]
    source = [1, 2]
    copied = Seq.of_list(source)
    source.append(3)
    assert list(copied) == [1, 2]
    assert repr(copied) == "Seq(...)"


def test_tree_of_plain_numbers_moves_from_zero(lazytree: ModuleType) -> None:
    tree = lazytree.tree_of_plain([[5, 10], -8])
    moves = [move for move, _child in tree.offspring]
    assert moves == [0, 1]
    assert lazytree.plain_of_tree(tree) == [[5, 10], -8]
    assert lazytree.tree_of_plain(3) == lazytree.Leaf(3)


@pytest.mark.parametrize("bad", [[], [1, []], "x", 1.5, None, [1, [2, "3"]], 2**62, -(2**62)])
def test_tree_of_plain_rejects_what_is_not_a_tree(lazytree: ModuleType, bad: object) -> None:
    with pytest.raises(ValueError):
        lazytree.tree_of_plain(bad)


def test_nonleaf_needs_a_child(lazytree: ModuleType) -> None:
    with pytest.raises(ValueError):
        lazytree.nonleaf([])


def test_bottom_and_top_are_opposite(lazytree: ModuleType) -> None:
    assert lazytree.BOTTOM == -lazytree.TOP == -(2**62 - 1)


def test_instrument_counts_only_the_cells_handed_out(lazytree: ModuleType) -> None:
    counter = lazytree.CellCounter()
    tree = lazytree.instrument(lazytree.tree_of_plain([[1, 2, 3], 4, [5]]), counter)
    assert counter.cells == 0
    iterator = iter(tree.offspring)
    _move, first = next(iterator)
    assert counter.cells == 1
    next(iter(first.offspring))
    assert counter.cells == 2
    assert lazytree.plain_of_tree(tree) == [[1, 2, 3], 4, [5]]
    assert counter.cells == 2 + 3 + 3 + 1


def test_traversing_twice_counts_twice(lazytree: ModuleType) -> None:
    counter = lazytree.CellCounter()
    tree = lazytree.instrument(lazytree.tree_of_plain([0, 0]), counter)
    list(tree.offspring)
    list(tree.offspring)
    assert counter.cells == 4


def test_bfs_lists_nodes_level_by_level(lazytree: ModuleType) -> None:
    tree = lazytree.tree_of_plain([[5, 10], -8])
    assert lazytree.bfs(tree, 100) == [[0, 1], [0, 1], -8, 5, 10]
    assert lazytree.bfs(tree, 2) == [[0, 1], [0, 1]]
    assert lazytree.bfs(lazytree.Leaf(0), 10) == [0]


def test_bfs_and_count_reject_things_that_are_not_trees(lazytree: ModuleType) -> None:
    with pytest.raises(TypeError):
        lazytree.bfs([1, 2], 10)
    bad_child = lazytree.NonLeaf(lazytree.Seq.of_list([(0, "leaf")]))
    with pytest.raises(TypeError):
        lazytree.count_nodes(bad_child)


def test_bfs_refuses_endless_offspring(lazytree: ModuleType) -> None:
    def forever() -> object:
        move = 0
        while True:
            yield move, lazytree.Leaf(0)
            move += 1

    with pytest.raises(ValueError):
        lazytree.bfs(lazytree.NonLeaf(lazytree.Seq(forever)), 10)


def test_count_nodes_counts_leaves_and_nonleaves(lazytree: ModuleType) -> None:
    assert lazytree.count_nodes(lazytree.tree_of_plain([[5, 10], -8])) == 5
    assert lazytree.count_nodes(_deep_tree(lazytree, 5000)) == 5001


def _deep_tree(lazytree: ModuleType, depth: int) -> object:
    """A path of `depth` nonleaves, built without recursion."""
    tree = lazytree.Leaf(1)
    for _ in range(depth):
        tree = lazytree.NonLeaf(lazytree.Seq.of_list([(0, tree)]))
    return tree
