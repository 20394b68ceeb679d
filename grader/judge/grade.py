"""Grading one submission against a suite: resolve the limits, run every test, judge it, collect."""

from __future__ import annotations

import logging
import resource
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from grader.errors import UserError
from grader.inert import inert_text
from grader.judge import advice, blame
from grader.judge.calibration import resolve_limits
from grader.judge.judgement import Judgement
from grader.judge.questions import QuestionScore, question_scores
from grader.judge.testrun import Grader, TestRun, prepared_submission
from grader.judge.verdicts import TestResult, Usage, Verdict
from grader.run.channel import ServerStartError
from grader.run.sandbox import SandboxUnavailable, choose, exposed
from grader.run.watchdog import RunOutcome
from grader.sandboxes import SandboxChoice
from grader.suite.load import LoadedSuite
from grader.suite.schema import TestSpec


def process_cpu_s() -> float:
    """CPU time of this process (all its threads), in seconds."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


log = logging.getLogger(__name__)  # a grader failure's traceback, for whoever runs the grader


@dataclass
class Cost:
    """What grading one submission cost, in CPU seconds."""

    runs_cpu_s: float = 0.0  # every run of every test, the re-runs that explain failures included
    grading_cpu_s: float = 0.0  # the whole grading: the grader, its fork server, every test run


@dataclass
class GradeReport:
    exercise: str
    submission: str
    results: list[TestResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    sandbox: str = ""
    boundary: str = ""  # what the tests got, as the parent checked it (grader/run/boundary.py)
    missing: list[str] = field(default_factory=list)  # submitted files the submission lacks
    question_titles: dict[str, str] = field(default_factory=dict)  # the suite's questions, in order
    cost: Cost = field(default_factory=Cost)
    # The points of the hidden tests this grading did not run (`--public`, a handout's suite);
    # the final grading runs them.
    hidden_points_not_run: float = 0.0

    @property
    def import_failure(self) -> TestResult | None:
        """The first test's result when every test got CE for one and the same reason (the
        submission does not import): a report says it once, not once per test."""
        causes = {result.cause if result.verdict is Verdict.CE else "" for result in self.results}
        if len(causes) != 1 or causes == {""}:
            return None
        return self.results[0]

    @property
    def questions(self) -> list[QuestionScore]:
        """Points per question (empty when the suite declares no questions)."""
        return question_scores(self.results, self.question_titles)

    @property
    def score(self) -> float:
        return sum(result.points for result in self.results)

    @property
    def tests_cpu_s(self) -> float:
        """The CPU time the tests' results report (one run each)."""
        return sum(result.usage.cpu_s for result in self.results)

    @property
    def max_score(self) -> float:
        return sum(result.max_points for result in self.results)


def result_of(
    test: TestSpec,
    judgement: Judgement,
    outcome: RunOutcome | None,
    limits_note: str = "",
    shown: Callable[[str], str] = inert_text,
) -> TestResult:
    """The test's result; every text that may hold what the test produced passes `shown`."""
    usage = Usage()
    stdout = None
    if outcome is not None:
        usage = Usage(
            cpu_s=outcome.cpu_s,
            wall_s=outcome.wall_s,
            peak_mb=outcome.peak_mb,
            memory_measured=outcome.memory_measured,
            resident_mb=outcome.resident_mb,
        )
        stdout = outcome.stdout.decode("utf-8", "replace")[:4000] if test.kind == "call" else None
    message = judgement.message
    if judgement.verdict is Verdict.JE and not message.strip():
        message = "the grader failed without saying why (a grader bug: please report it)"
    return TestResult(
        name=test.name,
        verdict=judgement.verdict,
        points=test.points if judgement.verdict is Verdict.AC else 0.0,
        max_points=test.points,
        visibility=test.visibility,
        kind=test.kind,
        usage=usage,
        message=shown(message),
        details=shown(judgement.details),
        stdout=shown(stdout) if stdout else None,
        limits=outcome.limits.model_dump() if outcome is not None else {},
        limits_note=limits_note,
        question=test.question or "",
        description=test.description,
        cause=shown(judgement.cause),
    )


@dataclass(frozen=True)
class Judged:
    """A test's judgement, the run its result reports, and the CPU time of all its runs."""

    judgement: Judgement
    outcome: RunOutcome | None
    runs_cpu_s: float


def _cpu(run: TestRun) -> float:
    return run.outcome.cpu_s if run.outcome is not None else 0.0


def judged(grader: Grader, test: TestSpec, verdicts: Mapping[str, Verdict]) -> Judged:
    """Judge `test` by evidence (`grader.judge.blame`): the student's code as submitted decides;
    a failure runs again only when helpers it uses failed their own questions, with the
    reference's versions of those, and is forgiven when that run passes. Of the second run, which
    holds reference code, only its verdict is used: nothing it prints or returns is shown."""
    judgement, run = grader.grade_test(test)
    if judgement.verdict in (Verdict.AC, Verdict.CE, Verdict.JE):
        return Judged(judgement, run.outcome, _cpu(run))
    helpers = blame.helpers_of(test, grader.loaded, verdicts)
    if not grader.with_reference_helpers:  # a handout: say which helpers to fix first
        failing = blame.failing(helpers, verdicts)
        if failing:
            judgement = Judgement(
                judgement.verdict,
                f"{judgement.message}\n{advice.local_advice(helpers, failing)}".lstrip(),
                judgement.details,
            )
        return Judged(judgement, run.outcome, _cpu(run))
    suspects = blame.swapped_for(test, grader.loaded, verdicts)
    if not suspects:
        return Judged(judgement, run.outcome, _cpu(run))
    again, rerun = grader.grade_test(test, list(suspects))
    cost = _cpu(run) + _cpu(rerun)
    if again.verdict is Verdict.AC:
        return Judged(
            Judgement(
                Verdict.AC,
                advice.forgiven(suspects, judgement, blame.failing(suspects, verdicts)),
                judgement.details,
            ),
            run.outcome,
            cost,
        )
    failed = blame.failing(suspects, verdicts)  # not merely ungraded here (`--test`)
    message = (
        advice.unforgiven(judgement, {h: q for h, q in suspects.items() if q in failed}, again)
        if failed
        else judgement.message
    )
    return Judged(Judgement(judgement.verdict, message, judgement.details), run.outcome, cost)


class UnknownTest(UserError):
    """A test asked for by name (`--test`) that the suite does not have."""


def hidden_points_not_run(loaded: LoadedSuite, public_only: bool) -> float:
    """The points of the hidden tests a grading leaves out: all of them with `public_only`, and
    those a handout's suite only counts (`withheld_points`)."""
    hidden = sum(test.points for test in loaded.suite.tests if test.visibility != "visible")
    return loaded.suite.withheld_points + (hidden if public_only else 0.0)


def select_tests(loaded: LoadedSuite, public_only: bool, names: list[str] | None = None) -> list[TestSpec]:
    tests = [t for t in loaded.suite.tests if not public_only or t.visibility == "visible"]
    if names:
        unknown = set(names) - {t.name for t in loaded.suite.tests}
        if unknown:
            raise UnknownTest(f"no test named {', '.join(sorted(unknown))} in {loaded.path}")
        tests = [t for t in tests if t.name in names]
    return tests


EXPOSED_NOTE = (
    "sandbox process, as asked: tests could read the file system, the hidden tests' "
    "expectations included; grade untrusted code with --sandbox bwrap or container"
)


def keep_hidden_from_tests(loaded: LoadedSuite) -> None:
    """Under `container`, only permissions keep the suite, the expectations and the reference
    from the tests' uid: refuse to grade when a stranger could read any of them."""
    readable = exposed([loaded.path, loaded.fixtures, loaded.exercise.reference])
    if readable:
        raise SandboxUnavailable(
            "the container sandbox hides files by permissions, and the tests' unprivileged uid "
            f"could read {', '.join(map(str, readable))}: make them unreadable to others "
            "(chmod -R o-rwx), or grade with --sandbox bwrap"
        )


def grade(
    loaded: LoadedSuite,
    source: Path,
    public_only: bool = False,
    names: list[str] | None = None,
    overlay: Path | None = None,
    on_result: Callable[[TestResult], None] | None = None,
    sandbox: str | None = None,
    default_sandbox: SandboxChoice = "bwrap",
    prior: Mapping[str, str] | None = None,
) -> GradeReport:
    """Grade the submission at `source` (folder or .zip); one failing test never stops the rest.

    `prior`: the verdicts of its last grading (test -> verdict), the evidence a regrade of some
    tests (`names`) blames by for the tests it does not run again.

    The sandbox is `sandbox` (the command line's), else $GRADER_SANDBOX, else the suite's, else
    `default_sandbox`; relative limits are timed on the reference under it before the run.
    """
    started_cpu_s = process_cpu_s()
    tests = select_tests(loaded, public_only, names)
    report = GradeReport(
        exercise=loaded.name,
        submission=str(source),
        question_titles=loaded.suite.question_titles(),
        hidden_points_not_run=hidden_points_not_run(loaded, public_only),
    )
    hidden = any(test.visibility != "visible" for test in tests)
    confinement = choose(sandbox, loaded.suite.sandbox, default_sandbox, hidden=hidden)
    if confinement == "container":
        keep_hidden_from_tests(loaded)
    if confinement == "process" and hidden:
        report.notes.append(EXPOSED_NOTE)
    with prepared_submission(loaded, source, overlay) as (prepared, scratch):
        if prepared.missing:
            report.missing = list(prepared.missing)
            report.notes.append("missing file(s): " + ", ".join(prepared.missing))
        if prepared.ignored:
            report.notes.append("ignored file(s): " + ", ".join(prepared.ignored))
        limits = resolve_limits(loaded, tests, confinement)
        verdicts = blame.seeded(loaded, prior or {}, {test.name for test in tests})
        results: dict[str, TestResult] = {}
        servers_cpu_s = 0.0
        try:
            with Grader(loaded, prepared, scratch, limits, confinement) as grader:
                report.sandbox = grader.sandbox
                for test in blame.execution_order(tests, loaded):
                    outcome: RunOutcome | None = None
                    problem = limits[test.name].problem
                    try:
                        if problem is not None:
                            judgement = Judgement(Verdict.JE, problem)
                        else:
                            decided = judged(grader, test, verdicts)
                            judgement, outcome = decided.judgement, decided.outcome
                            report.cost.runs_cpu_s += decided.runs_cpu_s
                    except (OSError, ValueError, KeyError, RuntimeError) as error:
                        log.exception("grading test %s of %s", test.name, source)
                        judgement = Judgement(
                            Verdict.JE, f"the grader failed: {type(error).__name__}: {error}".rstrip(": ")
                        )
                    result = result_of(test, judgement, outcome, limits[test.name].note, grader.shown)
                    results[test.name] = result
                    verdicts[test.name] = result.verdict
                    if test.question is not None:  # a question passes while all its tests do
                        so_far = verdicts.get(test.question, Verdict.AC)
                        verdicts[test.question] = result.verdict if so_far is Verdict.AC else so_far
                    if on_result is not None:
                        on_result(result)
                boundary = grader.server.boundary
                report.boundary = boundary.describe() if boundary is not None else "not checked"
            servers_cpu_s = grader.server.server_cpu_s
            report.results = [results[test.name] for test in tests if test.name in results]
        except ServerStartError as error:
            report.results = [
                result_of(
                    test, Judgement(Verdict.JE, f"the grader could not start a test process: {error}"), None
                )
                for test in tests
            ]
    report.cost.grading_cpu_s = round(
        process_cpu_s() - started_cpu_s + servers_cpu_s + report.cost.runs_cpu_s, 3
    )
    report.cost.runs_cpu_s = round(report.cost.runs_cpu_s, 3)
    return report
