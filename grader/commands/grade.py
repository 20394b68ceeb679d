"""`grader grade`: one submission, or a class with `--batch`."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from grader.commands import EXIT_OK, EXIT_USAGE
from grader.commands.batch import BatchProgress, collect, default_jobs, grade_batch, write_grades
from grader.judge.grade import grade
from grader.report.reports import print_report, write_atomically, write_junit, write_results
from grader.report.summary import print_summary, summarize, summary_html
from grader.suite.load import LoadedSuite, load_suite


def run(args: argparse.Namespace, console: Console) -> int:
    loaded = load_suite(args.exercise)
    if args.batch:
        return run_batch(args, loaded, console)
    for flag in ("jobs", "out", "executor", "scheduler"):
        if getattr(args, flag) is not None:
            console.print(f"[red]error:[/] --{flag} only goes with --batch")
            return EXIT_USAGE
    if args.resume:
        console.print("[red]error:[/] --resume only goes with --batch")
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
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    out = args.out or Path("out")
    executor = args.executor or "local"
    if args.scheduler is not None and executor != "dask":
        console.print("[red]error:[/] --scheduler only goes with --executor dask")
        return EXIT_USAGE
    if args.scheduler is not None and args.jobs is not None:
        console.print("[red]error:[/] -j sizes this machine's pool or LocalCluster; with "
                      "--scheduler the cluster's workers decide")
        return EXIT_USAGE
    jobs = args.jobs if args.jobs is not None else default_jobs()
    if jobs < 1:
        console.print("[red]error:[/] -j needs at least 1")
        return EXIT_USAGE
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]:.1f}/min"), TimeElapsedColumn(), TextColumn("ETA"),
               TimeRemainingColumn(), TextColumn("[red]{task.fields[failures]} not full marks"))
    started = time.monotonic()
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(f"grading {loaded.name}", total=None, rate=0.0, failures=0)

        def on_done(student: str, data: dict[str, Any], progress: BatchProgress) -> None:
            minutes = max(time.monotonic() - started, 1e-6) / 60
            bar.update(task, total=progress.total, completed=progress.done,
                       rate=(progress.done - progress.skipped) / minutes,
                       failures=progress.failures)

        progress = grade_batch(loaded, args.submission, out, jobs, args.resume,
                               public_only=args.public, sandbox=_sandbox(args.sandbox),
                               on_done=on_done, executor=executor, scheduler=args.scheduler)
        bar.update(task, total=progress.total, completed=progress.done)
    grades = write_grades(loaded, out)
    summary = summarize(collect(out))
    print_summary(summary, console)
    write_atomically(out / "summary.html", summary_html(loaded.name, summary))
    console.print(f"graded {progress.done - progress.skipped} submission(s)"
                  f"{f', kept {progress.skipped} from before' if progress.skipped else ''}; "
                  f"wrote {grades}, {out / 'summary.html'} and one results.json per student")
    return EXIT_OK
