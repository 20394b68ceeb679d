"""The `grader` command line."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from grader.batch import BatchProgress, collect, default_jobs, grade_batch, write_grades
from grader.grade import grade
from grader.paths import exercise_dir, reference_dir, suites_dir
from grader.record import RecordError, record
from grader.reports import print_report, write_atomically, write_junit, write_results
from grader.sandbox import SandboxUnavailable
from grader.submission import SubmissionError, prepare
from grader.suite import LoadedSuite, SuiteError, load_suite
from grader.summary import print_summary, summarize, summary_html
from grader.verify import verify

EXIT_OK = 0
EXIT_GRADER_FAILED = 1
EXIT_USAGE = 2
EXIT_BAD_INPUT = 3
EXIT_CHECK_FAILED = 4


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="grader", description="Grade game-tree search exercises.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    grade_cmd = commands.add_parser("grade", help="grade one submission (a folder or a .zip)")
    grade_cmd.add_argument("exercise", help="exercise name (e.g. bitgrid) or a suite file")
    grade_cmd.add_argument("submission", type=Path, help="folder or .zip with the student's files")
    grade_cmd.add_argument("--results", type=Path, help="write Gradescope's results.json here")
    grade_cmd.add_argument("--junit", type=Path, help="write JUnit XML here")
    grade_cmd.add_argument("--public", action="store_true", help="only the visible tests")
    grade_cmd.add_argument("--test", action="append", dest="tests", metavar="NAME",
                           help="only this test (repeatable)")
    grade_cmd.add_argument("--batch", action="store_true",
                           help="SUBMISSION is a folder of submissions (sub-folders or .zip)")
    grade_cmd.add_argument("-j", "--jobs", type=int, default=None,
                           help="submissions graded at once (default: all cores)")
    grade_cmd.add_argument("--out", type=Path, help="where batch results go (default: ./out)")
    grade_cmd.add_argument("--sandbox", choices=["process", "bwrap", "auto"],
                           help="confine tests with bubblewrap (default, or $GRADER_SANDBOX), "
                                "process limits only, or bubblewrap when available")
    grade_cmd.add_argument("--resume", action="store_true",
                           help="grade only the submissions without results in --out")

    check_cmd = commands.add_parser("check", help="grade your working copy with the visible tests")
    check_cmd.add_argument("exercise")
    check_cmd.add_argument("--sandbox", default="process", choices=["process", "bwrap", "auto"],
                           help="default: process limits only (your own code on your machine)")

    run_cmd = commands.add_parser("run", help="run a driver of an exercise interactively")
    run_cmd.add_argument("exercise")
    run_cmd.add_argument("driver")
    run_cmd.add_argument("--submission", type=Path,
                         help="folder with the student's files (default: the reference)")
    run_cmd.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the driver")

    commands.add_parser("list", help="the exercises, their drivers and points")

    record_cmd = commands.add_parser("record", help="record expectations from the reference")
    record_cmd.add_argument("exercise")
    record_cmd.add_argument("--test", action="append", dest="tests", metavar="NAME")

    verify_cmd = commands.add_parser("verify", help="check a suite: reference, stubs, mutants")
    verify_cmd.add_argument("exercise")
    verify_cmd.add_argument("--sandbox", choices=["process", "bwrap", "auto"])

    handout_cmd = commands.add_parser("handout", help="write what students receive into DIR")
    handout_cmd.add_argument("exercise")
    handout_cmd.add_argument("directory", type=Path)
    return parser


def cmd_grade(args: argparse.Namespace, console: Console) -> int:
    loaded = load_suite(args.exercise)
    if args.batch:
        return cmd_batch(args, loaded, console)
    for flag in ("jobs", "out"):
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


def cmd_batch(args: argparse.Namespace, loaded: LoadedSuite, console: Console) -> int:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    out = args.out or Path("out")
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
                               public_only=args.public, sandbox=args.sandbox, on_done=on_done)
        bar.update(task, total=progress.total, completed=progress.done)
    grades = write_grades(loaded, out)
    summary = summarize(collect(out))
    print_summary(summary, console)
    write_atomically(out / "summary.html", summary_html(loaded.name, summary))
    console.print(f"graded {progress.done - progress.skipped} submission(s)"
                  f"{f', kept {progress.skipped} from before' if progress.skipped else ''}; "
                  f"wrote {grades}, {out / 'summary.html'} and one results.json per student")
    return EXIT_OK


def cmd_check(args: argparse.Namespace, console: Console) -> int:
    loaded = load_suite(args.exercise)
    report = grade(loaded, exercise_dir(loaded.name), public_only=True, sandbox=args.sandbox)
    print_report(report, console)
    return EXIT_OK


def cmd_run(args: argparse.Namespace, console: Console) -> int:
    import tempfile

    loaded = load_suite(args.exercise)
    suite = loaded.suite
    if f"{args.driver}.py" not in suite.given:
        drivers = ", ".join(name.removesuffix(".py") for name in suite.given) or "none"
        console.print(f"[red]error:[/] {loaded.path}: '{args.driver}' is not a given file of "
                      f"{suite.exercise} (given: {drivers})")
        return EXIT_USAGE
    rest = list(args.args)
    while rest[:1] and rest[0].startswith("--submission"):
        flag = rest.pop(0)
        if "=" in flag:
            args.submission = Path(flag.split("=", 1)[1])
        elif rest:
            args.submission = Path(rest.pop(0))
        else:
            console.print("[red]error:[/] --submission needs a folder")
            return EXIT_USAGE
    args.args = rest
    source = args.submission or reference_dir(suite.exercise)
    with tempfile.TemporaryDirectory(prefix="grader-run-") as scratch:
        code = Path(scratch) / "code"
        prepared = prepare(source, suite.exercise, suite.submit, suite.given, code,
                           overlay=None)
        if prepared.missing:
            console.print(f"[red]error:[/] {source} lacks {', '.join(prepared.missing)}")
            return EXIT_BAD_INPUT
        driver_args = [a for a in args.args if a != "--"] if args.args[:1] == ["--"] else args.args
        bootstrap = ("import runpy, sys; sys.path.insert(0, sys.argv[1]); "
                     "sys.argv = sys.argv[2:]; runpy.run_path(sys.argv[0], run_name='__main__')")
        command = [sys.executable, "-c", bootstrap, str(code), str(code / f"{args.driver}.py"),
                   *driver_args]
        return subprocess.call(command, cwd=os.getcwd())


def cmd_list(args: argparse.Namespace, console: Console) -> int:
    from rich.table import Table

    table = Table("exercise", "title", "tests", "points", "drivers")
    for path in sorted(suites_dir().glob("*.yaml")):
        try:
            loaded = load_suite(str(path))
        except SuiteError as error:
            console.print(f"[red]error:[/] {error}")
            continue
        suite = loaded.suite
        table.add_row(suite.exercise, suite.title, str(len(suite.tests)), f"{suite.total_points:g}",
                      ", ".join(loaded.runnable_drivers) or "-")
    console.print(table)
    return EXIT_OK


def cmd_record(args: argparse.Namespace, console: Console) -> int:
    loaded = load_suite(args.exercise)
    recording = record(loaded, names=args.tests, progress=console.print)
    for failure in recording.failures:
        console.print(f"[red]not recorded:[/] {failure}")
    console.print(f"{len(recording.written)} file(s) written under {loaded.fixtures}; "
                  f"review them with `git diff {loaded.fixtures}`")
    return EXIT_CHECK_FAILED if recording.failures else EXIT_OK


def cmd_verify(args: argparse.Namespace, console: Console) -> int:
    loaded = load_suite(args.exercise)
    outcome = verify(loaded, progress=console.print, sandbox=args.sandbox)
    for problem in outcome.problems:
        console.print(f"[red]problem:[/] {problem}", soft_wrap=True)
    if outcome.ok:
        console.print(f"[green]{loaded.name}: suite verified[/] ({'; '.join(outcome.checks)})")
        return EXIT_OK
    return EXIT_CHECK_FAILED


def cmd_handout(args: argparse.Namespace, console: Console) -> int:
    from grader.handout import make_handout

    loaded = load_suite(args.exercise)
    files = make_handout(loaded, args.directory)
    console.print(f"wrote {len(files)} file(s) to {args.directory} (visible tests only)")
    return EXIT_OK


COMMANDS = {"grade": cmd_grade, "check": cmd_check, "run": cmd_run, "list": cmd_list,
            "record": cmd_record, "verify": cmd_verify, "handout": cmd_handout}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    console = Console(stderr=False, soft_wrap=True)
    errors = Console(stderr=True, soft_wrap=True)
    try:
        return COMMANDS[args.command](args, console)
    except (SuiteError, SubmissionError, RecordError, FileNotFoundError, FileExistsError,
            SandboxUnavailable, KeyError) as error:
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        errors.print(f"[red]error:[/] {message}", highlight=False)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        errors.print("[yellow]interrupted[/]")
        return 130


if __name__ == "__main__":
    sys.exit(main())
