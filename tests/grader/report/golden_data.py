"""A fixed little class, hostile names and outputs included, for the report writers' goldens."""

from __future__ import annotations

from grader.judge.grade import GradeReport
from grader.judge.verdicts import TestResult, Usage, Verdict
from grader.report.gradebook import Attempt, attempt_from_results
from grader.report.reports import results_json
from grader.report.roster import Roster

TESTS = [
    ("position", 1.0, "call"),
    ("a-test-name-long-enough-to-be-cut-at-eighty-columns", 2.0, "call"),
    ("game", 3.0, "transcript"),
]
IDENTITY = {
    "exercise": "toy",
    "suite_fingerprint": "s" * 16,
    "expectations_fingerprint": "e" * 16,
    "submission_hash": "h" * 16,
    "grader_version": "0.1.0+0000000000",
}
HOSTILE_OUTPUT = "grid = 5\x1b[2J</pre><script>alert(1)</script>\u202e\r=1+1"
MISSING = "missing file(s): toy.py"
VERDICTS = {
    "ada": (Verdict.AC, Verdict.AC, Verdict.AC),
    "bo<b>\x1b[31m": (Verdict.WA, Verdict.RTE, Verdict.WA),
    "=cmd|' /C calc'!A0": (Verdict.WA, Verdict.NI, Verdict.WA),
    "dee": (Verdict.CE, Verdict.CE, Verdict.CE),
}


def report_of(student: str) -> GradeReport:
    report = GradeReport(exercise="toy", submission=f"class/{student}", sandbox="process")
    for (name, points, kind), verdict in zip(TESTS, VERDICTS[student], strict=True):
        passed = verdict is Verdict.AC
        message = (
            ""
            if passed
            else ("the output differs" if kind == "transcript" else f"{name}(1) {HOSTILE_OUTPUT}")
        )
        cause = MISSING if verdict is Verdict.CE else ""
        message = cause or message
        report.results.append(
            TestResult(
                name=name,
                verdict=verdict,
                points=points if passed else 0.0,
                max_points=points,
                visibility="visible",
                kind=kind,
                usage=Usage(cpu_s=0.25, wall_s=0.5, peak_mb=2.0, resident_mb=12.5),
                message=message,
                details=HOSTILE_OUTPUT if kind == "transcript" and not passed else "",
                description="the <b>position</b> of a field" if name == "position" else "",
                cause=cause,
            )
        )
    if VERDICTS[student][0] is Verdict.CE:
        report.notes.append(MISSING)
    return report


def attempts() -> dict[str, Attempt]:
    found = {}
    for number, student in enumerate(sorted(VERDICTS), start=1):
        status = "CE" if VERDICTS[student][0] is Verdict.CE else "graded"
        attempt = attempt_from_results(
            student,
            dict(IDENTITY),
            status,
            results_json(report_of(student)),
            f"2025-01-0{number}T10:00:00+00:00",
        )
        attempt.attempt = number
        found[student] = attempt
    return found


def roster() -> Roster:
    return Roster(
        columns=["id", "name"],
        rows={"ada": ["1", "Ada"], "missy": ["2", "@SUM(A1)"], "bo<b>\x1b[31m": ["3", "Bo\tB"]},
    )
