"""`grader verify`: prove a suite before students see it."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from rich.console import Console

from grader.commands import EXIT_CHECK_FAILED, EXIT_OK
from grader.commands.output import stdout_console
from grader.diagnostics import Diagnostics
from grader.judge.grade import GradeReport, grade
from grader.judge.isolation import QuestionLoss, by_question, isolation_problems, question_loss
from grader.judge.margins import is_plain, least_of, margin_line, margin_problems, under_margin
from grader.judge.mutants import Mutant, applied, mutants_of
from grader.judge.preflight import static_problems
from grader.judge.verdicts import TestResult, Verdict
from grader.run.doctor import host_facts
from grader.sandboxes import SandboxChoice
from grader.suite import expectations
from grader.suite.load import LoadedSuite, load_suite
from grader.suite.model import SuiteError


@dataclass
class Verification:
    problems: Diagnostics = field(default_factory=Diagnostics)
    checks: list[str] = field(default_factory=list)
    lost: dict[str, list[str]] = field(default_factory=dict)  # mutant name -> the tests it lost
    owned: dict[str, list[str]] = field(default_factory=dict)  # mutant name -> its `tests:` line
    losses: list[QuestionLoss] = field(default_factory=list)  # by question (suites declaring them)

    @property
    def ok(self) -> bool:
        return self.problems.ok


def got(result: TestResult) -> str:
    """A result's verdict, with its reason when it is the grader's fault (JE).

    >>> got(TestResult("t", Verdict.JE, 0, 1, "visible", message="the fork server stalled"))
    'JE (the fork server stalled)'
    >>> got(TestResult("t", Verdict.WA, 0, 1, "visible", message="returned 3"))
    'WA'
    """
    if result.verdict is Verdict.JE:
        return f"JE ({result.message or 'no reason given'})"
    return result.verdict.value


def je_reasons(report: GradeReport, who: str) -> list[str]:
    """One line per JE of a grading: whose, which test, and why (so a JE under load is diagnosed)."""
    return [
        f"  {who}: {result.name} got {got(result)}"
        for result in report.results
        if result.verdict is Verdict.JE
    ]


def check_mutant(mutant: Mutant, report: GradeReport, reference_passes: set[str]) -> list[str]:
    """A wrong submission must get its verdict (on its `tests:` if listed); an AC one, full marks."""
    verdicts = {r.name: r.verdict for r in report.results}
    results = {r.name: r for r in report.results}
    problems = []
    if mutant.verdict is Verdict.AC:
        return [
            f"accepted submission {mutant.name} gets {got(results[name])} on {name}"
            for name, v in verdicts.items()
            if v is not Verdict.AC
        ]
    if mutant.failing_tests is None:
        if mutant.verdict not in verdicts.values():
            problems.append(f"mutant {mutant.name} never gets {mutant.verdict.value}: {_summary(verdicts)}")
    else:
        for name, verdict in verdicts.items():
            wanted = mutant.verdict if name in mutant.failing_tests else Verdict.AC
            if verdict is not wanted:
                problems.append(
                    f"mutant {mutant.name}: test {name} got {got(results[name])}, expected {wanted.value}"
                )
    caught_by = [n for n, v in verdicts.items() if v is not Verdict.AC and n in reference_passes]
    if not caught_by:
        problems.append(f"mutant {mutant.name} is not caught by any test the reference passes")
    return problems


def _summary(verdicts: dict[str, Verdict]) -> str:
    return ", ".join(f"{name}={verdict.value}" for name, verdict in verdicts.items())


def by_tests_line(outcome: Verification) -> list[str]:
    """In a suite without questions: for each mutant's `tests:` line, the mutants aimed at those
    tests and whether each loses only them (`isolation.by_question` does it by question).

    >>> outcome = Verification(lost={"WA/a": ["mask"], "WA/b": ["mask", "read"], "TLE/c": ["tree"]},
    ...                        owned={"WA/a": ["mask"], "WA/b": ["mask"]})
    >>> for line in by_tests_line(outcome):
    ...     print(line)
    mask: WA/a (only its own), WA/b (also loses read)
    (no tests: line): TLE/c (loses tree)
    """
    rows: dict[str, list[str]] = {}
    for mutant, lost in outcome.lost.items():
        own = outcome.owned.get(mutant)
        if own is None:
            rows.setdefault("(no tests: line)", []).append(f"{mutant} (loses {', '.join(lost)})")
            continue
        extra = [name for name in lost if name not in own]
        said = f"also loses {', '.join(extra)}" if extra else "only its own"
        rows.setdefault(", ".join(own), []).append(f"{mutant} ({said})")
    return [f"{question}: {', '.join(mutants)}" for question, mutants in rows.items()]


def verify(
    loaded: LoadedSuite,
    repeats: int = 2,
    progress: Callable[[str], None] | None = None,
    sandbox: str | None = None,
    jobs: int | None = None,
) -> Verification:
    """Grade the reference (`repeats` times), the stubs and every known submission (`jobs` at
    once, default: one per core) and check each gets what it should."""
    say = progress or (lambda _line: None)
    outcome = Verification(problems=static_problems(loaded))
    try:
        mutants = mutants_of(
            loaded.exercise,
            {test.name for test in loaded.suite.tests},
            {question.id for question in loaded.suite.questions},
        )
    except SuiteError as error:
        outcome.problems.error(str(error))
    if not outcome.ok:
        return outcome
    for test in loaded.suite.tests:
        recorded = expectations.recorded_fingerprint(loaded, test)
        if recorded is None:
            outcome.problems.error(
                f"test {test.name}: not recorded; run `grader record {loaded.name}`", file=loaded.path
            )
        elif recorded != expectations.fingerprint(loaded, test):
            outcome.problems.error(
                f"test {test.name}: recorded from an older reference, test or "
                f"input; run `grader record {loaded.name}` and review the diff",
                file=loaded.path,
            )
    if not outcome.ok:
        return outcome
    reference_runs = []
    for attempt in range(repeats):
        report = grade(loaded, loaded.exercise.reference, sandbox=sandbox)
        reference_runs.append(report)
        say(f"reference run {attempt + 1}: {report.score:g}/{report.max_score:g}")
        for line in je_reasons(report, "reference"):
            say(line)
    first = reference_runs[0]
    for result in first.results:
        if not result.passed:
            outcome.problems.error(
                f"the reference gets {result.verdict.value} on {result.name}: {result.message}"
            )
    for later in reference_runs[1:]:
        for a, b in zip(first.results, later.results, strict=True):
            if a.verdict is not b.verdict:
                outcome.problems.error(f"test {a.name} is flaky on the reference: {got(a)} then {got(b)}")
    reference_passes = {r.name for r in first.results if r.passed}
    stubs = grade(loaded, loaded.exercise.stubs, sandbox=sandbox)
    say(f"stubs: {_summary({r.name: r.verdict for r in stubs.results})}")
    for line in je_reasons(stubs, "stubs"):
        say(line)
    for result in stubs.results:
        if result.verdict is not Verdict.NI:
            outcome.problems.error(
                f"the untouched stubs get {result.verdict.value} on "
                f"{result.name} (expected NI): {result.message}"
            )
    with ThreadPoolExecutor(max_workers=max(1, jobs or os.cpu_count() or 1)) as pool:
        graded = [pool.submit(_graded, loaded, mutant, sandbox) for mutant in mutants]
        try:
            for mutant, future in zip(mutants, graded, strict=True):
                graded_mutant = future.result()
                if mutant.verdict is Verdict.AC and is_plain(mutant.name):
                    graded_mutant = _measured_again(loaded, mutant, graded_mutant, sandbox)
                _judge_mutant(loaded, outcome, mutant, graded_mutant, reference_passes, say)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    outcome.checks.append(f"{len(loaded.suite.tests)} tests, {len(mutants)} mutants")
    return outcome


def _graded(
    loaded: LoadedSuite, mutant: Mutant, sandbox: str | None, names: list[str] | None = None
) -> GradeReport | SuiteError:
    """A known submission graded (in a thread of verify's pool), or why it could not be."""
    try:
        with applied(mutant, loaded.exercise.reference) as patched:
            overlay = loaded.exercise.reference if mutant.overlay else None
            return grade(loaded, patched, names=names, overlay=overlay, sandbox=sandbox)
    except SuiteError as error:
        return error


def _measured_again(
    loaded: LoadedSuite, mutant: Mutant, report: GradeReport | SuiteError, sandbox: str | None
) -> GradeReport | SuiteError:
    """A plain solution's report, the tests it ran under the CPU margin timed a second time and
    judged by the lesser time (`grader.judge.margins`)."""
    if isinstance(report, SuiteError):
        return report
    tight = [result.name for result in under_margin(report)]
    if not tight:
        return report
    again = _graded(loaded, mutant, sandbox, names=tight)
    return report if isinstance(again, SuiteError) else least_of(report, again)


def _judge_mutant(
    loaded: LoadedSuite,
    outcome: Verification,
    mutant: Mutant,
    report: GradeReport | SuiteError,
    reference_passes: set[str],
    say: Callable[[str], None],
) -> None:
    """What a known submission's grading says about the suite, added to `outcome`."""
    if isinstance(report, SuiteError):
        outcome.problems.error(str(report))
        return
    problems = check_mutant(mutant, report, reference_passes)
    if mutant.verdict is Verdict.AC and is_plain(mutant.name):
        problems += margin_problems(mutant.name, report)
        outcome.checks.append(margin_line(mutant.name, report))
    if mutant.verdict is not Verdict.AC:
        outcome.lost[mutant.name] = [r.name for r in report.results if not r.passed]
        if mutant.failing_tests is not None:
            outcome.owned[mutant.name] = mutant.failing_tests
        if loaded.suite.questions:
            loss = question_loss(mutant, report)
            outcome.losses.append(loss)
            problems += isolation_problems(loss)
    kind = f"solution {mutant.name.split('/', 1)[-1]}" if mutant.whole else f"mutant {mutant.name}"
    say(
        f"{kind}: {'ok' if not problems else 'WRONG'} "
        f"({_summary({r.name: r.verdict for r in report.results if not r.passed})})"
    )
    for line in je_reasons(report, f"mutant {mutant.name}"):
        say(line)
    for problem in problems:
        outcome.problems.error(problem)


def main(*, exercise: str, sandbox: SandboxChoice | None = None, console: Console | None = None) -> int:
    """Prove a suite before students see it: the reference gets full marks twice (no flaky
    test), the untouched stubs only NI, every known submission (fixtures/NAME/mutants/) its
    verdict, every expectation recorded from the reference as it is. Exit 4 on any problem,
    each an `error:` line on stderr."""
    console = stdout_console(console)
    loaded = load_suite(exercise)
    for what, answer in host_facts():
        console.print(f"host: {what}: {answer}", soft_wrap=True, markup=False, highlight=False)
    outcome = verify(
        loaded, sandbox=sandbox, progress=lambda line: console.print(line, markup=False, highlight=False)
    )
    if outcome.lost:
        console.print("[bold]mutants per question[/]")
        lines = by_question(outcome.losses) if outcome.losses else by_tests_line(outcome)
        for line in lines:
            console.print(f"  {line}", soft_wrap=True, markup=False)
    outcome.problems.print()
    if outcome.ok:
        console.print(f"[green]{loaded.name}: suite verified[/] ({'; '.join(outcome.checks)})")
        return EXIT_OK
    print(f"{loaded.name}: not verified: {outcome.problems.count()}", file=sys.stderr)
    return EXIT_CHECK_FAILED
