"""The alphabeta case generators: uniform enumeration by size, deterministic samples."""

from __future__ import annotations

import itertools

from tests.support import cases_module

cases = cases_module("alphabeta")


def all_trees(edges: int) -> list[object]:
    """Every tree with `edges` edges, built directly (slow, for small sizes only)."""
    if edges == 0:
        return list(cases.LEAF_VALUES)
    found: list[object] = []
    for children in range(1, edges + 1):
        # the children's edges add up to edges - children
        for split in itertools.product(range(edges - children + 1), repeat=children):
            if sum(split) == edges - children:
                for kids in itertools.product(*(all_trees(part) for part in split)):
                    found.append(list(kids))
    return found


def leaves_of(plain: object) -> list[int]:
    return [plain] if isinstance(plain, int) else [leaf for kid in plain for leaf in leaves_of(kid)]


def edges_of(plain: object) -> int:
    return 0 if isinstance(plain, int) else len(plain) + sum(edges_of(kid) for kid in plain)


def test_counts_match_a_direct_enumeration() -> None:
    for edges in range(5):
        direct = all_trees(edges)
        assert cases.trees_of_size(edges) == len(direct)
        ranked = [cases.nth_tree(edges, rank) for rank in range(len(direct))]
        assert sorted(map(repr, ranked)) == sorted(map(repr, direct))


def test_sample_has_every_size_and_is_deterministic() -> None:
    sample = cases.sample_trees()
    assert len(sample) == 3 + 3 + 12 + 50 * 8
    sizes = [edges_of(tree) for tree in sample]
    assert sizes == sorted(sizes)
    assert set(sizes) == set(range(11))
    assert len({repr(tree) for tree in sample}) == len(sample)
    cases.sample_trees.cache_clear()
    assert cases.sample_trees() == sample


def test_case_lists_have_the_expected_shapes() -> None:
    assert len(cases.one_tree()) == 418
    assert len(cases.window_and_tree()) == 418 * 4 + 30 * 4
    assert all(alpha < beta for alpha, beta, _tree in cases.window_and_tree())
    assert {sense for sense, _tree in cases.sense_and_tree()} == {"even", "odd"}
    any_values = [tree for (tree,) in cases.one_tree_any_values()]
    samples = [tree for (tree,) in cases.one_tree()]
    assert any_values[: len(samples)] == samples
    wide = any_values[len(samples) :]
    assert wide and all(edges_of(tree) > 0 for tree in wide)
    values = {leaf for tree in wide for leaf in leaves_of(tree)}
    assert values <= set(range(-9, 10))
    assert values - set(cases.LEAF_VALUES), "no wide tree has a value the sample trees lack"
