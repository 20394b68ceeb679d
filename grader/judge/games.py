"""One game played by calls: the referee (trusted, here) against engines (sandboxed) or players.

The referee (`grader.suite.games.Game`, from the fixtures) holds the position. Each turn it names
the seat to move; an engine's seat asks for the move with one call in a fresh test process (the
position passed as plain data, `Engine`), a trusted player's seat asks the fixtures' function.
The referee judges the answer: a legal move is played and named in the record; anything else
(an illegal move, garbage) forfeits the game for that seat, as does an engine whose process was
stopped (a limit, a crash, NotImplementedError). The referee's own exceptions are `RefereeError`:
the grader's fault (JE), never a player's.
"""

from __future__ import annotations

import copy
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from grader.inert import inert_text
from grader.judge.judgement import Judgement, render_value
from grader.judge.verdicts import Verdict
from grader.run.watchdog import RunOutcome
from grader.suite.games import MAX_PLIES, Demand, Game, Illegal, Player
from grader.suite.schema import Step

ANSWER_SHOWN = 120  # characters of a refused answer quoted in the reason
REASON_CAP = 300

T = TypeVar("T")


class RefereeError(Exception):
    """The referee (or a trusted player) failed: the grader's fault, JE."""


@dataclass(frozen=True)
class Asked:
    """What an engine answered: its answer, or the judgement that stopped its process."""

    answer: Any = None
    stopped: Judgement | None = None
    outcome: RunOutcome | None = None  # the test process that answered (None: a trusted player)


Engine = Callable[[list[Step]], Asked]
"""An engine's seat: runs the referee's steps in a fresh sandboxed test process."""


@dataclass(frozen=True)
class Seat:
    """Who plays a side: a sandboxed engine or a trusted player (exactly one of them)."""

    name: str
    engine: Engine | None = None
    player: Player | None = None
    demand: Demand | None = None  # the suite's demand on each of this seat's legal answers


@dataclass(frozen=True)
class Ply:
    seat: int
    move: str  # the referee's name of the move played
    cpu_s: float = 0.0  # the engine's CPU time for it (0 for a trusted player)


@dataclass(frozen=True)
class Forfeit:
    """A seat lost the game without finishing it: its verdict (TLE, RTE, WA for an illegal move
    or garbage, ...) and why."""

    seat: int
    verdict: Verdict
    reason: str
    ply: int  # the number of the ply it was asked for (1-based)


@dataclass
class GameRecord:
    label: str
    seats: tuple[str, str]
    plies: list[Ply] = field(default_factory=list)
    result: float | None = None  # seat 0's score (1, 0.5, 0); None: stopped before its end
    forfeit: Forfeit | None = None
    shortfall: tuple[int, str] | None = None  # a seat's legal move fell short of a demand: why
    outcomes: list[RunOutcome] = field(default_factory=list)  # every engine call's process

    @property
    def score(self) -> float | None:
        """Seat 0's score counting a forfeit as a loss; None for an unfinished game."""
        if self.forfeit is not None:
            return 0.0 if self.forfeit.seat == 0 else 1.0
        return self.result

    def moves_text(self) -> str:
        return " ".join(ply.move for ply in self.plies)


def _refereed(call: Callable[..., T], *args: Any) -> T:
    """A call into the trusted referee or player; any exception is its fault (RefereeError)."""
    try:
        return call(*args)
    except Illegal:
        raise
    except Exception as error:  # the author's code: whatever it raises is the grader's fault
        where = traceback.extract_tb(error.__traceback__)[-1]
        raise RefereeError(
            f"the referee raised {type(error).__name__}: {error} "
            f"({where.filename.rsplit('/', 1)[-1]}:{where.lineno}, in {where.name})"
        ) from error


def shown_answer(answer: Any) -> str:
    text = inert_text(render_value(answer))
    return text if len(text) <= ANSWER_SHOWN else text[: ANSWER_SHOWN - 3] + "..."


def play(
    game: Game, seats: tuple[Seat, Seat], label: str, max_moves: dict[int, int] | None = None
) -> GameRecord:
    """Play `game` to its end (or until a seat made its `max_moves`): never raises but
    `RefereeError`."""
    record = GameRecord(label, (seats[0].name, seats[1].name))
    made = [0, 0]
    while True:
        result = _refereed(game.result)
        if result is not None:
            if result not in (0, 0.5, 1):
                raise RefereeError(f"the referee's result {result!r} is not 0, 0.5 or 1")
            record.result = float(result)
            return record
        if len(record.plies) >= MAX_PLIES:
            raise RefereeError(f"the game did not end within {MAX_PLIES} plies")
        seat = _refereed(game.to_move)
        if seat not in (0, 1):
            raise RefereeError(f"the referee's seat to move {seat!r} is not 0 or 1")
        if max_moves is not None and made[seat] >= max_moves.get(seat, MAX_PLIES):
            return record
        number = len(record.plies) + 1
        who = seats[seat]
        if who.player is not None:
            asked = Asked(_refereed(who.player, game))
        else:
            assert who.engine is not None
            asked = who.engine(_refereed(game.ask))
            if asked.outcome is not None:
                record.outcomes.append(asked.outcome)
        if asked.stopped is not None:
            record.forfeit = Forfeit(seat, asked.stopped.verdict, _cut(asked.stopped.message), number)
            return record
        try:
            if who.demand is not None:  # asked only about a legal answer: tried on a copy first
                _refereed(copy.deepcopy(game).play, asked.answer)
                why = _refereed(who.demand, game, asked.answer)
                if why is not None:
                    record.shortfall = (seat, _cut(f"ply {number}: {why}"))
            name = _refereed(game.play, asked.answer)
        except Illegal as illegal:
            if who.player is not None:
                raise RefereeError(
                    f"the trusted player of seat {seat} played an illegal move ({illegal})"
                ) from None
            reason = f"answered {shown_answer(asked.answer)}: {illegal}"
            record.forfeit = Forfeit(seat, Verdict.WA, _cut(reason), number)
            return record
        cpu = asked.outcome.cpu_s if asked.outcome is not None else 0.0
        record.plies.append(Ply(seat, inert_text(str(name)), cpu))
        made[seat] += 1
        if record.shortfall is not None:
            return record


def _cut(text: str) -> str:
    text = inert_text(text)
    return text if len(text) <= REASON_CAP else text[: REASON_CAP - 3] + "..."
