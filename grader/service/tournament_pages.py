"""The tournament of an assignment's engines (`tournament:` in the course file): the instructors'
page (`/instructor/NAME/tournament`: standings, crosstable, every game's record; the button that
asks for a tournament, behind a confirmation page) and the students' standings
(`/assignments/NAME/tournament`, logins and results only, when the course file lets them see
the standings and the assignment's hidden results are released). Everything an engine answered
or printed arrives here inert and Django's templates escape it again."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from grader.service import jobs, tournament_jobs
from grader.service.api import course
from grader.service.course import Assignment
from grader.service.form_again import Mistake, forgiving
from grader.service.instructor_confirm import CONFIRMED, confirm_page
from grader.service.instructor_pages import assignment_or_404, audit, staff_only
from grader.service.models import TournamentRun
from grader.service.pages import signed_in
from grader.service.policy import release_effect

RESULTS = {1.0: "1-0", 0.5: "½-½", 0.0: "0-1"}
DONE = {"asked": "tournament queued: it is played once no student's upload waits"}


def _with_tournament(name: str) -> Assignment:
    assignment: Assignment = assignment_or_404(name)
    if assignment.tournament is None:
        raise Http404(f"{name} has no tournament")
    return assignment


def standings_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            **row,
            "place": place,
            "verdicts": sorted(row["forfeit_verdicts"].items()),
            "rating": f"{row['rating']:.2f}",
            "mu": f"{row['mu']:.2f}",
            "sigma": f"{row['sigma']:.2f}",
            "points": f"{row['points']:g}",
        }
        for place, row in enumerate(data["standings"], 1)
    ]


def crosstable_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    order = [row["student"] for row in data["standings"]]
    cross = data["crosstable"]
    return [
        {
            "number": number,
            "student": student,
            "cells": ["—" if other == student else f"{cross[student][other]:g}" for other in order],
        }
        for number, student in enumerate(order, 1)
    ]


def game_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for game in data["games"]:
        forfeit = game["forfeit"]
        rows.append(
            {
                "number": game["number"],
                "opening": game["opening"],
                "first": game["seats"][0],
                "second": game["seats"][1],
                "result": "void" if game["void"] is not None else RESULTS.get(game["score"], "?"),
                "void": game["void"],
                "forfeit": None if forfeit is None else {**forfeit, "loser": game["seats"][forfeit["seat"]]},
                "cpu": f"{game['cpu_s'][0]:.2f} / {game['cpu_s'][1]:.2f}",
                "moves": " ".join(f"{number}.{move}" for number, move in enumerate(game["moves"], 1)),
            }
        )
    return rows


def _tables(run: TournamentRun | None, games: bool) -> dict[str, Any]:
    if run is None or run.results is None:
        return {"played": None}
    data = run.results
    return {
        "played": run,
        "data": data,
        "standings": standings_rows(data),
        "crosstable": crosstable_rows(data),
        "columns": list(range(1, len(data["standings"]) + 1)),
        "games": game_rows(data) if games else [],
    }


@staff_only
def instructor_tournament(request: HttpRequest, name: str) -> HttpResponse:
    assignment = _with_tournament(name)
    return render(
        request,
        "service/tournament.html",
        {
            "a": assignment,
            "spec": assignment.tournament,
            "entrants": len(tournament_jobs.entrants(assignment)),
            "pending": tournament_jobs.pending(name),
            "last": tournament_jobs.latest(name),
            "message": DONE.get(request.GET.get("done", ""), ""),
            "students_see": students_see(assignment),
            **_tables(tournament_jobs.latest(name, tournament_jobs.PLAYED), games=True),
        },
    )


@staff_only
@require_http_methods(["GET", "POST"])
@forgiving("tournament_run", "run a tournament")
def ask_tournament(request: HttpRequest, name: str) -> HttpResponse:
    """GET (or a POST without confirm=yes): what a tournament would do; confirmed: queue it."""
    assignment = _with_tournament(name)
    assert assignment.tournament is not None
    if request.method != "POST" or request.POST.get("confirm") != CONFIRMED:
        playing = len(tournament_jobs.entrants(assignment))
        pairs = playing * (playing - 1) // 2
        return confirm_page(
            request,
            name,
            "tournament",
            [
                f"the counted submissions of {playing} student(s) play every pair: {pairs} pair(s), "
                f"{pairs * assignment.tournament.games} game(s), with the assignment's pinned suite",
                "a worker plays them when no submission waits, and grades every student's upload "
                "that waits before each game",
                "the standings replace those of the last tournament on the tournament page",
            ],
            target="tournament/run",
        )
    asked = tournament_jobs.ask(assignment, request.user.get_username())
    if isinstance(asked, str):
        raise Mistake(asked)
    audit(request, "tournament", name, detail=f"{len(asked.entrants)} engine(s), run {asked.pk}")
    return redirect(f"/instructor/{name}/tournament?done=asked")


def students_see(assignment: Assignment) -> bool:
    """Students see the standings: the course file lets them and the release took effect."""
    if assignment.tournament is None or assignment.tournament.standings != "students":
        return False
    effect = release_effect(assignment)
    return effect is not None and jobs.now() >= effect.takes_effect


def student_standings(request: HttpRequest, name: str) -> HttpResponse:
    """The standings (logins, results, ratings; no game record) for the assignment's members."""
    if signed_in(request) is None:
        return redirect("/")
    assignment = course().assignment(name)
    if assignment is None or not students_see(assignment):
        raise Http404(f"{name} shows no tournament standings")
    tables = _tables(tournament_jobs.latest(name, tournament_jobs.PLAYED), games=False)
    if tables["played"] is None:
        raise Http404(f"{name} shows no tournament standings")
    return render(request, "service/standings.html", {"a": assignment, **tables})
