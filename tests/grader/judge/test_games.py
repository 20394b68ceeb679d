"""The game loop (grader.judge.games.play) with a toy referee and fake engines: forfeits with
their reasons, the referee's own errors as RefereeError, demands, caps; and the tournament's
schedule and standings."""

from __future__ import annotations

from typing import Any

import pytest

from grader.batch.tournament import crosstable, schedule, standings
from grader.cluster.gameplay import GameResult
from grader.judge.games import Asked, RefereeError, Seat, play
from grader.judge.judgement import Judgement
from grader.judge.verdicts import Verdict
from grader.suite.games import Illegal
from grader.suite.schema import Step


class Nim:
    """Take 1 or 2 from a pile of `pile`; who takes the last one wins."""

    def __init__(self, pile: int = 5) -> None:
        self.pile = pile
        self.side = 0
        self.last = -1

    def to_move(self) -> int:
        return self.side

    def ask(self) -> list[Step]:
        return [Step(call="nim.take", args=[self.pile])]

    def play(self, answer: Any) -> str:
        if type(answer) is not int or answer not in (1, 2) or answer > self.pile:
            raise Illegal("take 1 or 2, at most what is left")
        self.pile -= answer
        self.last, self.side = self.side, 1 - self.side
        return f"-{answer}"

    def result(self) -> float | None:
        if self.pile:
            return None
        return 1.0 if self.last == 0 else 0.0


def engine(*answers: Any) -> Any:
    queue = list(answers)

    def ask(steps: list[Step]) -> Asked:
        assert steps and steps[-1].call == "nim.take"
        answer = queue.pop(0)
        return answer if isinstance(answer, Asked) else Asked(answer=answer)

    return ask


def take_one(game: Any) -> int:
    return 1


def test_a_whole_game_is_recorded_with_its_result() -> None:
    record = play(Nim(3), (Seat("a", engine=engine(2)), Seat("b", player=take_one)), "g")
    assert [ply.move for ply in record.plies] == ["-2", "-1"]
    assert record.score == 0.0 and record.forfeit is None


@pytest.mark.parametrize(
    ("answer", "verdict", "reason"),
    [
        (3, Verdict.WA, "answered 3: take 1 or 2"),
        ("<script>", Verdict.WA, "answered '<script>'"),
        (Asked(stopped=Judgement(Verdict.TLE, "took too long")), Verdict.TLE, "took too long"),
        (Asked(stopped=Judgement(Verdict.RTE, "too many processes")), Verdict.RTE, "too many processes"),
        (Asked(stopped=Judgement(Verdict.OLE, "output limit")), Verdict.OLE, "output limit"),
    ],
)
def test_an_engine_that_fails_forfeits_with_the_reason(answer: Any, verdict: Verdict, reason: str) -> None:
    record = play(Nim(5), (Seat("b", player=take_one), Seat("a", engine=engine(answer))), "g")
    assert record.forfeit is not None
    assert (record.forfeit.seat, record.forfeit.verdict, record.forfeit.ply) == (1, verdict, 2)
    assert reason in record.forfeit.reason
    assert record.score == 1.0  # the forfeit is seat 1's loss, seat 0's win


def test_a_refused_answer_is_quoted_short_and_inert() -> None:
    record = play(
        Nim(5), (Seat("a", engine=engine("\x1b[2J" + "x" * 10_000)), Seat("b", player=take_one)), "g"
    )
    assert record.forfeit is not None
    assert "\x1b" not in record.forfeit.reason and len(record.forfeit.reason) <= 300


def test_the_referees_own_failure_is_its_error_not_a_forfeit() -> None:
    class Broken(Nim):
        def play(self, answer: Any) -> str:
            raise KeyError("oops")

    with pytest.raises(RefereeError, match="KeyError"):
        play(Broken(), (Seat("a", engine=engine(1)), Seat("b", player=take_one)), "g")


def test_a_trusted_player_that_plays_illegally_is_the_referees_error() -> None:
    with pytest.raises(RefereeError, match="trusted player"):
        play(Nim(), (Seat("b", player=lambda game: 7), Seat("a", engine=engine(1))), "g")


def test_a_referee_that_never_ends_is_its_error() -> None:
    class Endless(Nim):
        def result(self) -> float | None:
            return None

        def play(self, answer: Any) -> str:
            self.side = 1 - self.side
            return "pass"

    with pytest.raises(RefereeError, match="did not end"):
        play(Endless(), (Seat("a", player=take_one), Seat("b", player=take_one)), "g")


def test_a_demand_stops_the_game_at_the_first_shortfall() -> None:
    def greedy(game: Any, answer: Any) -> str | None:
        return "take two while you can" if answer == 1 and game.pile >= 2 else None

    seats = (Seat("a", engine=engine(2, 1, 1), demand=greedy), Seat("b", player=take_one))
    record = play(Nim(7), seats, "g")
    assert record.shortfall == (0, "ply 3: take two while you can")
    assert [ply.move for ply in record.plies] == ["-2", "-1", "-1"]


def test_a_cap_stops_before_the_end_without_a_result() -> None:
    record = play(Nim(9), (Seat("a", engine=engine(1, 1)), Seat("b", player=take_one)), "g", {0: 2})
    assert len(record.plies) == 4 and record.score is None


def result(
    number: int, seats: tuple[str, str], score: float | None, forfeit: int | None = None
) -> GameResult:
    return GameResult(
        number=number,
        opening=0,
        seats=list(seats),
        moves=[],
        cpu_s=[0.0, 0.0],
        score=score,
        forfeit=None if forfeit is None else {"seat": forfeit, "verdict": "RTE", "reason": "x", "ply": 1},
        void=None if score is not None else "the referee failed",
    )


def test_schedule_swaps_colours_on_the_same_opening() -> None:
    pairings = schedule({"a": "A", "b": "B", "c": "C"}, 2, 16)
    assert len(pairings) == 6
    first, second = pairings[0], pairings[1]
    assert first.seats == ("a", "b") and second.seats == ("b", "a") and first.opening == second.opening
    assert len({pairing.opening for pairing in pairings}) == 3
    assert second.sources == ("B", "A")


def test_standings_rank_by_rating_and_count_forfeits_and_void_games() -> None:
    results = [
        result(0, ("a", "b"), 1.0),
        result(1, ("b", "a"), 0.0, forfeit=0),
        result(2, ("a", "c"), 0.5),
        result(3, ("c", "a"), 0.5),
        result(4, ("b", "c"), None),  # void: counts for no one
        result(5, ("c", "b"), 1.0),
    ]
    table = standings(["a", "b", "c"], results)
    assert [row.student for row in table] == ["a", "c", "b"]
    a, _, b = table
    assert (a.points, a.wins, a.draws, a.games) == (3.0, 2, 2, 4)
    assert (b.forfeits, b.forfeit_reasons, b.games) == (1, {"RTE": 1}, 3)
    assert crosstable(["a", "b", "c"], results)["a"] == {"b": 2.0, "c": 1.0}
