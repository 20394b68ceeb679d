"""The gametree reference and its given prelude: seed figures, brute-force checks, bad input."""

from __future__ import annotations

import random
from collections.abc import Iterator
from types import ModuleType

import pytest

from tests.support import cases_module, exercise_modules

gametree_cases = cases_module("gametree")

FITTING_SIZES = [(w, h) for w in range(1, 8) for h in range(1, 8) if (w + 1) * (h + 1) <= 63]


@pytest.fixture(scope="module")
def modules() -> Iterator[dict[str, ModuleType]]:
    with exercise_modules("gametree") as found:
        yield found


# ---------------------------------------------------------------- prelude: drawings and sizes


def test_bitmap_reads_the_seed_drawings(modules: dict[str, ModuleType]) -> None:
    bitmap = modules["prelude"].bitmap
    assert bitmap(3, 3, "....\n111.\n111.\n111.") == 1911
    assert bitmap(3, 3, ".... 100. 100. 100.") == 7
    assert bitmap(3, 3, "0000 0000 0000 1110") == 273
    assert bitmap(3, 3, "." * 16) == 0


def test_draw_and_bitmap_round_trip(modules: dict[str, ModuleType]) -> None:
    prelude = modules["prelude"]
    rng = random.Random(3)
    for w, h in FITTING_SIZES:
        for _ in range(5):
            board = sum(1 << (h + 1) * i + j for i in range(w) for j in range(h) if rng.random() < 0.5)
            assert prelude.bitmap(w, h, prelude.draw(w, h, board)) == board


@pytest.mark.parametrize(
    "w, h, text",
    [
        (3, 3, "....\n111.\n111."),  # too few squares
        (3, 3, "....\n111.\n111.\n111.\n...."),  # too many
        (3, 3, "....\n1x1.\n111.\n111."),  # a stranger
        (3, 3, "...1\n111.\n111.\n111."),  # the extra column marked
        (3, 3, "1...\n111.\n111.\n111."),  # the extra row marked
        (7, 7, "." * 64),  # 64 bits do not fit
        (0, 3, "...."),
        (3, -1, ""),
    ],
)
def test_bitmap_rejects_malformed_drawings(modules: dict[str, ModuleType], w: int, h: int, text: str) -> None:
    with pytest.raises(ValueError):
        modules["prelude"].bitmap(w, h, text)


def test_sizes_must_fit_the_bitmap_width(modules: dict[str, ModuleType]) -> None:
    prelude = modules["prelude"]
    assert prelude.BITMAP_WIDTH == 63
    prelude.check_size(6, 7)  # 7 * 8 = 56 bits
    prelude.check_size(8, 6)  # 9 * 7 = 63 bits
    for w, h in [(7, 7), (15, 3), (1, 31), (0, 1), (1, 0)]:
        with pytest.raises(ValueError, match=r"bits|positive"):
            prelude.check_size(w, h)
    with pytest.raises(ValueError):
        prelude.check_size(3.0, 3)
    with pytest.raises(ValueError):
        prelude.check_game(3, 3, 0)
    with pytest.raises(ValueError):
        prelude.encode(3, 3, 4, 0)
    with pytest.raises(ValueError):
        prelude.encode(3, 3, 0, -1)
    with pytest.raises(ValueError):
        prelude.draw(3, 3, 1 << 16)


def test_state_draws_x_and_o(modules: dict[str, ModuleType]) -> None:
    State = modules["prelude"].State
    assert str(State(3, 3, 3, 1, 32, 2)).split() == ["...", ".O.", "X.."]
    assert str(State(3, 3, 3, 32, 1, 1)).split() == ["...", ".O.", "X.."]


# ---------------------------------------------------------------- part 1


def test_seed_figures(modules: dict[str, ModuleType]) -> None:
    gt = modules["gametree"]
    assert gt.mask(3, 3, 1, 1) == 32
    assert gt.update(3, 3, gt.update(3, 3, 0, 0, 0), 1, 0) == 17
    assert [gt.read(3, 3, 1911, i, j) for i in range(4) for j in range(4)].count(True) == 9
    assert (gt.east(3, 3), gt.northeast(3, 3), gt.southeast(3, 3)) == (4, 5, 3)


def test_decode_inverts_encode(modules: dict[str, ModuleType]) -> None:
    gt, prelude = modules["gametree"], modules["prelude"]
    for w, h in FITTING_SIZES:
        for i in range(w + 1):
            for j in range(h + 1):
                assert gt.decode(w, h, prelude.encode(w, h, i, j)) == (i, j)


def brute_alignments(w: int, h: int, k: int, di: int, dj: int, bitmap: int) -> int:
    """The squares where k marks in a row begin, found square by square."""
    found = 0
    for i in range(w):
        for j in range(h):
            cells = [(i + t * di, j + t * dj) for t in range(k)]
            if all(0 <= a < w and 0 <= b < h and bitmap >> (h + 1) * a + b & 1 for a, b in cells):
                found |= 1 << (h + 1) * i + j
    return found


def test_alignments_agree_with_brute_force(modules: dict[str, ModuleType]) -> None:
    gt, prelude = modules["gametree"], modules["prelude"]
    directions = [(prelude.north, 0, 1), (gt.east, 1, 0), (gt.northeast, 1, 1), (gt.southeast, 1, -1)]
    rng = random.Random(8)
    for w, h in [(3, 3), (4, 4), (4, 3), (3, 4), (6, 7), (8, 6), (5, 2), (1, 6)]:
        for _ in range(20):
            density = rng.choice((0.5, 0.8, 0.95))
            board = sum(1 << (h + 1) * i + j for i in range(w) for j in range(h) if rng.random() < density)
            for k in range(1, 8):
                any_found = False
                for direction, di, dj in directions:
                    expected = brute_alignments(w, h, k, di, dj, board)
                    assert gt.alignments(w, h, k, direction, board) == expected
                    any_found = any_found or expected != 0
                assert gt.has_alignment(w, h, k, board) == any_found


def test_state_helpers(modules: dict[str, ModuleType]) -> None:
    gt = modules["gametree"]
    state = gt.initial(3, 3, 3)
    assert tuple(state) == (3, 3, 3, 0, 0, 0)
    state = gt.play(state, 1, 1)
    assert tuple(state) == (3, 3, 3, 0, 32, 1)
    assert not gt.square_is_available(state, 1, 1)
    assert gt.square_is_available(state, 0, 2)
    assert not gt.square_is_available(state, 3, 1)
    assert not gt.square_is_available(state, 1, 3)
    assert not gt.no_square_is_available(state)
    assert not gt.opponent_has_won(state)


# ---------------------------------------------------------------- part 2: trees


def test_tictactoe_tree_has_549946_nodes_and_value_0(modules: dict[str, ModuleType]) -> None:
    gt, ttt = modules["gametree"], modules["tictactoe"]
    lazytree, prelude = modules["lazytree"], modules["prelude"]
    root = gt.tree(gt.initial(3, 3, 3))
    assert lazytree.count_nodes(root) == 549946
    assert ttt.bval(prelude.BOTTOM, prelude.TOP, root) == 0


def test_tree_moves_are_the_free_squares_in_order(modules: dict[str, ModuleType]) -> None:
    gt, prelude = modules["gametree"], modules["prelude"]
    state = prelude.State(3, 3, 3, 1 + 16, 2 + 32, 4)
    moves = [move for move, _child in gt.tree(state).offspring]
    free = [4 * i + j for i in range(3) for j in range(3)]
    assert moves == [move for move in free if move not in (0, 1, 4, 5)]
    assert gt.tree(prelude.State(3, 3, 3, 6, 273, 5)) == prelude.Leaf(-1)
    assert gt.tree(prelude.State(1, 1, 2, 0, 1, 1)) == prelude.Leaf(0)


def test_the_tree_is_lazy(modules: dict[str, ModuleType]) -> None:
    gt, lazytree = modules["gametree"], modules["lazytree"]
    root = gt.tree(gt.initial(6, 7, 4))  # 42 squares: far too big to build
    assert len(lazytree.bfs(root, 200)) == 200


def test_tree_value_probe_uses_both_files(modules: dict[str, ModuleType]) -> None:
    probes = modules["probes"]
    assert probes.tree_value([3, 3, 3, 0, 0, 0], -1, 1) == 0
    assert probes.tree_value([3, 3, 2, 0, 0, 0], 0, 1) == 1
    assert probes.tree_size([2, 2, 2, 0, 0, 0]) == 41
    assert probes.alignments_with_step(3, 3, 3, 4, 273) == 1
    with pytest.raises(ValueError):
        probes.state_of([3, 3, 0, 0, 0, 0])
    with pytest.raises(TypeError):
        probes.fields_of((3, 3, 3, 0, 0, 0))


# ---------------------------------------------------------------- going further


@pytest.mark.parametrize("w, h", [(w, h) for w in range(1, 4) for h in range(1, 4)])
def test_solve_agrees_with_alpha_beta_on_the_tree(modules: dict[str, ModuleType], w: int, h: int) -> None:
    gt, ttt, prelude = modules["gametree"], modules["tictactoe"], modules["prelude"]
    for k in range(1, 5):
        expected = ttt.bval(prelude.BOTTOM, prelude.TOP, gt.tree(gt.initial(w, h, k)))
        assert ttt.solve(w, h, k) == expected


def test_solve_4x4x4_is_a_draw(modules: dict[str, ModuleType]) -> None:
    assert modules["tictactoe"].solve(4, 4, 4) == 0


def test_solve_rejects_impossible_games(modules: dict[str, ModuleType]) -> None:
    with pytest.raises(ValueError):
        modules["tictactoe"].solve(7, 7, 3)


# ---------------------------------------------------------------- case generators


def test_generated_states_are_real_positions() -> None:
    states = gametree_cases.game_states()
    assert states == gametree_cases.game_states.__wrapped__()
    for w, h, k, player, opponent, past_moves in states:
        assert player & opponent == 0
        assert (player | opponent) & ~gametree_cases.full(w, h) == 0
        assert bin(opponent).count("1") == (past_moves + 1) // 2
        assert bin(player).count("1") == past_moves // 2
        assert not gametree_cases.has_line(w, h, k, player)


def test_generated_bitmaps_stay_on_the_board() -> None:
    for w, h, bitmap, i, j in gametree_cases.bitmap_square_cases():
        assert bitmap & ~gametree_cases.full(w, h) == 0
        assert 0 <= i < w and 0 <= j < h
