"""`grader submit`'s side of the API: upload, follow the grading, print the report."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import requests
from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader.errors import UserError
from grader.inert import inert_text
from grader.report.headline import NOTHING_RAN

POLL_S = 0.3
DONE = ("graded", "error")


class ServiceError(UserError):
    """The service refused, or could not be reached: one line."""


def _json(reply: requests.Response, what: str) -> dict[str, Any]:
    try:
        data = reply.json()
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise ServiceError(f"{what}: HTTP {reply.status_code}, not the service's JSON")
    if reply.status_code >= 400:
        raise ServiceError(
            f"{what}: {inert_text(str(data.get('error', 'refused')))} (HTTP {reply.status_code})"
        )
    return data


def upload(url: str, assignment: str, files: list[Path], token: str, timeout_s: float = 60) -> str:
    """POST the files; the submission's id."""
    parts = []
    for path in files:
        try:
            parts.append(("files", (path.name, path.read_bytes())))
        except OSError as error:
            raise ServiceError(f"{path}: cannot read ({error.strerror or error})") from error
    try:
        reply = requests.post(
            f"{url.rstrip('/')}/api/submissions",
            data={"assignment": assignment},
            files=parts,
            headers={"Authorization": f"Bearer {token}"},
            timeout=timeout_s,
        )
    except requests.RequestException as error:
        raise ServiceError(f"{url}: cannot reach the service ({type(error).__name__})") from error
    return str(_json(reply, url)["id"])


def follow(url: str, ident: str, token: str, wait_s: float = 3600, on_status: Any = None) -> dict[str, Any]:
    """Poll the submission until graded (or error); its last state."""
    deadline = time.monotonic() + wait_s
    address = f"{url.rstrip('/')}/api/submissions/{ident}"
    while True:
        try:
            reply = requests.get(address, headers={"Authorization": f"Bearer {token}"}, timeout=30)
        except requests.RequestException as error:
            raise ServiceError(f"{url}: cannot reach the service ({type(error).__name__})") from error
        data = _json(reply, address)
        if on_status is not None:
            on_status(data)
        if data.get("status") in DONE or time.monotonic() > deadline:
            return data
        time.sleep(POLL_S)


def print_questions(results: dict[str, Any], console: Console) -> None:
    """Points per question (those the student may see), as `grader grade` prints them."""
    questions = results.get("extra_data", {}).get("questions") or []
    if not questions:
        return
    table = Table(title="Points per question", title_justify="left")
    for column, justify in (("question", "left"), ("points", "right"), ("failed tests", "left")):
        table.add_column(column, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for question in questions:
        ident, title = str(question.get("id", "")), str(question.get("title", ""))
        table.add_row(
            Text(inert_text(ident if title == ident else f"{ident}: {title}")),
            f"{float(question.get('score', 0)):g}/{float(question.get('max_score', 0)):g}",
            Text(inert_text(", ".join(str(name) for name in question.get("lost", [])) or "none")),
        )
    console.print(table)


def print_submission(data: dict[str, Any], console: Console) -> None:
    """The report as `grader grade` prints it, from the API's (student-safe) view: a submission
    that did not import says so once, first; then points per question, then every test."""
    results = data.get("results") or {}
    title = f"{data.get('assignment')}: submission {data.get('number')} of {data.get('login')}"
    console.print(Text(inert_text(title), style="bold"))
    output = str(results.get("output") or "")
    nothing_ran = output.startswith(NOTHING_RAN)
    if nothing_ran:
        console.rule(Text("CE: does not import", style="bold red"), align="left")
        console.print(Text(inert_text(output)))
        console.rule()
    print_questions(results, console)
    table = Table(title="Tests", title_justify="left")
    for column in ("test", "verdict", "points", "cpu s", "wall s", "peak MB"):
        table.add_column(column, overflow="fold" if column == "test" else "ellipsis")
    for test in results.get("tests", []):
        extra = test.get("extra_data", {})
        name = str(test.get("name", ""))
        if test.get("visibility", "visible") != "visible":
            name += f" ({test['visibility']})"
        table.add_row(
            Text(inert_text(name)),
            Text(str(extra.get("verdict", ""))),
            f"{float(test.get('score', 0)):g}/{float(test.get('max_score', 0)):g}",
            f"{float(extra.get('cpu_s', 0)):.3f}",
            f"{float(extra.get('wall_s', 0)):.3f}",
            "-" if extra.get("peak_mb") is None else f"{float(extra['peak_mb']):.1f}",
        )
    console.print(table)
    if output and not nothing_ran:
        console.print(Text.assemble(("note:", "yellow"), " ", inert_text(str(results["output"]))))
    hidden = results.get("extra_data", {}).get("hidden_tests")
    if hidden:
        console.print(Text(inert_text(str(hidden))))
    for test in [] if nothing_ran else results.get("tests", []):
        if test.get("output"):
            verdict = test.get("extra_data", {}).get("verdict", "")
            console.rule(Text(inert_text(f"{test['name']}: {verdict}")), align="left")
            console.print(Text(inert_text(str(test["output"]))))
    score, top = data.get("score"), data.get("max_score")
    if score is None or top is None:
        console.print(Text(f"status: {inert_text(str(data.get('status')))}"))
        return
    hidden = float(data.get("hidden_max_score") or 0)
    console.print(
        Text(
            f"Score: {score:g} / {top:g}"
            + (f" of the visible tests' points; {hidden:g} more point(s) in hidden tests" if hidden else ""),
            style="bold",
        )
    )
    if data.get("late_minutes"):
        console.print(
            Text(
                f"{data['late_minutes']} minute(s) late: penalty "
                f"{float(data.get('penalty') or 0):g}; final score "
                f"{float(data.get('final_score') or 0):g}"
            )
        )
