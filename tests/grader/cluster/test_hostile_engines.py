"""Hostile engines in a tournament game of ultimate: each loses its own game with the reason and
harms nobody (the opponent's engine, the referee, the next game)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.batch.tournament import move_limits
from grader.cluster.gameplay import Pairing, play_game
from grader.exercise import project_root
from grader.suite.load import load_suite

PRELUDE = "import os, sys, time\n\ndef build_tables():\n    return [0], [0]\n\n"
HOSTILE = {
    "silence": ("def search(board, side, depth, tables):\n    time.sleep(3600)\n", "TLE", "asleep"),
    "busy": ("def search(board, side, depth, tables):\n    while True:\n        pass\n", "TLE", "CPU"),
    "flood": (
        "def search(board, side, depth, tables):\n    while True:\n        sys.stdout.write('x' * 65536)\n",
        "OLE",
        "output",
    ),
    "garbage": (
        "def search(board, side, depth, tables):\n    return 'checkmate'\n",
        "WA",
        "not a (value, line)",
    ),
    "unplain": ("def search(board, side, depth, tables):\n    return object()\n", "WA", "not plain data"),
    "illegal": (
        "def search(board, side, depth, tables):\n    return 0, [81, 0]\n",
        "WA",
        "81 is not a legal move",
    ),
    "taken": (  # the first move of every opening is taken: playing it again is illegal
        "def search(board, side, depth, tables):\n"
        "    us, them, share = board\n"
        "    taken = [m for m in range(63) if (us | them) >> m & 1]\n"
        "    return 0, taken[:1]\n",
        "WA",
        "is not a legal move",
    ),
    "crash": ("def search(board, side, depth, tables):\n    raise SystemExit(3)\n", "RTE", ""),
    "fork-bomb": (
        "def search(board, side, depth, tables):\n    while True:\n        os.fork()\n",
        "RTE",
        "process",
    ),
    "stub": (
        "def search(board, side, depth, tables):\n    raise NotImplementedError\n",
        "NI",
        "not implemented",
    ),
    "syntax": ("def search(board, side, depth, tables)\n    return 0, []\n", "CE", "does not compile"),
}


def engine_folder(root: Path, name: str, source: str) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "engine.py").write_text(source)
    return folder


SLOW = {"silence", "busy", "flood", "fork-bomb"}  # each waits out a limit: over 5 s on a busy machine


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=pytest.mark.slow) if name in SLOW else name for name in sorted(HOSTILE)]
)
def test_a_hostile_engine_forfeits_its_game_with_the_reason(tmp_path: Path, name: str) -> None:
    loaded = load_suite("ultimate")
    code, verdict, reason = HOSTILE[name]
    hostile = engine_folder(tmp_path, name, PRELUDE + code)
    reference = project_root() / "reference" / "ultimate"
    game = Pairing(number=0, opening=0, seats=("reference", name), sources=(str(reference), str(hostile)))
    result = play_game(loaded, game, "process", move_limits(loaded, 2.0))
    assert result["void"] is None
    assert result["forfeit"] is not None, result
    assert result["forfeit"]["seat"] == 1 and result["forfeit"]["verdict"] == verdict, result
    assert reason in result["forfeit"]["reason"]
    assert result["score"] == 1.0 and result["forfeit"]["ply"] == 2
    assert len(result["moves"]) == 1  # the reference's first move stood; the hostile's none
    assert result["cpu_s"][1] == 0.0  # the forfeited move is not a ply; its time is its own


SPY = """import glob, os

def build_tables():
    return [0], [0]

def search(board, side, depth, tables):
    seen = []
    for pattern in ("/work/**/fixtures/ultimate/games.py", "/tmp/grader-*/code/engine.py",
                    "/work/**/reference/ultimate/engine.py", "/proc/*/environ"):
        seen += glob.glob(pattern, recursive=True)
    readable = []
    mine = os.path.dirname(os.path.abspath(__file__))
    for path in seen:
        if os.path.dirname(os.path.abspath(path)) == mine:
            continue  # its own code
        try:
            with open(path, "rb") as handle:
                handle.read(1)
            readable.append(path)
        except OSError:
            pass
    if readable:
        raise RuntimeError("LEAK " + " ".join(readable[:5]))
    return 0, [81]  # saw nothing: forfeit with an illegal move, as asked
"""


@pytest.mark.bwrap
def test_an_engine_reading_its_opponent_or_the_referee_sees_nothing(tmp_path: Path) -> None:
    loaded = load_suite("ultimate")
    spy = engine_folder(tmp_path, "spy", SPY)
    reference = project_root() / "reference" / "ultimate"
    game = Pairing(number=0, opening=0, seats=("reference", "spy"), sources=(str(reference), str(spy)))
    result = play_game(loaded, game, "bwrap", move_limits(loaded, 5.0))
    assert result["forfeit"] is not None
    assert "LEAK" not in result["forfeit"]["reason"], result["forfeit"]["reason"]
    assert "81 is not a legal move" in result["forfeit"]["reason"]


def test_an_unreadable_zip_forfeits_its_games_only(tmp_path: Path) -> None:
    loaded = load_suite("ultimate")
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04 not a zip at all")
    reference = project_root() / "reference" / "ultimate"
    game = Pairing(number=0, opening=0, seats=("broken", "reference"), sources=(str(broken), str(reference)))
    result = play_game(loaded, game, "process", move_limits(loaded, 2.0))
    assert result["void"] is None and result["score"] == 0.0
    assert (
        result["forfeit"] is not None
        and result["forfeit"]["seat"] == 0
        and result["forfeit"]["verdict"] == "CE"
    )
