"""`grader grade`: one submission, or a class with `--batch`."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from rich.console import Console
from rich.text import Text

from grader.batch.discover import BatchInputError, Discovery, discover, looks_like_a_class
from grader.batch.preflight import out_problem, suite_problems
from grader.commands import EXIT_BAD_INPUT, EXIT_GRADER_FAILED, EXIT_OK, EXIT_USAGE, batch
from grader.inert import inert_text
from grader.judge.grade import grade, select_tests
from grader.report.gradebook import Gradebook, GradebookError
from grader.report.grades import GRADE_COLUMNS
from grader.report.reports import print_report, write_junit, write_results
from grader.report.roster import Roster, read_roster
from grader.report.summary import print_summary
from grader.run.submission import SubmissionError
from grader.suite.load import LoadedSuite, load_suite


def run(args: argparse.Namespace, console: Console) -> int:
    loaded = load_suite(args.exercise)
    if args.batch:
        return run_batch(args, loaded, console)
    for flag in ("jobs", "out", "roster", "executor", "scheduler"):
        if getattr(args, flag) is not None:
            console.print(f"[red]error:[/] --{flag} only goes with --batch")
            return EXIT_USAGE
    if args.resume:
        console.print("[red]error:[/] --resume only goes with --batch")
        return EXIT_USAGE
    if looks_like_a_class(args.submission, loaded.suite.submit):
        console.print(f"[red]error:[/] {args.submission}: holds several submissions (folders or "
                      f".zip files with {', '.join(loaded.suite.submit)}), not one; to grade "
                      f"them all, add --batch", highlight=False)
        return EXIT_USAGE
    report = grade(loaded, args.submission, public_only=args.public, names=args.tests,
                   sandbox=args.sandbox)
    print_report(report, console)
    if args.results:
        write_results(report, args.results)
    if args.junit:
        write_junit(report, args.junit)
    return EXIT_OK


def _sandbox(requested: str | None) -> str | None:
    """The sandbox asked for here (flag, else $GRADER_SANDBOX), so remote workers grade the same."""
    return requested or os.environ.get("GRADER_SANDBOX") or None


def run_batch(args: argparse.Namespace, loaded: LoadedSuite, console: Console) -> int:
    for flag in ("results", "junit", "tests"):
        if getattr(args, flag):
            name = "test" if flag == "tests" else flag
            console.print(f"[red]error:[/] --{name} does not go with --batch: a batch grades every "
                          f"test and writes results.json and junit.xml for every student under "
                          f"--out", highlight=False)
            return EXIT_USAGE
    if args.scheduler is not None and (args.executor or "local") != "dask":
        console.print("[red]error:[/] --scheduler only goes with --executor dask")
        return EXIT_USAGE
    if args.scheduler is not None and args.jobs is not None:
        console.print("[red]error:[/] -j sizes this machine's pool or LocalCluster; with "
                      "--scheduler the cluster's workers decide")
        return EXIT_USAGE
    jobs = args.jobs if args.jobs is not None else batch.default_jobs()
    if jobs < 1:
        console.print("[red]error:[/] -j needs at least 1")
        return EXIT_USAGE
    out = args.out or Path("out")
    # Everything that could stop the batch is found before anyone is graded.
    problems: list[str] = []
    roster: Roster | None = None
    try:
        found = discover(args.submission, loaded.suite.submit)
    except BatchInputError as error:
        console.print(f"[red]error:[/] {error}", highlight=False)
        return EXIT_USAGE
    if args.roster is not None:
        try:
            roster = read_roster(args.roster, reserved=list(GRADE_COLUMNS))
        except SubmissionError as error:
            problems.append(str(error))
    if not found.submissions and roster is None:
        problems.append(f"{args.submission}: no submission in it (sub-folders or .zip files)")
    problems += suite_problems(loaded, select_tests(loaded, args.public))
    unwritable = out_problem(out)
    if unwritable is not None:
        problems.append(unwritable)
    book: Gradebook | None = None
    if unwritable is None:
        try:
            book = Gradebook.of(out)
            book.claim(loaded.name)
        except GradebookError as error:
            problems.append(str(error))
    if problems:
        for problem in problems:
            console.print(Text.assemble(("error: ", "red"), inert_text(problem)))
        console.print(f"nothing graded (exit {EXIT_BAD_INPUT})")
        if book is not None:
            book.close()
        return EXIT_BAD_INPUT
    assert book is not None
    with book:
        return _grade_class(args, loaded, console, found, roster, book, out, jobs)


def _grade_class(args: argparse.Namespace, loaded: LoadedSuite, console: Console,
                 found: Discovery, roster: Roster | None, book: Gradebook, out: Path,
                 jobs: int) -> int:
    for entry in found.skipped:
        console.print(Text(f"skipped {inert_text(entry)}"), style="yellow")
    if roster is not None:
        strangers = sorted(set(found.submissions) - set(roster.rows))
        if strangers:
            console.print(Text(f"not in the roster {args.roster}: {', '.join(strangers)} "
                               f"(graded, listed after the roster's students)"), style="yellow")
    planned = batch.plan(loaded, found, book, out, args.resume)
    if args.resume:
        console.print(f"resume: regrading {len(planned.todo)} of {len(planned.identities)} "
                      f"submission(s), new or changed since their last grading (submission, "
                      f"suite, expectations or grader); keeping {len(planned.kept)}")
    progress = _run_with_bar(args, loaded, console, planned, book, out, jobs)
    summary = batch.write_class_reports(loaded, out, book, list(found.submissions), roster,
                                        args.public)
    print_summary(summary, console)
    grades = out / batch.GRADES_NAME
    kept = f", kept {progress.skipped} unchanged" if progress.skipped else ""
    console.print(Text(f"graded {progress.done - progress.skipped} submission(s){kept}; wrote "
                       f"{grades}, {out / 'summary.html'}, {out / 'gradebook.sqlite'} and "
                       f"results.json, junit.xml and feedback.html per student"))
    if progress.judge_errors:
        console.print(Text(f"grader error (JE) for {len(progress.judge_errors)} submission(s): "
                           f"{', '.join(sorted(progress.judge_errors))}; see their results.json, "
                           f"fix the cause and grade again with --resume (exit "
                           f"{EXIT_GRADER_FAILED})"), style="red")
        return EXIT_GRADER_FAILED
    return EXIT_OK


def _run_with_bar(args: argparse.Namespace, loaded: LoadedSuite, console: Console,
                  planned: batch.Plan, book: Gradebook, out: Path, jobs: int
                  ) -> batch.BatchProgress:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]:.1f}/min"), TimeElapsedColumn(), TextColumn("ETA"),
               TimeRemainingColumn(), TextColumn("[red]{task.fields[failures]} not full marks"))
    started = time.monotonic()
    total = len(planned.submissions)
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(f"grading {loaded.name}", total=total, completed=len(planned.kept),
                            rate=0.0, failures=0)

        def on_done(student: str, attempt: object, progress: batch.BatchProgress) -> None:
            minutes = max(time.monotonic() - started, 1e-6) / 60
            bar.update(task, completed=progress.done,
                       rate=(progress.done - progress.skipped) / minutes,
                       failures=progress.failures)

        try:
            return batch.grade_planned(loaded, planned, out, book, jobs,
                                       public_only=args.public, sandbox=_sandbox(args.sandbox),
                                       on_done=on_done, executor=args.executor or "local",
                                       scheduler=args.scheduler)
        except KeyboardInterrupt:
            bar.stop()
            finished = len(batch.collect(out))
            console.print(f"interrupted: {finished} result(s) kept in {out}; grade again with "
                          f"--resume to finish")
            raise
