"""Weighted tic-tac-toe: the task-1 fixtures hold the course's original inputs (docs/exercises.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "weighted"

# The course's input files: the task number, then one "row col" per line, no trailing newline.
ORIGINAL_GAMES = {
    "input1_3_draw.txt": [(1, 1), (0, 1), (1, 0), (1, 2), (2, 2), (0, 0), (0, 2), (2, 0), (2, 1)],
    "input1_3_win.txt": [(1, 1), (0, 1), (1, 0), (1, 2), (2, 0), (0, 2), (2, 2), (0, 0)],
    "input1_4_draw.txt": [
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
        (1, 1),
        (1, 0),
        (1, 3),
        (1, 2),
        (2, 0),
        (2, 1),
        (2, 2),
        (2, 3),
        (3, 0),
        (3, 1),
        (3, 2),
        (3, 3),
    ],
    "input1_4_win.txt": [
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
        (1, 1),
        (1, 0),
        (1, 3),
        (1, 2),
        (2, 0),
        (2, 1),
        (2, 2),
        (2, 3),
        (3, 3),
    ],
}

# What the course's handout says each game shows, and the board's last id.
ENDINGS = {
    "output1_3_draw.txt": ("Player X won!", "ID: 10817"),  # full board, score 90
    "output1_3_win.txt": ("Player O won!", "ID: 7910"),  # O's top row
    "output1_4_draw.txt": ("Player X won!", "ID: 37664260"),  # full board, score 64
    "output1_4_win.txt": ("Player X won!", "ID: 14812297"),  # X's diagonal
}


@pytest.mark.parametrize("name", sorted(ORIGINAL_GAMES))
def test_original_task1_inputs(name: str) -> None:
    moves = "\n".join(f"{row} {col}" for row, col in ORIGINAL_GAMES[name])
    assert (FIXTURES / name).read_text(encoding="utf-8") == "1\n" + moves


@pytest.mark.parametrize("name", sorted(ENDINGS))
def test_original_task1_outputs_end_as_the_course_says(name: str) -> None:
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    result, last_id = ENDINGS[name]
    assert lines[0] == "Select a task number from 1 to 4."
    assert lines[-1] == result
    assert lines[-2] == last_id
    size = 4 if "_4_" in name else 3
    moves = len(ORIGINAL_GAMES[name.replace("output", "input")])
    assert lines.count(f"Select a row from 0 to {size - 1} (top to bottom). Type -1 to quit game.") == moves


def test_project_games_keep_their_own_names() -> None:
    for name in (
        "input1_3_draw_reasks.txt",
        "input1_3_win_row.txt",
        "input1_4_draw_reasks.txt",
        "input1_4_win_antidiagonal.txt",
    ):
        assert (FIXTURES / name).is_file()
        assert (FIXTURES / name.replace("input", "output")).is_file()
