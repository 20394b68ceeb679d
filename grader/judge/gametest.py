"""A suite's `game:` test: the student's engine plays the referee's matches, one call per move.

Every match is one game (`grader.judge.games.play`) against a trusted player of the fixtures, from
the position the match starts in. The test fails at the first match where the student's engine
forfeits (its verdict: TLE, RTE, MLE, NI, CE, or WA for an illegal move or an answer that is not a
move) or makes a legal move that falls short of the match's demand (WA: it gave away a forced win,
say); the feedback gives that game's moves. The referee's own failure is JE.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field

from grader.judge.games import Engine, GameRecord, RefereeError, Seat, play
from grader.judge.judgement import Judgement
from grader.judge.verdicts import Verdict
from grader.run.watchdog import RunOutcome
from grader.suite.cases import checker_function
from grader.suite.games import Match, matches_of
from grader.suite.load import LoadedSuite
from grader.suite.model import SuiteError
from grader.suite.schema import TestSpec

MOVES_SHOWN = 200  # plies of a game record in a failure's details


@dataclass
class GamesPlayed:
    """What a game test did: its verdict (None: every match passed), its games, and the
    processes of every move (summed into one outcome for the report)."""

    failure: Judgement | None
    records: list[GameRecord] = field(default_factory=list)
    outcome: RunOutcome | None = None


def matches(loaded: LoadedSuite, test: TestSpec) -> list[Match]:
    """The test's matches from its referee module (a SuiteError or the author's exception)."""
    assert test.game is not None
    source = test.game.matches or ""
    function = checker_function(loaded, source)
    return matches_of(function(), source)


def record_text(record: GameRecord) -> str:
    """A game's record as the feedback shows it (every name in it is already inert)."""
    plies = record.plies[:MOVES_SHOWN]
    moves = " ".join(f"{number}.{ply.move}" for number, ply in enumerate(plies, 1))
    more = f" ... ({len(record.plies) - MOVES_SHOWN} more)" if len(record.plies) > MOVES_SHOWN else ""
    outcome = (
        {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}.get(record.score, "unfinished")
        if record.score is not None
        else "unfinished"
    )
    return f"{record.label} ({record.seats[0]} - {record.seats[1]}): {moves or '(no move)'}{more} [{outcome}]"


def play_matches(loaded: LoadedSuite, test: TestSpec, engine: Engine) -> GamesPlayed:
    """Play every match of `test` with the student's `engine`, stopping at the first failure."""
    try:
        found = matches(loaded, test)
    except SuiteError as error:
        return GamesPlayed(Judgement(Verdict.JE, str(error)))
    except Exception as error:  # the author's generator: any error is the grader's fault
        source = test.game.matches if test.game else ""
        problem = f"the matches {source} failed: {type(error).__name__}: {error}"
        return GamesPlayed(Judgement(Verdict.JE, problem, traceback.format_exc(limit=-3)))
    played = GamesPlayed(None)
    for match in found:
        student = Seat("submission", engine=engine, demand=match.demand)
        if match.opponent is None:  # the student's code answers for both sides
            seats = (student, student)
        else:
            opponent = Seat("referee", player=match.opponent)
            seats = (student, opponent) if match.student_seat == 0 else (opponent, student)
        caps = {match.student_seat: match.max_student_moves} if match.max_student_moves else None
        try:
            record = play(match.game, seats, match.label, caps)
        except RefereeError as error:
            played.failure = Judgement(
                Verdict.JE, f"{match.label}: {error} (the grader's fault, not the submission's)"
            )
            break
        played.records.append(record)
        failure = _failure(record, match.student_seat if match.opponent is not None else None)
        if failure is not None:
            played.failure = failure
            break
    played.outcome = summed([outcome for record in played.records for outcome in record.outcomes])
    return played


def _failure(record: GameRecord, seat: int | None) -> Judgement | None:
    """The student's failure in `record` (in `seat`, or in either when None)."""
    if record.forfeit is not None and seat in (None, record.forfeit.seat):
        forfeit = record.forfeit
        return Judgement(
            forfeit.verdict, f"{record.label}, ply {forfeit.ply}: {forfeit.reason}", record_text(record)
        )
    if record.shortfall is not None and seat in (None, record.shortfall[0]):
        return Judgement(Verdict.WA, f"{record.label}, {record.shortfall[1]}", record_text(record))
    return None


def summed(outcomes: list[RunOutcome]) -> RunOutcome | None:
    """One outcome standing for many moves' processes: CPU and wall summed, the highest peak."""
    if not outcomes:
        return None
    total = RunOutcome(limits=outcomes[-1].limits)
    total.cpu_s = sum(outcome.cpu_s for outcome in outcomes)
    total.wall_s = sum(outcome.wall_s for outcome in outcomes)
    total.peak_mb = max(outcome.peak_mb for outcome in outcomes)
    total.resident_mb = max(outcome.resident_mb for outcome in outcomes)
    total.memory_measured = all(outcome.memory_measured for outcome in outcomes)
    total.exit_code = 0
    return total
