"""One tournament game in whichever process plays it (a local pool's, a Dask worker's child).

Each engine is laid out and compiled in a scratch folder of its own and gets its own fork server
(`Grader`): the two engines never share a sandbox, a process or a file, and each move is one fresh
test process under the tournament's per-move limits. The referee (the exercise's `games.py`,
trusted) plays in this process. What comes back is plain data (`GameResult`), every text in it
already inert: the record, the result, or which seat forfeited and why. A failure of the grader's
own (the referee, a fork server that does not start) voids the game (`void`): it counts for no one.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypedDict

from grader.inert import inert_text
from grader.judge.games import RefereeError, Seat, play
from grader.judge.grade import keep_hidden_from_tests
from grader.judge.testrun import Grader, prepared_submission
from grader.run.channel import ServerStartError
from grader.run.sandbox import SandboxUnavailable
from grader.run.submission import SubmissionError
from grader.sandboxes import Confinement
from grader.suite.cases import checker_function
from grader.suite.games import Tournament
from grader.suite.limits import Limits
from grader.suite.load import LoadedSuite
from grader.suite.model import SuiteError

TOURNAMENT_SOURCE = "games:tournament"  # the function of fixtures/NAME/games.py a tournament needs


class GameResult(TypedDict):
    number: int  # the game's number in the schedule
    opening: int
    seats: list[str]  # the students in seat 0 (who starts) and seat 1
    moves: list[str]
    cpu_s: list[float]  # each seat's CPU time over its moves
    score: float | None  # seat 0's score (a forfeit counts as a loss); None: void
    forfeit: dict[str, Any] | None  # {"seat", "verdict", "reason", "ply"}
    void: str | None  # why the game counts for no one (the grader's fault)


@dataclass(frozen=True)
class Pairing:
    number: int
    opening: int  # which of the referee's openings it starts from
    seats: tuple[str, str]  # student ids
    sources: tuple[str, str]  # their submissions (folders or .zip)


def tournament_of(loaded: LoadedSuite) -> Tournament:
    """The exercise's tournament (`games:tournament` of its fixtures); SuiteError if it has none."""
    function = checker_function(loaded, TOURNAMENT_SOURCE)
    found = function()
    if not isinstance(found, Tournament):
        raise SuiteError(f"{TOURNAMENT_SOURCE} must return a grader.suite.games.Tournament")
    return found


def unplayed(pairing: Pairing) -> GameResult:
    """A game of `pairing` before its first move."""
    return GameResult(
        number=pairing.number,
        opening=pairing.opening,
        seats=list(pairing.seats),
        moves=[],
        cpu_s=[0.0, 0.0],
        score=None,
        forfeit=None,
        void=None,
    )


def void_result(pairing: Pairing, why: str) -> GameResult:
    """A game of `pairing` that counts for no one: the grader's fault, `why`."""
    result = unplayed(pairing)
    result["void"] = why
    return result


def play_game(loaded: LoadedSuite, pairing: Pairing, sandbox: Confinement, limits: Limits) -> GameResult:
    """Play one pairing's game: each engine in its own sandbox, the referee here. Under
    `container` only permissions keep the fixtures (the referee among them) from the engines:
    where a stranger could read them, the game is void."""
    result = unplayed(pairing)
    try:
        if sandbox == "container":
            keep_hidden_from_tests(loaded)
        game = tournament_of(loaded).new_game(pairing.opening)
        with ExitStack() as stack:
            seats = []
            for seat, (name, source) in enumerate(zip(pairing.seats, pairing.sources, strict=True)):
                try:
                    prepared, scratch = stack.enter_context(prepared_submission(loaded, Path(source)))
                except SubmissionError as error:  # the student's unreadable .zip: their loss
                    result["score"] = 0.0 if seat == 0 else 1.0
                    result["forfeit"] = {
                        "seat": seat,
                        "verdict": "CE",
                        "reason": inert_text(str(error)),
                        "ply": 0,
                    }
                    return result
                grader = stack.enter_context(Grader(loaded, prepared, scratch, {}, sandbox))
                seats.append(Seat(name, engine=partial(grader.ask, limits=limits)))
            record = play(game, (seats[0], seats[1]), f"game {pairing.number}")
    except (RefereeError, SuiteError, ServerStartError, SandboxUnavailable) as error:
        result["void"] = str(error)
        return result
    except Exception as error:  # the referee's constructor or the tournament function: the author's
        result["void"] = f"the referee failed: {type(error).__name__}: {error}"
        return result
    result["moves"] = [ply.move for ply in record.plies]
    for ply in record.plies:
        result["cpu_s"][ply.seat] += ply.cpu_s
    result["score"] = record.score
    if record.forfeit is not None:
        forfeit = record.forfeit
        result["forfeit"] = {
            "seat": forfeit.seat,
            "verdict": forfeit.verdict.value,
            "reason": forfeit.reason,
            "ply": forfeit.ply,
        }
    elif record.score is None:
        result["void"] = "the game stopped before its end"
    return result
