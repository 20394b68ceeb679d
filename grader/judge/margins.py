"""How far a plain right solution stays under the CPU limits (`grader verify`).

Every CPU limit must leave an honest, unoptimised solution a wide margin: verify grades each plain
right solution (a known AC submission named `plain-*`) and fails when one of its tests used more
than a third of the test's CPU limit on this machine.
"""

from __future__ import annotations

from grader.judge.grade import GradeReport

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
    problems = []
    for result in report.results:
        if result.kind == "game":  # its CPU is every move's, its limit one move's: bench/tournament.py
            continue
        limit = result.limits.get("cpu_s")
        used = result.usage.cpu_s
        if limit is None or used <= 0 or limit >= margin * used:
            continue
        problems.append(
            f"plain solution {name}: test {result.name} used {used:.2f} s of CPU, its "
            f"limit {limit:g} s is only {limit / used:.1f}x that (at least "
            f"{margin:g}x wanted)"
        )
    return problems


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
