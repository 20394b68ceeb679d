"""The given console driver (exercises/ultimate/console.py) on the reference engine."""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.support import ROOT, cases_module, exercise_modules

model = cases_module("ultimate")

FIXTURES = Path(ROOT) / "fixtures" / "ultimate"
AI_LINE = re.compile(r"^AI Move: (\S+) PV: \[(.*)\] Eval: (\S+) Time elapsed: \d+ ms$")


@pytest.fixture(scope="module")
def modules() -> Iterator[dict[str, ModuleType]]:
    with exercise_modules("ultimate") as loaded:
        yield loaded


def play(
    modules: dict[str, ModuleType],
    stdin: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> str:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    assert modules["console"].main([]) == 0
    return capsys.readouterr().out


def test_empty_input_ends_quietly(
    modules: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert play(modules, "", monkeypatch, capsys) == "Depth: "
    assert play(modules, "4\n", monkeypatch, capsys) == "Depth: "
    assert play(modules, "4\n7\n", monkeypatch, capsys) == "Depth: "


def test_bad_depths_are_refused(
    modules: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = play(modules, "abc\n0\n-3\n\n2\nx\n2\n", monkeypatch, capsys)
    lines = out.split("\n")
    assert lines[:4] == [
        "Depth: Depth must be a positive whole number, not 'abc'.",
        "Depth: Depth must be a positive whole number, not '0'.",
        "Depth: Depth must be a positive whole number, not '-3'.",
        "Depth: Depth must be a positive whole number, not ''.",
    ]
    assert lines[4] == "Depth: Playing O"
    assert "\n".join(lines[5:22]) == model.board_text(model.START)
    assert lines[22] == "Move: "


def test_bad_moves_are_asked_again(
    modules: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = play(modules, "1\n2\nfoo\nc\nC/C\n\nc/c/c\n c/c \nc/c\n", monkeypatch, capsys)
    # Five bad lines, then ` c/c ` (spaces are ignored); after the engine's reply `c/c` is
    # taken, so it is asked again, and the input ends at that prompt.
    assert out.count("Move: ") - out.count("AI Move: ") == 8
    assert out.count("AI Move: ") == 1
    assert re.search(r"\nZONE: [A-Z]+\nMove: Move: $", out)


def test_engine_playing_x_moves_first(
    modules: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = play(modules, "2\n1\n", monkeypatch, capsys)
    first = out.split("\n")[1]
    assert AI_LINE.match(first)
    assert first.startswith("AI Move: c/c PV: [c/c, c/nw] Eval: +3 Time elapsed: ")


@pytest.mark.parametrize("fixture", ["game_x_d3.txt", "game_o_d3.txt", "hidden_o_d3.txt"])
def test_games_follow_the_model(
    modules: dict[str, ModuleType],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fixture: str,
) -> None:
    stdin = (FIXTURES / fixture).read_text()
    out = play(modules, stdin, monkeypatch, capsys)
    depth, engine_side = int(stdin.split("\n")[0]), int(stdin.split("\n")[1]) - 1
    assert out.split("\n")[0] == "Depth: " + ("Playing X" if engine_side == 0 else "Playing O")
    assert out.rstrip("\n").endswith("Game over")
    board, side = model.START, 0
    engine_lines = [m for m in map(AI_LINE.match, out.split("\n")) if m]
    names = [model.name(m) for m in range(81)]
    opponent_moves = [names.index(line) for line in stdin.split("\n")[2:] if line in names]
    while model.legal_moves(board):
        if side == engine_side:
            value, line = model.negamax(board, side, depth)
            shown = engine_lines.pop(0)
            assert shown.group(1) == model.name(line[0])
            assert shown.group(2) == ", ".join(map(model.name, line))
            assert shown.group(3) == modules["engine"].eval_string(value, depth)
            board = model.apply(board, line[0], side)
        else:
            move = opponent_moves.pop(0)
            while move not in model.legal_moves(board):
                move = opponent_moves.pop(0)
            board = model.apply(board, move, side)
        side = 1 - side
    assert engine_lines == []
    assert model.board_text(board) in out


def test_fixture_inputs_are_up_to_date() -> None:
    for file, text in model.game_inputs().items():
        assert (FIXTURES / file).read_text() == text, file
