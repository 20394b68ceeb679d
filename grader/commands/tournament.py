"""`grader tournament EXERCISE CLASS`: every pair of a class's engines plays, the referee here.

The games are played by a process pool on this machine, `-j` at a time (Dask is not used yet:
a game needs two fork servers in one process, which a batch's Dask task does not provide).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from grader.batch.discover import BatchInputError, discover
from grader.batch.tournament import move_limits, schedule, tournament_data
from grader.cluster.gameplay import GameResult, LocalGames, tournament_of
from grader.cluster.grading import default_jobs
from grader.commands import EXIT_GRADER_FAILED, EXIT_OK
from grader.commands.output import stdout_console
from grader.errors import UsageError, UserError
from grader.exercise import project_root
from grader.inert import inert_text
from grader.report.tournament import write_tournament
from grader.run.sandbox import SandboxUnavailable, choose
from grader.sandboxes import SandboxChoice
from grader.suite.load import load_suite
from grader.suite.model import SuiteError


def main(
    *,
    exercise: str,
    folder: Path,
    jobs: int | None = None,
    games: int = 2,
    out: Path | None = None,
    sandbox: SandboxChoice | None = None,
    console: Console | None = None,
) -> int:
    """Play `games` games between every pair of engines of `folder`, write tournament.json and
    tournament.html under `out` (default ./tournament-out) and print the standings. Exit 1 when
    a game was void (the grader's fault)."""
    console = stdout_console(console)
    if jobs is not None and jobs < 1:
        raise UsageError("-j needs at least 1")
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
    except SandboxUnavailable as error:
        raise UserError(str(error)) from error
    limits = move_limits(loaded, tournament.move_cpu_s)
    students = {student: str(path) for student, path in found.submissions.items()}
    pairings = schedule(students, games, tournament.openings)
    started = time.monotonic()
    results: list[GameResult] = []
    with LocalGames(jobs if jobs is not None else default_jobs()) as pool:
        for pairing in pairings:
            pool.submit(str(project_root()), str(loaded.path), pairing, confinement, limits)
        for result in pool.completed():
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
