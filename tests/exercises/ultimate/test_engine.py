"""The reference engine against the plain model of the original in fixtures/ultimate/cases.py."""

from __future__ import annotations

import inspect
import random
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from grader.suite.schema import Step
from tests.support import cases_module, exercise_modules

model = cases_module("ultimate")

WIN = model.WIN


@pytest.fixture(scope="module")
def engine() -> Iterator[ModuleType]:
    with exercise_modules("ultimate") as modules:
        yield modules["engine"]


@pytest.fixture(scope="module")
def tables(engine: ModuleType) -> Any:
    return engine.build_tables()


def test_tables_match_the_model(tables: Any) -> None:
    large, small = tables
    assert len(large) == len(small) == 1 << 18
    assert (large, small) == model.tables()


def test_table_examples_from_the_docstrings(tables: Any) -> None:
    large, small = tables
    assert large[1 << 4] == 305 and small[1 << 4] == 13
    assert large[0b111] == WIN and small[0b111] == 0
    assert large[0b111 << 9] == -WIN
    full_draw = 0b001_110_010 << 9 | 0b110_001_101  # X O X / X O O / O X X
    assert large[full_draw] == 0 and small[full_draw] == 0
    assert large[0] == small[0] == 0


def test_names_round_trip(engine: ModuleType) -> None:
    assert [engine.parse_move(engine.move_name(m)) for m in range(81)] == list(range(81))
    assert engine.move_name(2) == "nw/ne" and engine.move_name(40) == "c/c"
    assert engine.move_name(80) == "se/se" and engine.parse_move("n/se") == 17


@pytest.mark.parametrize("text", ["", "nw", "NW/NE", "x/y", "nw/ne/c", " nw/ne", "nw/", "4/4"])
def test_parse_move_refuses(engine: ModuleType, text: str) -> None:
    with pytest.raises(ValueError):
        engine.parse_move(text)


def random_positions(seed: int, count: int) -> list[tuple[Any, int]]:
    return model.positions(seed, count, 0, 81, live=False)


def test_rules_and_evaluation_match_the_model(engine: ModuleType, tables: Any) -> None:
    rng = random.Random(11)
    for _ in range(60):
        for board, side in model.random_game(rng, 81):
            assert engine.generate_moves(board) == model.legal_moves(board)
            assert engine.evaluate(board, side, tables) == model.heuristic(board, side)
            assert engine.evaluate(board, 1 - side, tables) == model.heuristic(board, 1 - side)
            assert engine.board_string(board) == model.board_text(board)
            for move in model.legal_moves(board):
                assert engine.play_move(board, move, side) == model.apply(board, move, side)


def test_play_move_examples(engine: ModuleType) -> None:
    start = engine.EMPTY_BOARD
    assert start == (0, 0, 9 << 54)
    assert engine.play_move(start, 40, 0) == (1 << 40, 0, 4 << 54)
    assert engine.play_move(start, 80, 1) == (0, 0, 1 << 35 | 8 << 54)
    assert engine.generate_moves(engine.play_move(start, 40, 0)) == [36, 37, 38, 39, 41, 42, 43, 44]
    # X takes zone nw with its cell nw: O may then play anywhere but in nw.
    board = (0b000_000_110, 0, 0 << 54)
    after = engine.play_move(board, 0, 0)
    assert after == (0b111, 0, 1 << 36 | 9 << 54)
    assert engine.generate_moves(after) == list(range(9, 81))


def test_lists_are_accepted_as_boards(engine: ModuleType, tables: Any) -> None:
    board = engine.play_move(engine.EMPTY_BOARD, 40, 0)
    assert engine.play_move(list(board), 36, 1) == engine.play_move(board, 36, 1)
    assert engine.search(list(board), 1, 3, tables) == engine.search(board, 1, 3, tables)


def test_eval_string(engine: ModuleType) -> None:
    show = engine.eval_string
    assert [show(v, 8) for v in (91, -7, 0, WIN - 3, -WIN + 5, WIN - 8, WIN - 9)] == [
        "+91",
        "-7",
        "D0",
        "W3",
        "L5",
        "W8",
        "+999991",
    ]
    assert show(-WIN + 8, 8) == "L8" and show(-WIN + 9, 8) == "-999991"


def test_search_examples_from_the_docstrings(engine: ModuleType, tables: Any) -> None:
    start = engine.EMPTY_BOARD
    assert engine.search(start, 0, 1, tables) == (13, [4])
    assert engine.search(start, 0, 2, tables) == (3, [40, 36])
    assert engine.search(start, 0, 0, tables) == (0, [])
    with pytest.raises(ValueError):
        engine.search(start, 0, -1, tables)


@pytest.mark.parametrize("seed", [21, 22, 23])
def test_search_matches_the_model(engine: ModuleType, tables: Any, seed: int) -> None:
    rng = random.Random(seed)
    for board, side in model.positions(seed, 25, 2, 75):
        for depth in (1, 2, 3, 4):
            assert engine.search(board, side, depth, tables) == model.negamax(board, side, depth)
        low = rng.randrange(-400, 300)
        high = low + rng.randrange(1, 200)
        depth = rng.randrange(1, 5)
        assert engine.search(board, side, depth, tables, low, high) == model.negamax(
            board, side, depth, low, high
        )


def test_search_at_the_end_of_the_game(engine: ModuleType, tables: Any) -> None:
    for board, side in random_positions(31, 40):
        if model.legal_moves(board):
            continue
        value, line = engine.search(board, side, 5, tables)
        assert line == [] and value in (0, WIN, -WIN)
        assert value == model.negamax(board, side, 5)[0]


@pytest.mark.slow
def test_search_depth_5_matches_the_model(engine: ModuleType, tables: Any) -> None:
    for board, side in model.positions(41, 6, 10, 50):
        assert engine.search(board, side, 5, tables) == model.negamax(board, side, 5)


def search_results(engine: ModuleType, tables: Any, steps: list[Step]) -> list[Any]:
    calls = [s.args for s in steps if s.call == "engine.search"]
    return [engine.search(tuple(a[0]), a[1], a[2], tables, *a[4:]) for a in calls]


def test_suite_search_cases_cover_every_kind_of_result(engine: ModuleType, tables: Any) -> None:
    for make in (model.search_end_visible, model.search_end_hidden):
        results = search_results(engine, tables, make())
        depths = [s.args[2] for s in make() if s.call == "engine.search"]
        shows = [engine.eval_string(v, d)[0] for (v, _), d in zip(results, depths, strict=True)]
        assert {"W", "L", "D", "+", "-"} <= set(shows)
        assert any(len(line) < d for (_, line), d in zip(results, depths, strict=True))
    for make in (model.search_window_visible, model.search_window_hidden):
        steps = [s for s in make() if s.call == "engine.search"]
        results = search_results(engine, tables, make())
        low = sum(v == s.args[4] for (v, _), s in zip(results, steps, strict=True))
        high = sum(v == s.args[5] for (v, _), s in zip(results, steps, strict=True))
        assert low >= 5 and high >= 5 and len(results) - low - high >= 5


def test_suite_play_cases_capture_into_the_same_zone(engine: ModuleType) -> None:
    for make in (model.play_cases_visible, model.play_cases_hidden):
        hits = 0
        for board, move, side in make():
            after = engine.play_move(tuple(board), move, side)
            zone, cell = divmod(move, 9)
            bit = 36 + 9 * side + zone
            hits += bool(zone == cell and after[2] >> bit & 1 and not board[2] >> bit & 1)
        assert hits >= 6


def test_search_depth_8_from_the_start(engine: ModuleType, tables: Any) -> None:
    value, line = engine.search(engine.EMPTY_BOARD, 0, 8, tables)
    assert (value, len(line)) == (0, 8)
    assert engine.eval_string(value, 8) == "D0"


STUDENT_API = [
    "move_name",
    "parse_move",
    "generate_moves",
    "play_move",
    "build_tables",
    "evaluate",
    "search",
    "eval_string",
    "board_string",
]


def test_stubs_mirror_the_reference(engine: ModuleType) -> None:
    with exercise_modules("ultimate", source="exercises") as stubs:
        stub = stubs["engine"]
        for name in STUDENT_API:
            assert inspect.signature(getattr(stub, name)) == inspect.signature(getattr(engine, name)), name
        for constant in ("INFINITY", "ANY_ZONE", "ZONE_NAMES", "EMPTY_BOARD"):
            assert getattr(stub, constant) == getattr(engine, constant)
        args = {
            "move_name": [2],
            "parse_move": ["nw/ne"],
            "generate_moves": [stub.EMPTY_BOARD],
            "play_move": [stub.EMPTY_BOARD, 40, 0],
            "build_tables": [],
            "evaluate": [stub.EMPTY_BOARD, 0, ([], [])],
            "search": [stub.EMPTY_BOARD, 0, 1, ([], [])],
            "eval_string": [0, 1],
            "board_string": [stub.EMPTY_BOARD],
        }
        for name in STUDENT_API:
            with pytest.raises(NotImplementedError):
                getattr(stub, name)(*args[name])
