"""`grader tournament EXERCISE CLASS`: every pair of a class's engines plays, the referee beside
them.

The games are played on the batch's executors: a process pool on this machine, `-j` at a time, or
a Dask cluster (`--executor dask`, `--scheduler`), one task per game; either way each game is
played in a process of its own with its two engines' fork servers.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from grader.batch.discover import BatchInputError, discover
from grader.batch.tournament import move_limits, schedule, tournament_data
from grader.cluster.game_executors import open_games
from grader.cluster.gameplay import GameResult, tournament_of
from grader.cluster.job import ExecutorName, check_executor_options
from grader.commands import EXIT_GRADER_FAILED, EXIT_OK
from grader.commands.output import stdout_console
from grader.errors import UsageError, UserError
from grader.inert import inert_text
from grader.judge.grade import keep_hidden_from_tests
from grader.report.tournament import write_tournament
from grader.run.sandbox import SandboxUnavailable, choose, enterable
from grader.sandboxes import SandboxChoice
from grader.suite.load import LoadedSuite, load_suite
from grader.suite.model import SuiteError


def main(
    *,
    exercise: str,
    folder: Path,
    jobs: int | None = None,
    games: int = 2,
    out: Path | None = None,
    sandbox: SandboxChoice | None = None,
    executor: ExecutorName | None = None,
    scheduler: str | None = None,
    console: Console | None = None,
) -> int:
    """Play `games` games between every pair of engines of `folder` on `executor` (`local`, or
    `dask`: a LocalCluster of `jobs` workers, or the running `scheduler`), write tournament.json
    and tournament.html under `out` (default ./tournament-out) and print the standings. Exit 1
    when a game was void (the grader's fault)."""
    console = stdout_console(console)
    check_executor_options(executor, scheduler, jobs)
    if games < 1:
        raise UsageError("--games needs at least 1")
    loaded = load_suite(exercise)
    try:
        tournament = tournament_of(loaded)
    except SuiteError as error:
        raise UserError(f"{loaded.name} has no tournament: {error}") from error
    try:
        found = discover(folder, loaded.suite.submit)
    except BatchInputError as error:
        raise UserError(str(error)) from error
    for skipped in found.skipped:
        console.print(f"warning: skipped {skipped}", markup=False, highlight=False)
    if len(found.submissions) < 2:
        raise UserError(f"{folder}: a tournament needs at least two submissions")
    try:
        confinement = choose(sandbox, loaded.suite.sandbox, "bwrap", hidden=True)
        if confinement == "container":
            closed_to_engines(loaded, folder, out or Path("tournament-out"))
    except SandboxUnavailable as error:
        raise UserError(str(error)) from error
    limits = move_limits(loaded, tournament.move_cpu_s)
    students = {student: str(path) for student, path in found.submissions.items()}
    pairings = schedule(students, games, tournament.openings)
    started = time.monotonic()
    results: list[GameResult] = []
    with open_games(executor or "local", loaded, jobs, scheduler) as played:
        for pairing in pairings:
            played.submit(pairing, confinement, limits)
        for result in played.completed():
            results.append(result)
            console.print(
                f"game {len(results)}/{len(pairings)}: {_line(result)}", markup=False, highlight=False
            )
    data = tournament_data(
        loaded, tournament, limits, games, confinement, list(students), results, time.monotonic() - started
    )
    written = write_tournament(out or Path("tournament-out"), data)
    console.print(_standings_table(data["standings"]))
    console.print(f"written: {', '.join(str(path) for path in written)}", markup=False, highlight=False)
    void = [result for result in results if result["void"] is not None]
    for result in void:
        console.print(f"JE: game {result['number']} void: {result['void']}", markup=False, highlight=False)
    return EXIT_GRADER_FAILED if void else EXIT_OK


def closed_to_engines(loaded: LoadedSuite, folder: Path, out: Path) -> None:
    """At the container level only permissions keep the engines' uids from the fixtures (the
    referee, hidden material), the reference, the other engines (the class folder) and the
    results: SandboxUnavailable, in one line, when a stranger could read or enter any of them."""
    keep_hidden_from_tests(loaded)
    for path in enterable([folder, out]):
        raise SandboxUnavailable(
            f"the container sandbox hides files by permissions, and the engines' unprivileged "
            f"uids could enter {path}: close it to others (chmod o-rwx {path}), or play with "
            f"--sandbox bwrap"
        )


def _line(result: GameResult) -> str:
    first, second = (inert_text(seat) for seat in result["seats"])
    if result["void"] is not None:
        return f"{first} - {second}: void ({result['void']})"
    text = (
        f"{first} - {second}: {dict([(1.0, '1-0'), (0.5, '1/2'), (0.0, '0-1')]).get(result['score'] or 0.0)}"
    )
    forfeit = result["forfeit"]
    if forfeit is not None:
        text += f" ({result['seats'][forfeit['seat']]} forfeits: {forfeit['verdict']} {forfeit['reason']})"
    return text


def _standings_table(rows: list[dict[str, Any]]) -> Table:
    table = Table(title="standings")
    for column in ("#", "student", "rating", "points", "W", "D", "L", "forfeits"):
        table.add_column(column)
    for place, row in enumerate(rows, 1):
        table.add_row(
            str(place),
            inert_text(row["student"]),
            f"{row['rating']:.2f}",
            f"{row['points']:g}",
            str(row["wins"]),
            str(row["draws"]),
            str(row["losses"]),
            str(row["forfeits"]),
        )
    return table
