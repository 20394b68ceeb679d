"""A tournament on a Dask cluster: the same standings as the local pool, and a worker killed
mid-tournament loses no game."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from grader import cli
from grader.batch.tournament import schedule, standings
from grader.cluster.dask_games import DaskGames
from grader.cluster.gameplay import GameResult, tournament_of
from grader.commands.tournament import move_limits
from grader.exercise import project_root
from grader.suite.load import load_suite
from tests.grader.cluster.workers import kill_a_busy_worker

distributed = pytest.importorskip("distributed")

# The lowest legal move, at once: legal to the end of the game, lost to the reference in ~25 plies.
FIRST_LEGAL = """\
def build_tables():
    return 0


def search(board, side, depth, tables):
    us, them, share = board

    def taken(move):
        if move < 63:
            return us >> move & 1 or them >> move & 1
        return share >> move - 63 & 1 or share >> move - 45 & 1

    zone = share >> 54 & 15
    free = [z for z in range(9) if not (share >> 36 + z & 1 or share >> 45 + z & 1)]
    for z in [zone] if zone != 9 else free:
        for cell in range(9):
            if not taken(9 * z + cell):
                return 0, [9 * z + cell]
    return 0, []
"""
ILLEGAL = "def build_tables():\n    return 0\n\ndef search(board, side, depth, tables):\n    return 0, [81]\n"


@pytest.fixture(scope="module")
def tiny_class(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference, a weak but legal engine and a hostile one: six cheap games."""
    folder = tmp_path_factory.mktemp("tournament") / "class"
    shutil.copytree(project_root() / "reference" / "ultimate", folder / "ref")
    for name, source in (("first", FIRST_LEGAL), ("illegal", ILLEGAL)):
        (folder / name).mkdir()
        (folder / name / "engine.py").write_text(source)
    return folder


def tournament(folder: Path, out: Path, *flags: str) -> dict[str, Any]:
    code = cli.main(
        ["tournament", "ultimate", str(folder), "-j", "2", "--out", str(out), "--sandbox", "process", *flags]
    )
    assert code == 0
    data: dict[str, Any] = json.loads((out / "tournament.json").read_text())
    return data


def played(games: list[GameResult] | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every game as it went (the CPU times aside: they vary from run to run), by number."""
    return [
        {key: value for key, value in game.items() if key != "cpu_s"}
        for game in sorted(games, key=lambda game: game["number"])
    ]


@pytest.fixture(scope="module")
def in_the_pool(tiny_class: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return tournament(tiny_class, tmp_path_factory.mktemp("pool") / "out")


@pytest.mark.slow  # a LocalCluster, and the same six games twice (two of them ~25 plies)
def test_a_local_cluster_plays_the_same_tournament_as_the_pool(
    tiny_class: Path, in_the_pool: dict[str, Any], tmp_path: Path
) -> None:
    on_dask = tournament(tiny_class, tmp_path / "out", "--executor", "dask")
    assert on_dask["standings"] == in_the_pool["standings"]
    assert on_dask["crosstable"] == in_the_pool["crosstable"]
    assert played(on_dask["games"]) == played(in_the_pool["games"])
    assert [row["student"] for row in on_dask["standings"]] == ["ref", "first", "illegal"]
    assert all(game["void"] is None for game in on_dask["games"])
    assert any(len(game["moves"]) > 10 for game in on_dask["games"]), "no game was played out"


@pytest.mark.slow
def test_a_worker_killed_mid_tournament_loses_no_game(tiny_class: Path, in_the_pool: dict[str, Any]) -> None:
    """Once a game came back, a worker that is playing one is killed: its game is played again
    elsewhere, every game comes back once, none void, and the standings are the pool's."""
    loaded = load_suite("ultimate")
    students = {path.name: str(path) for path in sorted(tiny_class.iterdir())}
    pairings = schedule(students, 2, tournament_of(loaded).openings)
    limits = move_limits(loaded, tournament_of(loaded).move_cpu_s)
    killed: list[tuple[str, list[str]]] = []
    results: list[GameResult] = []
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, memory_limit=0
        ) as cluster,
        DaskGames(loaded, None, cluster.scheduler_address) as games,
    ):
        for pairing in pairings:
            games.submit(pairing, "process", limits)
        for result in games.completed():
            results.append(result)
            if not killed and (victim := kill_a_busy_worker(cluster, "game-")):
                killed.append(victim)
    assert killed, "no worker was playing when a game came back"
    assert sorted(result["number"] for result in results) == list(range(len(pairings)))
    assert not [result for result in results if result["void"] is not None]
    assert played(results) == played(in_the_pool["games"])
    table = [row.as_json() for row in standings(sorted(students), results)]
    assert table == in_the_pool["standings"]


BROKEN_REFEREE = """

_tournament = tournament


def _no_game(number):
    raise RuntimeError("the referee's own bug")


def tournament():
    found = _tournament()
    return Tournament(new_game=_no_game, openings=found.openings, call=found.call)
"""


@pytest.mark.slow  # a LocalCluster, for two games that end before their first move
def test_a_game_void_on_a_worker_counts_for_no_one_and_the_command_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    for part in ("exercises", "reference", "fixtures"):
        shutil.copytree(project_root() / part / "ultimate", project / part / "ultimate")
    with (project / "fixtures" / "ultimate" / "games.py").open("a") as games:
        games.write(BROKEN_REFEREE)
    monkeypatch.setenv("GRADER_ROOT", str(project))
    folder = tmp_path / "class"
    for name in ("a", "b"):
        (folder / name).mkdir(parents=True)
        (folder / name / "engine.py").write_text(ILLEGAL)
    out = tmp_path / "out"
    flags = ["--out", str(out), "--sandbox", "process", "--executor", "dask", "-j", "1"]
    assert cli.main(["tournament", "ultimate", str(folder), *flags]) == 1
    data = json.loads((out / "tournament.json").read_text())
    assert [game["void"] for game in data["games"]] == [
        "the referee failed: RuntimeError: the referee's own bug"
    ] * 2
    assert all(row["games"] == 0 and row["points"] == 0 for row in data["standings"])
    printed = capsys.readouterr().out
    assert "JE: game 0 void" in printed and "JE: game 1 void" in printed
