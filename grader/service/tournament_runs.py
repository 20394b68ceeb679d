"""A worker plays a queued tournament: every pair of the entrants' submissions, with the
assignment's pinned suite, through the code of `grader tournament` (`batch/tournament.py`'s
schedule and standings, `cluster/gameplay.py`'s games), one game at a time, and grades every
student's upload that waits before each game: a tournament never keeps a student waiting for
more than the game being played."""

from __future__ import annotations

import time
from collections.abc import Callable

from grader.batch.tournament import move_limits, schedule, tournament_data
from grader.cluster.gameplay import TOURNAMENT_SOURCE, GameResult, play_game, tournament_of
from grader.errors import UserError
from grader.run.sandbox import SandboxUnavailable, choose
from grader.service import snapshots, tournament_jobs
from grader.service.course import Course, CourseError
from grader.service.models import Submission, TournamentRun
from grader.service.pins import pin_of
from grader.service.storage import blob_path
from grader.suite.load import LoadedSuite, line_of, load_suite, read_yaml_file
from grader.suite.model import SuiteError


def pinned_loaded(course: Course, name: str) -> tuple[LoadedSuite, str]:
    """The assignment's pinned suite, loaded from its snapshot, and the snapshot's digest."""
    assignment = course.assignment(name)
    assert assignment is not None
    pin = pin_of(course, assignment)
    root = snapshots.unpacked(course.state, pin.digest)
    return load_suite(str(root / pin.suite_file), root), pin.digest


def _tournament_problem(course: Course, name: str) -> str | None:
    try:
        loaded, _ = pinned_loaded(course, name)
    except UserError as error:
        return str(error)
    try:
        tournament_of(loaded)
    except SuiteError as error:
        said = str(error).replace(f"{loaded.exercise.root}/", "")  # the snapshot's scratch copy
        return f"{loaded.name} has no tournament ({TOURNAMENT_SOURCE} of its fixtures): {said}"
    return None


def check_tournaments(course: Course) -> None:
    """A CourseError naming the course file's line when an assignment opts in to a tournament
    its pinned suite has no referee for (`grader serve` starting)."""
    for index, assignment in enumerate(course.spec.assignments):
        if assignment.tournament is None:
            continue
        problem = _tournament_problem(course, assignment.name)
        if problem is None:
            continue
        node, _ = read_yaml_file(course.path, "course file", CourseError)
        line = line_of(node, ("assignments", index, "tournament"))
        raise CourseError(f"{course.path}:{line}: assignments.{index}.tournament: {problem}")


def play_claimed(
    course: Course, worker: str, sandbox: str | None, run: TournamentRun, uploads_first: Callable[[], object]
) -> None:
    """Play `run` (claimed by `worker`) and record it; a tournament that cannot be played is an
    error saying why. `uploads_first` grades the students' uploads that wait (before each game)."""
    assignment = course.assignment(run.assignment)
    if assignment is None or assignment.tournament is None:
        tournament_jobs.fail(run, worker, f"the course has no tournament of {run.assignment} any more")
        return
    try:
        loaded, digest = pinned_loaded(course, assignment.name)
        tournament = tournament_of(loaded)
        confinement = choose(sandbox, loaded.suite.sandbox, "bwrap", hidden=True)
    except (UserError, SuiteError, SandboxUnavailable) as error:
        tournament_jobs.fail(run, worker, f"the tournament cannot be played: {error}")
        return
    blobs = dict(Submission.objects.filter(pk__in=list(run.entrants.values())).values_list("pk", "blob"))
    students = {
        login: str(blob_path(course.state, blobs[ident]))
        for login, ident in run.entrants.items()
        if ident in blobs
    }
    if len(students) < 2:
        tournament_jobs.fail(run, worker, "fewer than two of its submissions are left")
        return
    limits = move_limits(loaded, tournament.move_cpu_s)
    pairings = schedule(students, assignment.tournament.games, tournament.openings)
    started = time.monotonic()
    results: list[GameResult] = []
    for pairing in pairings:
        uploads_first()
        if not tournament_jobs.progress(run, worker, f"game {pairing.number + 1} of {len(pairings)}"):
            return  # no longer this worker's
        results.append(play_game(loaded, pairing, confinement, limits))
    data = tournament_data(
        loaded,
        tournament,
        limits,
        assignment.tournament.games,
        confinement,
        list(students),
        results,
        time.monotonic() - started,
    )
    void = sum(result["void"] is not None for result in results)
    tournament_jobs.finish(run, worker, data, digest, void)
