"""`grader tournament`: a class of engines plays every pair; standings, crosstable and records in
JSON and HTML, students' names and answers escaped; bad input is one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from grader import cli
from grader.exercise import project_root

TABLES = "def build_tables():\n    return 0\n\n"
GARBAGE = TABLES + "def search(board, side, depth, tables):\n    return '<img src=x onerror=alert(1)>'\n"
ILLEGAL = TABLES + "def search(board, side, depth, tables):\n    return 0, [81]\n"


def a_class(root: Path) -> Path:
    folder = root / "class"
    folder.mkdir()
    shutil.copytree(project_root() / "reference" / "ultimate", folder / "ref")
    for name, source in (("<b>garbage", GARBAGE), ("illegal", ILLEGAL)):
        (folder / name).mkdir()
        (folder / name / "engine.py").write_text(source)
    return folder


@pytest.mark.slow  # six games, two of them with the reference's moves (its tables each time)
def test_a_tournament_ranks_the_engines_and_writes_its_records(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code = cli.main(
        [
            "tournament",
            "ultimate",
            str(a_class(tmp_path)),
            "-j",
            "1",
            "--out",
            str(out),
            "--sandbox",
            "process",
        ]
    )
    assert code == 0
    data = json.loads((out / "tournament.json").read_text())
    standings = data["standings"]
    assert standings[0]["student"] == "ref"
    assert standings[0]["points"] == 4 and standings[0]["forfeits"] == 0
    assert len(data["games"]) == 6
    assert all(game["void"] is None for game in data["games"])
    losers = {row["student"]: row for row in standings[1:]}
    assert losers["illegal"]["forfeit_verdicts"] == {"WA": losers["illegal"]["forfeits"]}
    assert data["crosstable"]["ref"] == {"<b>garbage": 2.0, "illegal": 2.0}
    page = (out / "tournament.html").read_text()
    assert "<b>garbage" not in page and "&lt;b&gt;garbage" in page
    assert "<img" not in page and "&lt;img src=x" in page
    assert (out / "tournament.json").stat().st_mode & 0o077 == 0


def test_an_exercise_without_a_referee_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(["tournament", "bitgrid", str(a_class(tmp_path)), "--sandbox", "process"])
    assert code == 3
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "bitgrid has no tournament" in error[0]


def test_a_class_of_one_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copytree(project_root() / "reference" / "ultimate", folder / "ref")
    assert cli.main(["tournament", "ultimate", str(folder), "--sandbox", "process"]) == 3
    assert "at least two submissions" in capsys.readouterr().err


@pytest.mark.parametrize("flags", [["--games", "0"], ["-j", "0"]])
def test_bad_counts_are_usage_errors(tmp_path: Path, flags: list[str]) -> None:
    assert cli.main(["tournament", "ultimate", str(tmp_path), *flags]) == 2
