"""A tournament's files: `tournament.json` (standings, crosstable, every game) and
`tournament.html` (the same as tables), written under --out, private to the grader.

Everything students control (their folder names, the moves their engines' answers named, the
reasons of forfeits) arrives here inert and is escaped again for HTML.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

from grader.atomic import make_private, write_atomically
from grader.inert import inert_text
from grader.report.summary import PAGE_STYLE, VERDICT_STYLE

JSON_NAME = "tournament.json"
HTML_NAME = "tournament.html"
RESULTS = {1.0: "1-0", 0.5: "&frac12;-&frac12;", 0.0: "0-1"}


def _text(value: object) -> str:
    return escape(inert_text(str(value)))


def _standings(rows: list[dict[str, Any]]) -> str:
    head = "<tr><th>#</th><th>student</th><th>rating</th><th>mu</th><th>sigma</th><th>points</th>"
    head += "<th>games</th><th>won</th><th>drawn</th><th>lost</th><th>forfeits</th></tr>"
    body = []
    for place, row in enumerate(rows, 1):
        verdicts = ", ".join(f"{_text(k)} {v}" for k, v in row["forfeit_verdicts"].items())
        body.append(
            f"<tr><td>{place}</td><td>{_text(row['student'])}</td><td>{row['rating']:.2f}</td>"
            f"<td>{row['mu']:.2f}</td><td>{row['sigma']:.2f}</td><td>{row['points']:g}</td>"
            f"<td>{row['games']}</td><td>{row['wins']}</td><td>{row['draws']}</td>"
            f"<td>{row['losses']}</td><td>{row['forfeits']}{f' ({verdicts})' if verdicts else ''}</td></tr>"
        )
    return f"<table>{head}{''.join(body)}</table>"


def _crosstable(order: list[str], cross: dict[str, dict[str, float]]) -> str:
    head = "<tr><th></th>" + "".join(f"<th>{number}</th>" for number in range(1, len(order) + 1)) + "</tr>"
    body = []
    for number, student in enumerate(order, 1):
        cells = "".join(
            "<td>&mdash;</td>" if other == student else f"<td>{cross[student][other]:g}</td>"
            for other in order
        )
        body.append(f"<tr><th>{number}. {_text(student)}</th>{cells}</tr>")
    return f"<table>{head}{''.join(body)}</table>"


def _games(games: list[dict[str, Any]]) -> str:
    rows = []
    for game in sorted(games, key=lambda found: found["number"]):
        if game["void"] is not None:
            result = f"void: {_text(game['void'])}"
        else:
            result = RESULTS.get(game["score"], "?")
        forfeit = game["forfeit"]
        if forfeit is not None:
            loser = game["seats"][forfeit["seat"]]
            result += (
                f' <span class="v-{_text(forfeit["verdict"])}">{_text(loser)} forfeits at ply '
                f"{forfeit['ply']}: {_text(forfeit['verdict'])} {_text(forfeit['reason'])}</span>"
            )
        moves = " ".join(f"{number}.{_text(move)}" for number, move in enumerate(game["moves"], 1))
        rows.append(
            f"<tr><td>{game['number']}</td><td>{game['opening']}</td><td>{_text(game['seats'][0])}</td>"
            f"<td>{_text(game['seats'][1])}</td><td>{result}</td>"
            f"<td>{game['cpu_s'][0]:.2f} / {game['cpu_s'][1]:.2f}</td><td><small>{moves}</small></td></tr>"
        )
    head = "<tr><th>game</th><th>opening</th><th>first</th><th>second</th><th>result</th>"
    head += "<th>CPU s (first / second)</th><th>moves</th></tr>"
    return f"<table>{head}{''.join(rows)}</table>"


def tournament_html(data: dict[str, Any]) -> str:
    title = _text(data["exercise"])
    order = [row["student"] for row in data["standings"]]
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}: tournament</title>
<style>{PAGE_STYLE}{VERDICT_STYLE}</style></head><body>
<h1>{title}: tournament of {len(order)} engines</h1>
<p>{len(data["games"])} games, {data["games_per_pair"]} per pair, colours alternating; each move
one call ({_text(data["call"])}) in a fresh sandboxed process, at most {data["move_cpu_s"]:g} s of
CPU. Ratings: openskill's Plackett-Luce model, sorted by mu - 3 sigma. A forfeit (a crash, a limit,
an illegal or garbled answer) loses that game only; a void game (the grader's fault) counts for
no one.</p>
<h2>Standings</h2>{_standings(data["standings"])}
<h2>Crosstable</h2><p>Points of the row's engine against the column's.</p>
{_crosstable(order, data["crosstable"])}
<h2>Games</h2>{_games(data["games"])}
</body></html>
"""


def write_tournament(out: Path, data: dict[str, Any]) -> list[Path]:
    """Write tournament.json and tournament.html under `out`; the paths written."""
    make_private(out)
    written = []
    for name, text in ((JSON_NAME, json.dumps(data, indent=1) + "\n"), (HTML_NAME, tournament_html(data))):
        write_atomically(out / name, text)
        written.append(out / name)
    return written
