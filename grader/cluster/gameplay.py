"""One tournament game in whichever process plays it, and the local pool that plays them `jobs`
at a time.

Each engine is laid out and compiled in a scratch folder of its own and gets its own fork server
(`Grader`): the two engines never share a sandbox, a process or a file, and each move is one fresh
test process under the tournament's per-move limits. The referee (the exercise's `games.py`,
trusted) plays in this process. What comes back is plain data (`GameResult`), every text in it
already inert: the record, the result, or which seat forfeited and why. A failure of the grader's
own (the referee, a fork server that does not start) voids the game (`void`): it counts for no one.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypedDict

from grader import owners
from grader.inert import inert_text
from grader.judge.games import RefereeError, Seat, play
from grader.judge.testrun import Grader, prepared_submission
from grader.run.channel import ServerStartError
from grader.run.submission import SubmissionError
from grader.sandboxes import Confinement
from grader.suite.cases import checker_function
from grader.suite.games import Tournament
from grader.suite.limits import Limits
from grader.suite.load import LoadedSuite, load_suite
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


def play_game(loaded: LoadedSuite, pairing: Pairing, sandbox: Confinement, limits: Limits) -> GameResult:
    """Play one pairing's game: each engine in its own sandbox, the referee here."""
    result = GameResult(
        number=pairing.number,
        opening=pairing.opening,
        seats=list(pairing.seats),
        moves=[],
        cpu_s=[0.0, 0.0],
        score=None,
        forfeit=None,
        void=None,
    )
    try:
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
    except (RefereeError, SuiteError, ServerStartError) as error:
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


def play_in_pool(
    root: str, suite_path: str, pairing: Pairing, sandbox: Confinement, limits: Limits
) -> GameResult:
    """`play_game` in a pool process (which may outlive the caller's environment); it ends
    once the game unwound after a SIGTERM (the caller ended)."""
    from grader.cluster.pool import stoppable

    os.environ["GRADER_ROOT"] = root
    return stoppable(play_game, load_suite(suite_path), pairing, sandbox, limits)


class LocalGames:
    """The games of a tournament played `jobs` at a time by a process pool on this machine."""

    def __init__(self, jobs: int) -> None:
        from grader.cluster.pool import before_pool, pool_setup

        before_pool()
        self.pool = ProcessPoolExecutor(
            max_workers=max(1, jobs),
            initializer=pool_setup,
            initargs=(owners.me(),),
            mp_context=multiprocessing.get_context("forkserver"),
        )
        self.pending: set[Future[GameResult]] = set()

    def __enter__(self) -> LocalGames:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        if kind is not None:
            from grader.cluster.pool import stop_pool

            stop_pool(self.pool)
            return
        self.pool.shutdown(wait=True)

    def submit(
        self, root: str, suite_path: str, pairing: Pairing, sandbox: Confinement, limits: Limits
    ) -> None:
        self.pending.add(self.pool.submit(play_in_pool, root, suite_path, pairing, sandbox, limits))

    def completed(self) -> Iterator[GameResult]:
        while self.pending:
            finished, self.pending = wait(self.pending, return_when=FIRST_COMPLETED)
            for future in finished:
                yield future.result()
