"""One tournament game played where a Dask task lands: the exercise bundle unpacked (once per
machine), both engines laid out in a scratch folder, and the game played by `play_game` in a child
process with the bundle as its project root, both engines' fork servers in it, as a pool process
of a local tournament plays it; the game's result travels back.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from grader import owners
from grader.cluster import bundle as bundles
from grader.cluster import parcel as parcels
from grader.cluster.gameplay import GameResult, Pairing, play_game
from grader.cluster.task import child_request, child_result
from grader.sandboxes import Confinement
from grader.suite.limits import Limits
from grader.suite.load import load_suite


@dataclass(frozen=True)
class GameTask:
    """Everything a worker needs to play one game, and nothing of the client's disks."""

    pairing: Pairing  # its sources name the client's files: the parcels carry them
    parcels: tuple[parcels.SubmissionParcel, parcels.SubmissionParcel]  # seat 0's, seat 1's
    bundle: bundles.ExerciseBundle
    sandbox: Confinement
    limits: Limits


@dataclass(frozen=True)
class Played:
    """A game's result, and where it was played."""

    result: GameResult
    host: str


def run_game_task(task: GameTask) -> Played:
    """Play one game here and return its result."""
    root = bundles.unpack(task.bundle)
    pairing = task.pairing
    with tempfile.TemporaryDirectory(prefix=owners.scratch_prefix("game-")) as scratch:
        sources = []
        for seat, parcel in enumerate(task.parcels):
            folder = Path(scratch) / f"seat-{seat}"
            folder.mkdir()
            sources.append(str(parcels.unpack(parcel, folder)))
        request = {
            "root": str(root),
            "suite": str(root / task.bundle.suite),
            "number": pairing.number,
            "opening": pairing.opening,
            "seats": list(pairing.seats),
            "sources": sources,
            "sandbox": task.sandbox,
            "limits": task.limits.model_dump(mode="json"),
        }
        result = child_result("grader.cluster.game_task", request, f"game {pairing.number}")
    return Played(result=cast(GameResult, result), host=socket.gethostname())


def main() -> int:
    """`python -m grader.cluster.game_task`: the child that plays, request in JSON on stdin, the
    game's result in JSON on stdout."""
    request = child_request()
    os.environ["GRADER_ROOT"] = request["root"]
    loaded = load_suite(request["suite"], Path(request["root"]))
    first, second = request["seats"]
    pairing = Pairing(
        number=int(request["number"]),
        opening=int(request["opening"]),
        seats=(first, second),
        sources=(request["sources"][0], request["sources"][1]),
    )
    limits = Limits.model_validate(request["limits"])
    sys.stdout.write(json.dumps(play_game(loaded, pairing, request["sandbox"], limits)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
