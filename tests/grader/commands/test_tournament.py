"""`grader tournament`: a class of engines plays every pair; standings, crosstable and records in
JSON and HTML, students' names and answers escaped; bad input is one line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from grader import cli
from grader.exercise import project_root

DOCKER_LIKE = Path(__file__).with_name("docker_like.py")

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


@pytest.mark.parametrize(
    "flags",
    [
        ["--games", "0"],
        ["-j", "0"],
        ["--scheduler", "tcp://127.0.0.1:1"],
        ["--executor", "dask", "--scheduler", "tcp://127.0.0.1:1", "-j", "2"],
    ],
)
def test_bad_counts_and_executor_options_are_usage_errors(tmp_path: Path, flags: list[str]) -> None:
    assert cli.main(["tournament", "ultimate", str(tmp_path), *flags]) == 2


def test_an_unreachable_scheduler_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setattr("grader.cluster.dask_cluster.CONNECT_TIMEOUT", "1s")
    folder = a_class(tmp_path)
    flags = ["--executor", "dask", "--scheduler", "tcp://127.0.0.1:1", "--sandbox", "process"]
    out = tmp_path / "out"
    assert cli.main(["tournament", "ultimate", str(folder), "--out", str(out), *flags]) == 3
    error = capsys.readouterr().err
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in error and "Traceback" not in error
    assert not out.exists()


def _open_project(root: Path) -> Path:
    """ultimate's exercise, reference and fixtures (its referee) in a project others may read."""
    project = root / "project"
    for part in ("exercises", "reference", "fixtures"):
        shutil.copytree(project_root() / part / "ultimate", project / part / "ultimate")
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return project


def _container_tournament(project: Path, folder: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """`grader tournament` at the container level, as under Docker's seccomp profile."""
    command = [sys.executable, str(DOCKER_LIKE), sys.executable, "-m", "grader", "tournament", "ultimate"]
    command += [str(folder), "-j", "1", "--games", "1", "--out", str(out), "--sandbox", "container"]
    env = {**os.environ, "GRADER_ROOT": str(project)}
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False, env=env)


@pytest.mark.slow  # three tournaments under a seccomp filter, one of them played
@pytest.mark.skipif(os.geteuid() != 0, reason="the container level needs root")
def test_at_the_container_level_fixtures_others_can_read_stop_the_tournament(tmp_path: Path) -> None:
    """The engines' uids read what permissions let strangers read: a referee (and the hidden
    material beside it) open to others stops the tournament before any game, in one line, as does
    a class folder others may enter (the opponents' code); closed, the same tournament is played."""
    opened = Path(tempfile.mkdtemp(prefix="tournament-test-"))
    try:
        project = _open_project(opened)
        folder = tmp_path / "class"
        for name in ("a", "b"):
            (folder / name).mkdir(parents=True)
            (folder / name / "engine.py").write_text(ILLEGAL)
        out = tmp_path / "out"
        refused = _container_tournament(project, folder, out)
        assert refused.returncode == 3, refused.stdout + refused.stderr
        errors = refused.stderr.strip().splitlines()
        assert len(errors) == 1 and "could read" in errors[0], refused.stderr
        assert str(project / "fixtures" / "ultimate") in errors[0] and "chmod" in errors[0]
        assert not out.exists()
        opened.chmod(0o700)
        open_class = Path(tempfile.mkdtemp(prefix="tournament-class-"))
        try:
            open_class.chmod(0o755)
            shutil.copytree(folder, open_class / "class")
            refused = _container_tournament(project, open_class / "class", out)
        finally:
            shutil.rmtree(open_class, ignore_errors=True)
        assert refused.returncode == 3, refused.stdout + refused.stderr
        errors = refused.stderr.strip().splitlines()
        assert len(errors) == 1 and f"could enter {open_class / 'class'}" in errors[0], refused.stderr
        played = _container_tournament(project, folder, out)
        assert played.returncode == 0, played.stdout + played.stderr
        data = json.loads((out / "tournament.json").read_text())
        assert data["sandbox"] == "container"
        assert [game["forfeit"]["verdict"] for game in data["games"]] == ["WA"]
    finally:
        shutil.rmtree(opened, ignore_errors=True)
