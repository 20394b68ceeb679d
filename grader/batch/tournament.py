"""A tournament of a class's engines: who plays whom (`schedule`), and how they rank (`standings`).

Every pair of engines plays `games` games, colours alternating, each opening played once with
either engine starting, so no pairing is decided by who drew the better side. Ratings come from
openskill's Plackett-Luce model (a Bayesian relative of Elo and TrueSkill: mu, sigma, and the
conservative `mu - 3 sigma` the standings sort by), updated game by game in the schedule's order,
so the same games always give the same table. A forfeit is a loss of the seat that forfeited; a
void game (the grader's fault) counts for no one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from openskill.models import PlackettLuce

from grader.cluster.gameplay import GameResult, Pairing
from grader.suite.games import Tournament
from grader.suite.limits import Limits
from grader.suite.load import LoadedSuite


def schedule(students: dict[str, str], games: int, openings: int) -> list[Pairing]:
    """Every pair's `games` games (numbered from 0 in order), colours alternating: game 2k and
    2k+1 of a pair play the same opening with the seats swapped."""
    pairings: list[Pairing] = []
    names = sorted(students)
    for pair_number, (first, second) in enumerate(combinations(names, 2)):
        for game in range(games):
            seats = (first, second) if game % 2 == 0 else (second, first)
            opening = (pair_number * ((games + 1) // 2) + game // 2) % max(1, openings)
            pairings.append(
                Pairing(
                    number=len(pairings),
                    opening=opening,
                    seats=seats,
                    sources=(students[seats[0]], students[seats[1]]),
                )
            )
    return pairings


@dataclass
class Standing:
    student: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0  # games lost by forfeit (a crash, a limit, an illegal move ...)
    points: float = 0.0
    rating: float = 0.0  # mu - 3 sigma
    mu: float = 0.0
    sigma: float = 0.0
    forfeit_reasons: dict[str, int] = field(default_factory=dict)  # verdict -> count

    def as_json(self) -> dict[str, Any]:
        return {
            "student": self.student,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "forfeits": self.forfeits,
            "forfeit_verdicts": dict(sorted(self.forfeit_reasons.items())),
            "points": self.points,
            "rating": round(self.rating, 3),
            "mu": round(self.mu, 3),
            "sigma": round(self.sigma, 3),
        }


def standings(students: list[str], results: list[GameResult]) -> list[Standing]:
    """Everyone's record and rating, best first (rating, then points, then name)."""
    model = PlackettLuce()
    ratings = {student: model.rating(name=student) for student in students}
    table = {student: Standing(student) for student in students}
    for result in sorted(results, key=lambda found: found["number"]):
        score = result["score"]
        if score is None or result["void"] is not None:
            continue
        first, second = result["seats"]
        ranks = [1.0, 1.0] if score == 0.5 else [1.0, 2.0] if score == 1.0 else [2.0, 1.0]
        [[ratings[first]], [ratings[second]]] = model.rate([[ratings[first]], [ratings[second]]], ranks=ranks)
        for seat, student in enumerate((first, second)):
            mine = score if seat == 0 else 1.0 - score
            row = table[student]
            row.games += 1
            row.points += mine
            row.wins += mine == 1.0
            row.draws += mine == 0.5
            row.losses += mine == 0.0
        forfeit = result["forfeit"]
        if forfeit is not None:
            row = table[result["seats"][forfeit["seat"]]]
            row.forfeits += 1
            row.forfeit_reasons[forfeit["verdict"]] = row.forfeit_reasons.get(forfeit["verdict"], 0) + 1
    for student, rating in ratings.items():
        table[student].mu, table[student].sigma = rating.mu, rating.sigma
        table[student].rating = rating.ordinal()
    return sorted(table.values(), key=lambda row: (-row.rating, -row.points, row.student))


def crosstable(students: list[str], results: list[GameResult]) -> dict[str, dict[str, float]]:
    """Points each student scored against each other one (void games left out)."""
    cross = {student: {other: 0.0 for other in students if other != student} for student in students}
    for result in results:
        score = result["score"]
        if score is None or result["void"] is not None:
            continue
        first, second = result["seats"]
        cross[first][second] += score
        cross[second][first] += 1.0 - score
    return cross


def move_limits(loaded: LoadedSuite, cpu_s: float) -> Limits:
    """The suite's limits with the tournament's CPU time per move (and its default wall clock)."""
    return loaded.suite.limits.model_copy(update={"cpu_s": cpu_s, "wall_s": None}).resolve()


def tournament_data(
    loaded: LoadedSuite,
    tournament: Tournament,
    limits: Limits,
    games: int,
    sandbox: str,
    students: list[str],
    results: list[GameResult],
    wall_s: float,
) -> dict[str, Any]:
    """tournament.json's data: the settings, the standings, the crosstable and every game (what
    `grader tournament` writes and the service's tournament page shows)."""
    return {
        "exercise": loaded.name,
        "call": tournament.call,
        "move_cpu_s": limits.cpu_s,
        "games_per_pair": games,
        "sandbox": sandbox,
        "wall_s": round(wall_s, 2),
        "standings": [row.as_json() for row in standings(sorted(students), results)],
        "crosstable": crosstable(sorted(students), results),
        "games": sorted(results, key=lambda result: result["number"]),
    }
