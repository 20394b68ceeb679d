"""The alphabeta reference obeys the laws its questions state, on the suite's own trees."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import pytest

from tests.support import cases_module, exercise_modules

alphabeta_cases = cases_module("alphabeta")

TREES = alphabeta_cases.sample_trees() + alphabeta_cases.wide_trees()


@pytest.fixture(scope="module")
def modules() -> Iterator[dict[str, ModuleType]]:
    with exercise_modules("alphabeta") as found:
        yield found


def naive_value(plain: object) -> int:
    """Negamax straight on the plain tree."""
    if isinstance(plain, int):
        return plain
    assert isinstance(plain, list)
    return max(-naive_value(child) for child in plain)


def plain_size(plain: object) -> int:
    return 1 if isinstance(plain, int) else 1 + sum(plain_size(child) for child in plain)


def plain_height(plain: object) -> int:
    return 0 if isinstance(plain, int) else 1 + max(plain_height(child) for child in plain)


def test_size_height_and_values(modules: dict[str, ModuleType]) -> None:
    ab, prelude = modules["alphabeta"], modules["prelude"]
    for plain in TREES:
        tree = prelude.tree_of_plain(plain)
        value = naive_value(plain)
        assert ab.size(tree) == plain_size(plain)
        assert ab.height(tree) == plain_height(plain)
        assert ab.nval(tree) == ab.ntval(tree) == value
        for sense in prelude.Sense:
            assert ab.eval(sense, tree) == prelude.interpret(sense, value)
            assert ab.eval(prelude.opposite(sense), tree) == -ab.eval(sense, tree)


def test_bval_is_equivalent_to_the_exact_value(modules: dict[str, ModuleType]) -> None:
    ab, prelude = modules["alphabeta"], modules["prelude"]
    windows = (*alphabeta_cases.WINDOWS, *alphabeta_cases.WIDE_WINDOWS, (-5, 5), (3, 9))
    for plain in TREES:
        tree = prelude.tree_of_plain(plain)
        exact = naive_value(plain)
        assert ab.bval(prelude.BOTTOM, prelude.TOP, tree) == exact
        for alpha, beta in windows:
            assert prelude.equivalent(alpha, beta, ab.bval(alpha, beta, tree), exact)


def test_assured_win_means_value_one(modules: dict[str, ModuleType]) -> None:
    ab, prelude = modules["alphabeta"], modules["prelude"]
    for plain in alphabeta_cases.sample_trees():
        assert ab.assured_win(prelude.tree_of_plain(plain)) == (naive_value(plain) == 1)


def test_bmove_picks_the_first_move_that_achieves_the_value(modules: dict[str, ModuleType]) -> None:
    ab, prelude = modules["alphabeta"], modules["prelude"]
    for plain in TREES:
        tree = prelude.tree_of_plain(plain)
        move = ab.bmove(prelude.BOTTOM, prelude.TOP, tree)
        if isinstance(plain, int):
            assert move is None
            continue
        values = [-naive_value(child) for child in plain]
        assert move == values.index(max(values))


def test_pruning_examines_no_more_than_the_whole_tree(modules: dict[str, ModuleType]) -> None:
    ab, lazytree = modules["alphabeta"], modules["lazytree"]
    for plain in TREES:
        everything = lazytree.CellCounter()
        ab.ntval(lazytree.instrument(lazytree.tree_of_plain(plain), everything))
        assert everything.cells == plain_size(plain) - 1
        pruned = lazytree.CellCounter()
        ab.bval(0, 1, lazytree.instrument(lazytree.tree_of_plain(plain), pruned))
        assert pruned.cells <= everything.cells


def test_a_cut_stops_at_the_first_winning_child(modules: dict[str, ModuleType]) -> None:
    probes = modules["probes"]
    assert probes.bval(-1, 1, [-1, 0, 1]) == {"value": 1, "cells_forced": 1}
    assert probes.bval(-1, 1, [0, 0, -1]) == {"value": 1, "cells_forced": 3}
    assert probes.assured_win([[1, 1], [-1]]) == {"won": True, "cells_forced": 3}
    assert probes.bmove(-1, 1, [1, -1, 0]) == {"move": 1, "cells_forced": 2}


def test_probes_clamp_bval_into_the_window(modules: dict[str, ModuleType]) -> None:
    probes = modules["probes"]
    assert probes.bval(-1, 6, [[5, 10], -8]) == {"value": 6, "cells_forced": 4}
    assert probes.bval(-100, 100, [[5, 10], -8]) == {"value": 8, "cells_forced": 4}
    assert probes.eval("odd", [[5, 10], -8]) == -8
    with pytest.raises(ValueError):
        probes.eval("both", 0)
