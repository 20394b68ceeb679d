"""How far a plain right solution stays under the CPU limits (`grader verify`).

Every CPU limit must leave an honest, unoptimised solution a wide margin: verify grades each plain
right solution (a known AC submission named `plain-*`) and fails when one of its tests used more
than a third of the test's CPU limit on this machine. A busy machine inflates CPU time too (shared
caches, a sibling hyperthread: 1.5x was seen in CI beside a full test run), so a test found under the
margin is measured once more and the lesser of its two times is judged, as benchmarks take the best
of their runs.
"""

from __future__ import annotations

import dataclasses

from grader.judge.grade import GradeReport
from grader.judge.verdicts import TestResult

PLAIN_PREFIX = "plain-"
MARGIN = 3.0  # a plain right solution's CPU time, times this, stays within every CPU limit


def is_plain(name: str) -> bool:
    """Whether a known right submission is a plain one (held to the margin).

    >>> is_plain("AC/plain-student"), is_plain("AC/tail-insertion")
    (True, False)
    """
    return name.rsplit("/", 1)[-1].startswith(PLAIN_PREFIX)


def margin_problems(name: str, report: GradeReport, margin: float = MARGIN) -> list[str]:
    """The tests where the plain solution `name` has less than `margin` times its CPU time left.

    >>> from grader.judge.verdicts import TestResult, Usage, Verdict
    >>> report = GradeReport("e", "s", [
    ...     TestResult("big", Verdict.AC, 1, 1, "visible", usage=Usage(cpu_s=2.0),
    ...                limits={"cpu_s": 5.0}),
    ...     TestResult("small", Verdict.AC, 1, 1, "visible", usage=Usage(cpu_s=0.5),
    ...                limits={"cpu_s": 5.0})])
    >>> [problem.split(": ")[1] for problem in margin_problems("AC/plain-student", report)]
    ['test big used 2.00 s of CPU, its limit 5 s is only 2.5x that (at least 3x wanted)']
    """
    return [
        f"plain solution {name}: test {result.name} used {result.usage.cpu_s:.2f} s of CPU, its "
        f"limit {result.limits['cpu_s']:g} s is only {result.limits['cpu_s'] / result.usage.cpu_s:.1f}x "
        f"that (at least {margin:g}x wanted)"
        for result in under_margin(report, margin)
    ]


def under_margin(report: GradeReport, margin: float = MARGIN) -> list[TestResult]:
    """The results whose CPU time, times `margin`, exceeds their test's CPU limit."""
    return [
        result
        for result in report.results
        # a game's CPU is every move's, its limit one move's: bench/tournament.py
        if result.kind != "game"
        and "cpu_s" in result.limits
        and result.usage.cpu_s > 0
        and result.limits["cpu_s"] < margin * result.usage.cpu_s
    ]


def least_of(report: GradeReport, again: GradeReport) -> GradeReport:
    """`report` with each test's CPU time the lesser of its two measurements (`again` holds some
    tests run a second time).

    >>> from grader.judge.verdicts import TestResult, Usage, Verdict
    >>> def run(cpu_s: float) -> TestResult:
    ...     return TestResult("t", Verdict.AC, 1, 1, "visible", usage=Usage(cpu_s=cpu_s))
    >>> least_of(GradeReport("e", "s", [run(4.9)]), GradeReport("e", "s", [run(3.2)])).results[0].usage.cpu_s
    3.2
    >>> least_of(GradeReport("e", "s", [run(3.2)]), GradeReport("e", "s", [run(4.9)])).results[0].usage.cpu_s
    3.2
    """
    second = {result.name: result for result in again.results}

    def lesser(result: TestResult) -> TestResult:
        other = second.get(result.name)
        if other is None or not 0 < other.usage.cpu_s < result.usage.cpu_s:
            return result
        return dataclasses.replace(result, usage=other.usage)

    return dataclasses.replace(report, results=[lesser(result) for result in report.results])


def margin_line(name: str, report: GradeReport) -> str:
    """The plain solution's least margin, for verify's report.

    >>> from grader.judge.verdicts import TestResult, Usage, Verdict
    >>> report = GradeReport("e", "s", [TestResult("big", Verdict.AC, 1, 1, "visible",
    ...                                            usage=Usage(cpu_s=2.0), limits={"cpu_s": 9.0})])
    >>> margin_line("AC/plain-student", report)
    'AC/plain-student: least CPU margin 4.5x (big: 2.00 s of 9 s)'
    """
    margins = [
        (result.limits["cpu_s"] / result.usage.cpu_s, result)
        for result in report.results
        if result.usage.cpu_s > 0 and "cpu_s" in result.limits and result.kind != "game"
    ]
    if not margins:
        return f"{name}: no CPU time measured"
    least, result = min(margins, key=lambda item: item[0])
    return (
        f"{name}: least CPU margin {least:.1f}x ({result.name}: {result.usage.cpu_s:.2f} s "
        f"of {result.limits['cpu_s']:g} s)"
    )
