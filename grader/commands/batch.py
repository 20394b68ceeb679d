"""`grader batch EXERCISE CLASS`: every sub-folder or .zip of CLASS graded, in parallel, after
every check that could stop the batch found nothing (else nobody is graded)."""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import Console
from rich.text import Text

from grader.batch.discover import BatchInputError, Discovery, discover
from grader.batch.engine import BatchProgress, Plan, grade_planned, plan
from grader.batch.results import GRADES_NAME, collect, out_problems, write_class_reports
from grader.cluster.grading import default_jobs
from grader.cluster.job import ExecutorName, check_executor_options
from grader.commands import EXIT_GRADER_FAILED, EXIT_OK
from grader.commands.output import stdout_console
from grader.diagnostics import Diagnostics
from grader.inert import inert_text
from grader.judge.grade import select_tests
from grader.judge.preflight import preflight
from grader.report.gradebook import Gradebook, GradebookError
from grader.report.grades import GRADE_COLUMNS
from grader.report.roster import Roster, read_roster
from grader.report.summary import print_summary
from grader.run.sandbox import SandboxUnavailable, choose, enterable
from grader.run.submission import SubmissionError
from grader.sandboxes import SandboxChoice, asked
from grader.suite.load import LoadedSuite, load_suite


def main(
    *,
    exercise: str,
    folder: Path,
    jobs: int | None = None,
    out: Path | None = None,
    public: bool = False,
    sandbox: SandboxChoice | None = None,
    resume: bool = False,
    roster: Path | None = None,
    executor: ExecutorName | None = None,
    scheduler: str | None = None,
    console: Console | None = None,
) -> int:
    """Grade every submission (sub-folder or .zip) of `folder` into `out` (default ./out).

    Before anyone is graded: the suite, given files, input fixtures, fresh expectations, the roster
    and a writable `out` are checked; any problem is one line on stderr and exit 3. `jobs`
    submissions are graded at once (default: all cores) on `executor` (`local`, or `dask`: a
    LocalCluster of `jobs` workers, or the running `scheduler`). `resume` regrades only the
    submissions whose inputs changed; `roster` is a CSV whose columns go in front of grades.csv.
    Exit 1 when any submission got JE.
    """
    console = stdout_console(console)
    check_executor_options(executor, scheduler, jobs)
    loaded = load_suite(exercise)
    out = out or Path("out")
    found, read, book, problems = _preflight(loaded, folder, out, roster, public, sandbox)
    if not problems.ok and book is not None:
        book.close()
    problems.stop_on_errors("nothing graded")
    assert found is not None and book is not None
    problems.print()
    with book:
        return _grade_class(
            loaded,
            console,
            found,
            read,
            book,
            out,
            jobs if jobs is not None else default_jobs(),
            resume=resume,
            public=public,
            sandbox=sandbox,
            executor=executor or "local",
            scheduler=scheduler,
        )


def _preflight(
    loaded: LoadedSuite,
    folder: Path,
    out: Path,
    roster_file: Path | None,
    public: bool,
    sandbox: SandboxChoice | None = None,
) -> tuple[Discovery | None, Roster | None, Gradebook | None, Diagnostics]:
    """Everything that could stop the batch, found before anyone is graded."""
    problems = Diagnostics()
    found: Discovery | None = None
    roster: Roster | None = None
    try:
        found = discover(folder, loaded.suite.submit)
    except BatchInputError as error:
        problems.error(str(error))
    if roster_file is not None:
        try:
            roster = read_roster(roster_file, reserved=list(GRADE_COLUMNS))
        except SubmissionError as error:
            problems.error(str(error))
    if found is not None and not found.submissions and roster is None:
        problems.error("no submission in it (sub-folders or .zip files)", file=folder)
    problems.extend(preflight(loaded, select_tests(loaded, public)))
    if found is not None:
        problems.extend(_closed_to_tests(loaded, folder, out, public, sandbox))
    if found is None or not problems.ok:  # nothing is written anywhere then
        return found, roster, None, problems
    unwritable = out_problems(out)
    problems.extend(unwritable)
    book: Gradebook | None = None
    if unwritable.ok:
        try:
            book = Gradebook.of(out)
            book.claim(loaded.name)
        except GradebookError as error:
            problems.error(str(error))
    for entry in found.skipped:
        problems.warning(f"skipped {entry}")
    if roster is not None:
        strangers = sorted(set(found.submissions) - set(roster.rows))
        if strangers:
            problems.warning(
                f"not in the roster {roster_file}: {', '.join(strangers)} (graded, "
                f"listed after the roster's students)"
            )
    return found, roster, book, problems


def _closed_to_tests(
    loaded: LoadedSuite, folder: Path, out: Path, public: bool, sandbox: SandboxChoice | None
) -> Diagnostics:
    """At the container level only permissions keep the tests' uids (which read the host's
    process list, naming both) out of the class folder and an existing --out: either one that
    others could enter is an error. What the grader makes itself is closed (`grader.atomic`)."""
    problems = Diagnostics()
    hidden = any(test.visibility != "visible" for test in select_tests(loaded, public))
    try:
        level = choose(sandbox, loaded.suite.sandbox, "bwrap", hidden=hidden)
    except SandboxUnavailable:
        return problems  # grading says why, for every student
    if level == "container":
        for path in enterable([folder, out]):
            problems.error(
                f"the container sandbox hides files by permissions, and the tests' "
                f"unprivileged uids could enter this folder: close it to others "
                f"(chmod o-rwx {path}), or grade with --sandbox bwrap",
                file=path,
            )
    return problems


def _grade_class(
    loaded: LoadedSuite,
    console: Console,
    found: Discovery,
    roster: Roster | None,
    book: Gradebook,
    out: Path,
    jobs: int,
    *,
    resume: bool,
    public: bool,
    sandbox: SandboxChoice | None,
    executor: ExecutorName,
    scheduler: str | None,
) -> int:
    planned = plan(loaded, found, book, out, resume)
    if resume:
        console.print(
            f"resume: regrading {len(planned.todo)} of {len(planned.identities)} "
            f"submission(s), new or changed since their last grading (submission, "
            f"suite, expectations or grader); keeping {len(planned.kept)}"
        )
    # The sandbox asked for here (flag, else $GRADER_SANDBOX), so remote workers grade the same.
    chosen = asked(sandbox)
    progress = _run_with_bar(
        loaded,
        console,
        planned,
        book,
        out,
        jobs,
        public=public,
        sandbox=chosen,
        executor=executor,
        scheduler=scheduler,
    )
    summary = write_class_reports(loaded, out, book, list(found.submissions), roster, public)
    print_summary(summary, console)
    grades = out / GRADES_NAME
    kept = f", kept {progress.skipped} unchanged" if progress.skipped else ""
    console.print(
        Text(
            f"graded {progress.done - progress.skipped} submission(s){kept}; wrote "
            f"{grades}, {out / 'summary.html'}, {out / 'gradebook.sqlite'} and "
            f"results.json, junit.xml and feedback.html per student"
        )
    )
    if progress.judge_errors:
        console.print(
            Text(
                f"grader error (JE) for {len(progress.judge_errors)} submission(s): "
                f"{', '.join(sorted(progress.judge_errors))}; see their results.json, "
                f"fix the cause and grade again with --resume (exit "
                f"{EXIT_GRADER_FAILED})"
            ),
            style="red",
        )
        return EXIT_GRADER_FAILED
    return EXIT_OK


def _run_with_bar(
    loaded: LoadedSuite,
    console: Console,
    planned: Plan,
    book: Gradebook,
    out: Path,
    jobs: int,
    *,
    public: bool,
    sandbox: str | None,
    executor: ExecutorName,
    scheduler: str | None,
) -> BatchProgress:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:.1f}/min"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("[red]{task.fields[failures]} not full marks"),
    )
    started = time.monotonic()
    total = len(planned.submissions)
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(
            f"grading {inert_text(loaded.name)}",
            total=total,
            completed=len(planned.kept),
            rate=0.0,
            failures=0,
        )

        def on_done(student: str, attempt: object, progress: BatchProgress) -> None:
            minutes = max(time.monotonic() - started, 1e-6) / 60
            bar.update(
                task,
                completed=progress.done,
                rate=(progress.done - progress.skipped) / minutes,
                failures=progress.failures,
            )

        try:
            return grade_planned(
                loaded,
                planned,
                out,
                book,
                jobs,
                public_only=public,
                sandbox=sandbox,
                on_done=on_done,
                executor=executor,
                scheduler=scheduler,
            )
        except KeyboardInterrupt:
            bar.stop()
            finished = len(collect(out))
            console.print(
                f"interrupted: {finished} result(s) kept in {out}; grade again with --resume to finish"
            )
            raise
