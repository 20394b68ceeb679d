"""Weighted tic-tac-toe: the given drivers (main, program, id2board) on good and bad input."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from types import ModuleType

import pytest

from tests.support import exercise_modules


@pytest.fixture
def weighted() -> Iterator[dict[str, ModuleType]]:
    with exercise_modules("weighted") as modules:
        yield modules


def run(
    module: ModuleType,
    argv: list[str],
    stdin: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = module.main(argv)
    return status, capsys.readouterr().out


def test_main_task3(
    weighted: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run(weighted["main"], [], "3\n", monkeypatch, capsys)
    assert status == 0
    assert out.splitlines()[1:] == [
        "First call: 20000",
        "Second call: 10000",
        "Third call: 20000",
        "Fourth call: 20000",
    ]


def test_main_reasks_and_quits(
    weighted: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run(weighted["main"], ["--size", "4"], "7\nnope\n1\n4 0\n-1\n", monkeypatch, capsys)
    lines = out.splitlines()
    assert status == 0
    assert lines.count("Select a task number from 1 to 4.") == 3
    assert lines.count("Select a row from 0 to 3 (top to bottom). Type -1 to quit game.") == 2
    assert "Traceback" not in out and not lines[-1].startswith("End of input")


@pytest.mark.parametrize("stdin", ["", "1\n", "1\n1 1\n2"])
def test_main_end_of_input(
    weighted: dict[str, ModuleType],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    stdin: str,
) -> None:
    status, out = run(weighted["main"], [], stdin, monkeypatch, capsys)
    assert status == 0
    assert out.splitlines()[-1] == "End of input: quitting."


def test_main_refuses_huge_depths(
    weighted: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run(weighted["main"], ["--size", "4", "--depth", "9"], "2\n", monkeypatch, capsys)
    assert status == 0 and out.startswith("WARNING: High search depth")


@pytest.mark.parametrize(
    ("argv", "status", "first_line"),
    [
        (["-a", "-m"], 2, "Multiple modes specified, which is not allowed."),
        (["-v", "--auto"], 2, "Multiple modes specified, which is not allowed."),
        (["-ab", "--fast"], 2, "Invalid command line argument."),
        (["-a", "-d"], 2, "Invalid command line argument."),
        (["--size", "5"], 2, "Invalid command line argument."),
        (["-h"], 0, "The following arguments are available:"),
    ],
)
def test_program_flags(
    weighted: dict[str, ModuleType],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    status: int,
    first_line: str,
) -> None:
    got, out = run(weighted["program"], argv, "", monkeypatch, capsys)
    assert got == status
    assert out.startswith(first_line)


def test_program_defaults_and_versus_quit(
    weighted: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run(weighted["program"], ["-v", "-d", "0"], "5\n-1\n", monkeypatch, capsys)
    lines = out.splitlines()
    assert status == 0
    assert lines[0] == "Search depth not specified. Using preset depth of 4."
    assert len(lines) == 3 and lines[1] == lines[2]  # the side was asked again, then -1 quit


def test_program_auto_plays_a_whole_game(
    weighted: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run(weighted["program"], ["-a", "-d", "3"], "", monkeypatch, capsys)
    lines = out.splitlines()
    assert status == 0
    assert lines[-2] in ("Player X won!", "Player O won!", "Draw!")
    assert lines[-1].startswith("Took ")


def test_program_taken_square_is_played_again(
    weighted: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run(weighted["program"], ["-m"], "1 1\n1 1\n0 0\n", monkeypatch, capsys)
    assert status == 0
    assert out.count("ID: 81") == 2 and "ID: 83" in out
    assert out.splitlines()[-1] == "End of input: quitting."


@pytest.mark.parametrize(
    ("argv", "status", "rows"),
    [
        (["-s", "3", "-i", "4721"], 0, ["| O | X | O |", "|   | X | X |", "|   | O |   |"]),
        (["--size", "4", "--id", "1"], 0, ["| X |   |   |   |", "|   |   |   |   |"] + [""] * 0),
        (["-s", "3", "-i", "19683"], 2, []),
        (["-s", "3"], 2, []),
        (["-x", "3"], 2, []),
    ],
)
def test_id2board(
    weighted: dict[str, ModuleType],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    status: int,
    rows: list[str],
) -> None:
    got, out = run(weighted["id2board"], argv, "", monkeypatch, capsys)
    assert got == status
    drawn = out.splitlines()[1::2]
    assert drawn[: len(rows)] == rows
    if status:
        assert out.splitlines()[-1].startswith("Usage: id2board")


def test_id2board_agrees_with_board_ids(weighted: dict[str, ModuleType]) -> None:
    board_module, constants = weighted["board"], weighted["constants"]
    constants.configure(4)
    board = board_module.Board(constants.SCORE_PRESET)
    for row, col in [(3, 3), (0, 1), (2, 0), (1, 2)]:
        board.play(board_module.BoardCoordinate(row, col))
    grid = weighted["id2board"].id_to_grid(board.id, 4)
    assert constants.format_grid(grid) == str(board)
