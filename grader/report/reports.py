"""Writing a grade report: terminal, Gradescope results.json, JUnit XML."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from grader.atomic import write_atomically as write_atomically  # re-exported for its callers
from grader.inert import inert_text, xml_safe
from grader.judge.grade import GradeReport
from grader.judge.verdicts import TestResult, Usage, Verdict
from grader.report.headline import (
    SEE_ABOVE,
    failed_tests,
    import_failure_text,
    notes_beside,
    points_split,
    verdicts_of,
)

# The terminal's palette (named ANSI colours, readable on dark and light terminals); the pages'
# colours are grader/report/verdicts.css.
VERDICT_STYLES = {
    Verdict.AC: "green",
    Verdict.WA: "red",
    Verdict.TLE: "yellow",
    Verdict.MLE: "yellow",
    Verdict.RTE: "red",
    Verdict.OLE: "yellow",
    Verdict.NI: "dim",
    Verdict.CE: "magenta",
    Verdict.JE: "bold red",
}


def failure_text(result: TestResult) -> str:
    """What went wrong in one test (or, passed, what to fix first), as inert data."""
    parts = [f"{result.verdict.value} ({result.verdict.meaning})"]
    if result.description and not result.passed:
        parts.append(f"What it checks: {result.description}")
    if result.message:
        parts.append(result.message)
    if result.details:
        parts.append(result.details)
    if result.stdout:
        parts.append("Your code printed:\n" + result.stdout)
    return inert_text("\n".join(parts))


NOT_MEASURED = "-"  # no memory cgroup measured the test (a grader that is not root)


def peak_text(usage: Usage) -> str:
    """A test's peak memory for a table: MB, or NOT_MEASURED.

    >>> peak_text(Usage(peak_mb=12.34)), peak_text(Usage(peak_mb=0.0, memory_measured=False))
    ('12.3', '-')
    """
    return f"{usage.peak_mb:.1f}" if usage.memory_measured else NOT_MEASURED


def print_report(report: GradeReport, console: Console | None = None) -> None:
    """Points per question first, then every test, then what went wrong in each."""
    console = console or Console()
    failure = report.import_failure
    # Text objects throughout: a submission's name or output is never read as rich markup.
    console.print(Text(inert_text(f"{report.exercise}: {report.submission}"), style="bold"))
    if failure is not None:
        console.rule(Text("CE: does not import", style=VERDICT_STYLES[Verdict.CE]), align="left")
        console.print(Text(import_failure_text(failure)))
        console.rule()
    print_questions(report, console)
    console.print(Text(f"Points: {points_split(report).statement()}"))
    table = Table(title="Tests", title_justify="left")
    for column, justify in (
        ("test", "left"),
        ("verdict", "left"),
        ("points", "right"),
        ("cpu s", "right"),
        ("wall s", "right"),
        ("peak MB", "right"),
    ):
        # A name is folded onto more lines when the terminal (or a pipe's 80 columns) is too
        # narrow, never cut: it is what the student searches for in the suite.
        table.add_column(
            column,
            justify=justify,  # type: ignore[arg-type]
            overflow="fold" if column == "test" else "ellipsis",
            no_wrap=column not in ("test", "verdict"),
        )
    for result in report.results:
        name = result.name
        if result.visibility != "visible":
            name += f" ({result.visibility})"
        verdict = Text(
            result.verdict.value if failure is None else SEE_ABOVE, style=VERDICT_STYLES[result.verdict]
        )
        table.add_row(
            Text(inert_text(name)),
            verdict,
            f"{result.points:g}/{result.max_points:g}",
            f"{result.usage.cpu_s:.3f}",
            f"{result.usage.wall_s:.3f}",
            peak_text(result.usage),
        )
    console.print(table)
    for note in notes_beside(report):
        console.print(Text.assemble(("note:", "yellow"), " ", inert_text(note)))
    if failure is None:
        said = [r for r in report.results if not r.passed or r.message]  # a pass may carry advice
        for result in said:
            console.rule(Text(inert_text(f"{result.name}: {result.verdict.value}")), align="left")
            console.print(Text(failure_text(result)))
    console.print(
        f"[bold]Score: {report.score:g} / {report.max_score:g}[/]"
        f"  (sandbox: {escape(inert_text(report.sandbox or 'none'))})"
    )
    if report.boundary:
        console.print(f"boundary: {escape(inert_text(report.boundary))}")


def print_questions(report: GradeReport, console: Console) -> None:
    """Points per question, as the assignment states its questions (nothing if none declared)."""
    scores = report.questions
    if not scores:
        return
    verdicts = verdicts_of(report)
    table = Table(title="Points per question", title_justify="left")
    for column, justify in (("question", "left"), ("points", "right"), ("failed tests", "left")):
        table.add_column(column, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for score in scores:
        name = score.id if score.title == score.id else f"{score.id}: {score.title}"
        table.add_row(
            Text(inert_text(name)),
            f"{score.points:g}/{score.max_points:g}",
            Text(inert_text(failed_tests(list(score.lost), verdicts))),
        )
    console.print(table)


def questions_json(report: GradeReport) -> list[dict[str, Any]]:
    """Points per question, for results.json's extra_data."""
    return [
        {
            "id": score.id,
            "title": score.title,
            "score": score.points,
            "max_score": score.max_points,
            "lost": list(score.lost),
        }
        for score in report.questions
    ]


def cost_json(report: GradeReport) -> dict[str, float]:
    """CPU seconds: what the tests' results report, every run of a test (the re-runs that
    explain a failure included), and the whole grading (grader, fork servers, tests)."""
    return {
        "tests_cpu_s": round(report.tests_cpu_s, 3),
        "runs_cpu_s": report.cost.runs_cpu_s,
        "grading_cpu_s": report.cost.grading_cpu_s,
    }


def test_output(result: TestResult, import_failure: TestResult | None) -> str:
    """A test's text in results.json: what went wrong (or the advice of a pass; an interactive
    test's game record, passed too); a test stopped by the import failure stated at the top says
    only that."""
    if import_failure is not None:
        return SEE_ABOVE
    shown = not result.passed or result.message or (result.kind == "interactive" and result.details)
    return failure_text(result) if shown else ""


def results_json(report: GradeReport) -> dict[str, Any]:
    """Gradescope's results.json; its top-level `output` states, once, why a submission that does
    not import could run no test, then the grading's notes."""
    import_failure = report.import_failure
    tests = []
    for result in report.results:
        extra: dict[str, Any] = {"question": result.question} if result.question else {}
        tests.append(
            {
                "name": inert_text(result.name),
                "score": result.points,
                "max_score": result.max_points,
                "status": "passed" if result.passed else "failed",
                "output": test_output(result, import_failure),
                "visibility": result.visibility,
                "extra_data": {
                    **extra,
                    "verdict": result.verdict.value,
                    "kind": result.kind,
                    "limits": result.limits,
                    "calibration": result.limits_note or None,
                    "cpu_s": result.usage.cpu_s,
                    "wall_s": result.usage.wall_s,
                    "peak_mb": result.usage.peak_mb if result.usage.memory_measured else None,
                    "resident_mb": result.usage.resident_mb,
                },
            }
        )
    data: dict[str, Any] = {
        "score": report.score,
        "tests": tests,
        "extra_data": {
            "exercise": report.exercise,
            "max_score": report.max_score,
            "sandbox": report.sandbox,
            "boundary": report.boundary,
            "cost": cost_json(report),
        },
    }
    if report.questions:
        data["extra_data"]["questions"] = questions_json(report)
    if report.hidden_points_not_run:
        data["extra_data"]["hidden_points_not_run"] = report.hidden_points_not_run
    # No points here: the service shows this text to students whose hidden results it withholds.
    top = [import_failure_text(import_failure)] if import_failure is not None else []
    top += notes_beside(report)
    if top:
        data["output"] = inert_text("\n".join(top))
    return data


# The verdicts where the grader could not judge the answer at all: JUnit's <error>.
ERROR_VERDICTS = frozenset({Verdict.RTE, Verdict.CE, Verdict.JE})


def junit_xml(report: GradeReport) -> str:
    """JUnit XML as the Jenkins xunit plugin's junit-10.xsd defines it.

    RTE, CE and JE are <error>s, every other verdict but AC a <failure>; the points, which a
    <testcase> cannot hold, are properties of the <testsuite> (`points:NAME` = "got/max", and
    per question `question:ID` = "got/max"; `does_not_import` = why no test could run, when
    that is so) and the first line of each test's <system-out>. Each test keeps its own text.
    Every text passes xml_safe, so the file always parses.
    """
    errors = sum(1 for r in report.results if r.verdict in ERROR_VERDICTS)
    failures = sum(1 for r in report.results if not r.passed) - errors
    exercise = xml_safe(report.exercise)
    total_time = sum(r.usage.wall_s for r in report.results)
    root = ET.Element(
        "testsuites",
        name=exercise,
        tests=str(len(report.results)),
        failures=str(failures),
        errors=str(errors),
        time=f"{total_time:.3f}",
    )
    suite = ET.SubElement(
        root,
        "testsuite",
        name=exercise,
        tests=str(len(report.results)),
        failures=str(failures),
        errors=str(errors),
        skipped="0",
        time=f"{total_time:.3f}",
    )
    properties = ET.SubElement(suite, "properties")
    facts = [
        ("score", f"{report.score:g}"),
        ("max_score", f"{report.max_score:g}"),
        ("sandbox", report.sandbox or "none"),
        ("boundary", report.boundary or "none"),
    ]
    facts += [(f"points:{r.name}", f"{r.points:g}/{r.max_points:g}") for r in report.results]
    facts += [(f"question:{q.id}", f"{q.points:g}/{q.max_points:g}") for q in report.questions]
    if report.import_failure is not None:
        facts.append(("does_not_import", report.import_failure.cause))
    for key, value in facts:
        ET.SubElement(properties, "property", name=xml_safe(key), value=xml_safe(value))
    for result in report.results:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=exercise,
            name=xml_safe(result.name),
            time=f"{result.usage.wall_s:.3f}",
        )
        if not result.passed:
            tag = "error" if result.verdict in ERROR_VERDICTS else "failure"
            element = ET.SubElement(
                case, tag, type=result.verdict.value, message=xml_safe(result.message[:500])
            )
            element.text = xml_safe(failure_text(result))
        out = ET.SubElement(case, "system-out")
        out.text = (
            f"points {result.points:g}/{result.max_points:g}; verdict "
            f"{result.verdict.value}; cpu {result.usage.cpu_s:.3f} s; peak resident "
            f"{result.usage.resident_mb:.1f} MB"
        )
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_results(report: GradeReport, path: Path) -> None:
    write_atomically(path, json.dumps(results_json(report), indent=1) + "\n")


def write_junit(report: GradeReport, path: Path) -> None:
    write_atomically(path, junit_xml(report))
