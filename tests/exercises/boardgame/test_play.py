"""The given boardgame search and driver, run on the reference Board and Dictionary."""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support import ROOT, exercise_modules

FIXTURES = ROOT / "fixtures" / "boardgame"
BAD_FILES = {
    "bad_missing_k.txt": 3,
    "bad_number.txt": 2,
    "bad_zero_rows.txt": 1,
    "bad_negative_depth.txt": 4,
    "bad_k_too_large.txt": 3,
    "bad_too_few_rows.txt": 7,
    "bad_too_many_rows.txt": 7,
    "bad_row_length.txt": 6,
    "bad_unknown_char.txt": 6,
}


@pytest.fixture(scope="module")
def modules() -> Iterator[dict[str, ModuleType]]:
    with exercise_modules("boardgame") as loaded:
        yield loaded


def run_driver(
    modules: dict[str, ModuleType],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    moves: str = "",
) -> tuple[int, str]:
    """Exit status and output of play.main with `moves` on stdin."""
    monkeypatch.setattr("sys.stdin", io.StringIO(moves))
    status = modules["play"].main(argv)
    return status, capsys.readouterr().out


def minimax(board: Any, symbol: str, level: int) -> int:
    """The exact game value the search should find (no cuts, no dictionary)."""
    best: int | None = None
    for row in range(board.rows):
        for col in range(board.cols):
            if not board.square_is_empty(row, col):
                continue
            board.store_play(row, col, symbol)
            if board.wins(symbol) or board.is_draw() or level == board.max_levels:
                value = board.eval_board()
            else:
                value = minimax(board, "b" if symbol == "o" else "o", level + 1)
            board.store_play(row, col, "g")
            if best is None or (value > best if symbol == "o" else value < best):
                best = value
    assert best is not None
    return best


@pytest.mark.parametrize(("name", "line"), sorted(BAD_FILES.items()))
def test_bad_board_files(
    modules: dict[str, ModuleType],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    line: int,
) -> None:
    with pytest.raises(modules["play"].BoardFileError) as raised:
        modules["play"].parse_board((FIXTURES / name).read_text())
    assert raised.value.line == line
    status, out = run_driver(modules, monkeypatch, capsys, [str(FIXTURES / name)])
    assert status == 1
    assert out.splitlines() == [f"Error: {name}, line {line}: {raised.value.message}."]


def test_missing_file_and_usage(
    modules: dict[str, ModuleType],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    status, out = run_driver(modules, monkeypatch, capsys, [str(tmp_path / "none.txt")])
    assert (status, out) == (1, "Error: none.txt: cannot be read (No such file or directory).\n")
    for argv in ([], ["a", "b"], ["a", "--first"], ["a", "--first", "nobody"], ["--first"]):
        status, out = run_driver(modules, monkeypatch, capsys, argv)
        assert (status, out) == (2, modules["play"].USAGE + "\n")


def test_good_board_files_parse(modules: dict[str, ModuleType]) -> None:
    spec = modules["play"].parse_board((FIXTURES / "board_4x5_k3.txt").read_text())
    assert spec == (4, 5, 3, 4, ["ggggg", "gggdg", "ggggg", "ggggg"])
    spec = modules["play"].parse_board("2\r\n3\r\n2\r\n0\r\nggg\r\ndgd\r\n\r\n\r\n")
    assert spec == (2, 3, 2, 0, ["ggg", "dgd"])


def test_a_whole_game(
    modules: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    moves = (FIXTURES / "moves_3x3_mistakes.txt").read_text()
    status, out = run_driver(modules, monkeypatch, capsys, [str(FIXTURES / "board_3x3_centre.txt")], moves)
    lines = out.splitlines()
    assert status == 0
    assert lines[0].startswith("3x3 board, 3 in a line to win, search depth 8.")
    assert lines[-1] == "It is a draw."
    assert "(1, 1) is blocked." in lines
    assert "(0, 0) is taken." in lines
    assert "(3, 0) is off the board: rows go from 0 to 2, columns from 0 to 2." in lines
    assert 'Type a row and a column, for example "1 2".' in lines
    assert lines.count("Your move (row column):") == len(moves.splitlines())


def test_input_ending_early(
    modules: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run_driver(
        modules, monkeypatch, capsys, [str(FIXTURES / "board_3x3_centre.txt"), "--first", "computer"]
    )
    assert status == 1
    assert out.splitlines()[-1] == "The input ended before the game did."


def test_computer_wins_then_blocks(modules: dict[str, ModuleType]) -> None:
    board_type, computer = modules["board"].Board, modules["computer"]
    board = board_type(3, 3, 3, 4, ["oog", "bbg", "ggg"])
    assert computer.choose_move(board) == (0, 2, "win", 3)
    board = board_type(3, 3, 3, 4, ["ogg", "bbg", "ogg"])
    assert computer.choose_move(board) == (1, 2, "block", None)
    assert board.config() == "oggbbgogg"


def test_search_opening_of_the_centre_board(modules: dict[str, ModuleType]) -> None:
    board = modules["board"].Board(3, 3, 3, 8, ["ggg", "gdg", "ggg"])
    assert modules["computer"].choose_move(board) == (0, 0, "search", 2)
    assert board.config() == "ggggdgggg"


def test_search_finds_the_minimax_value(modules: dict[str, ModuleType]) -> None:
    board_type, computer = modules["board"].Board, modules["computer"]
    rng = random.Random(1)
    checked = 0
    while checked < 120:
        rows, cols = rng.randint(2, 3), rng.randint(2, 4)
        k = rng.randint(2, max(rows, cols))
        grid = ["".join(rng.choice("ggggdob") for _ in range(cols)) for _ in range(rows)]
        board = board_type(rows, cols, k, rng.randint(1, 8), grid)
        if board.eval_board() != 1 or "".join(grid).count("g") > 7:
            continue  # decided already, or too slow for the plain minimax
        table = modules["dictionary"].Dictionary(101)
        reply = computer.computer_play(board, table, "o", -1, 4, 0)
        assert reply.score == minimax(board, "o", 0), grid
        assert board.config() == "".join(grid)
        assert board.square_is_empty(reply.row, reply.col)
        checked += 1


def test_the_dictionary_saves_work(modules: dict[str, ModuleType]) -> None:
    """Without repeated configurations found, the same search visits far more positions."""
    dictionary, computer = modules["dictionary"], modules["computer"]

    class NeverFinds(dictionary.Dictionary):
        def get(self, config: str) -> None:
            return None

        def put(self, record: object) -> int:
            return 0

    visits = {}
    for table_type in (dictionary.Dictionary, NeverFinds):
        board = modules["board"].Board(3, 3, 3, 9, ["ggg", "ggg", "ggg"])
        plays = 0
        store = board.store_play

        def counting(row: int, col: int, symbol: str, store: Any = store) -> None:
            nonlocal plays
            plays += 1
            store(row, col, symbol)

        board.store_play = counting
        reply = computer.computer_play(board, table_type(9887), "o", -1, 4, 0)
        assert reply.score == 2
        visits[table_type] = plays
    assert visits[NeverFinds] > 3 * visits[dictionary.Dictionary]
