"""The `grader` command line: it only declares the options and calls the command, the function
`main(*, ...)` of a module of `grader.commands`, imported when it runs (so `grader --help` or
`grader list` loads no fork server, and nothing of YAML or pydantic it does not use)."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import signal
import sys
import threading
import traceback
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from grader.commands import EXIT_BAD_INPUT, EXIT_GRADER_FAILED, EXIT_USAGE
from grader.diagnostics import Diagnostics, Refused
from grader.errors import UsageError, UserError
from grader.sandboxes import SANDBOX_CHOICES

SANDBOX_HELP = (
    "how tests are confined: bwrap (bubblewrap hides the file system), container "
    "(for hosts without namespaces: permissions hide it), process (the same per-test "
    "boundary, the file system visible), auto (bwrap, else container, else process "
    "for visible tests only)"
)


def _grading_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--public", action="store_true", help="only the visible tests")
    command.add_argument(
        "--sandbox",
        choices=SANDBOX_CHOICES,
        help=SANDBOX_HELP + " (default: $GRADER_SANDBOX, the suite's, bwrap)",
    )


def _batch_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "-j", "--jobs", type=int, default=None, help="submissions graded at once (default: all cores)"
    )
    command.add_argument("--out", type=Path, help="where batch results go (default: ./out)")
    command.add_argument(
        "--resume",
        action="store_true",
        help="regrade only the submissions whose inputs changed since their last grading in --out",
    )
    command.add_argument(
        "--roster",
        type=Path,
        metavar="FILE",
        help="CSV with a 'submission' column (folder or .zip name); its other "
        "columns go in front of grades.csv",
    )
    _executor_options(command)


def _executor_options(command: argparse.ArgumentParser) -> None:
    """Where the work runs: a batch's gradings, a tournament's games."""
    command.add_argument(
        "--executor",
        choices=["local", "dask"],
        help="where the work runs (a batch's gradings, a tournament's games): this machine's "
        "process pool (local, the default) or a Dask cluster (dask)",
    )
    command.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="with --executor dask: a running Dask scheduler (e.g. "
        "tcp://host:8786); default: a LocalCluster of -j workers here",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="grader", description="Grade game-tree search exercises.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    grade_cmd = commands.add_parser("grade", help="grade one submission (a folder or a .zip)")
    grade_cmd.add_argument("exercise", help="exercise name (e.g. bitgrid) or a suite file")
    grade_cmd.add_argument("submission", type=Path, help="folder or .zip with the student's files")
    grade_cmd.add_argument("--results", type=Path, help="write Gradescope's results.json here")
    grade_cmd.add_argument("--junit", type=Path, help="write JUnit XML here")
    grade_cmd.add_argument(
        "--test", action="append", dest="tests", metavar="NAME", help="only this test (repeatable)"
    )
    _grading_options(grade_cmd)
    grade_cmd.add_argument(
        "--batch",
        action="store_true",
        help="SUBMISSION is a folder of submissions: the same as `grader batch "
        "EXERCISE SUBMISSION` with the options below",
    )
    _batch_options(grade_cmd)

    batch_cmd = commands.add_parser("batch", help="grade every submission of a class folder")
    batch_cmd.add_argument("exercise", help="exercise name (e.g. bitgrid) or a suite file")
    batch_cmd.add_argument(
        "folder", type=Path, metavar="CLASS", help="folder of submissions (sub-folders or .zip files)"
    )
    _grading_options(batch_cmd)
    _batch_options(batch_cmd)

    tournament_cmd = commands.add_parser(
        "tournament", help="every pair of a class's engines plays games; standings, crosstable, records"
    )
    tournament_cmd.add_argument("exercise", help="exercise name (e.g. ultimate) or a suite file")
    tournament_cmd.add_argument(
        "folder", type=Path, metavar="CLASS", help="folder of submissions (sub-folders or .zip files)"
    )
    tournament_cmd.add_argument(
        "-j", "--jobs", type=int, default=None, help="games played at once (default: all cores)"
    )
    tournament_cmd.add_argument(
        "--games",
        type=int,
        default=2,
        metavar="K",
        help="games per pair of engines, colours alternating (default 2)",
    )
    tournament_cmd.add_argument("--out", type=Path, help="where the results go (default: ./tournament-out)")
    tournament_cmd.add_argument(
        "--sandbox",
        choices=SANDBOX_CHOICES,
        help=SANDBOX_HELP + " (default: $GRADER_SANDBOX, the suite's, bwrap)",
    )
    _executor_options(tournament_cmd)

    check_cmd = commands.add_parser(
        "check",
        help="grade your working copy with the visible tests",
        epilog="The exercise's statement, question by question: grader statement EXERCISE.",
    )
    check_cmd.add_argument("exercise", help="the exercise's name, e.g. bitgrid (grader list names them)")
    check_cmd.add_argument(
        "--sandbox",
        choices=SANDBOX_CHOICES,
        help=SANDBOX_HELP + " (default: $GRADER_SANDBOX, the suite's, else "
        "process: your own code on your machine)",
    )

    run_cmd = commands.add_parser("run", help="run a driver of an exercise interactively")
    run_cmd.add_argument("exercise")
    run_cmd.add_argument("driver")
    run_cmd.add_argument(
        "--submission",
        type=Path,
        help="folder or .zip with a student's files, run confined in bubblewrap "
        "(default: the reference; in a handout, your working copy "
        "exercises/EXERCISE, run as python would)",
    )
    run_cmd.add_argument(
        "--unconfined",
        action="store_true",
        help="run the --submission with your own privileges, files and "
        "environment, outside the sandbox (only code you trust)",
    )
    run_cmd.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the driver")

    statement_cmd = commands.add_parser(
        "statement", help="the exercise's statement: its task, question by question"
    )
    statement_cmd.add_argument("exercise")
    statement_cmd.add_argument(
        "--html", action="store_true", help="print it as a sanitised HTML page instead"
    )

    new_cmd = commands.add_parser("new", help="write a new exercise's skeleton, which verify passes as it is")
    new_cmd.add_argument("exercise", help="its name, also its module's (e.g. connect_four)")
    new_cmd.add_argument("--title", help="its title (default: from the name)")
    commands.add_parser("list", help="the exercises, their drivers and points")
    commands.add_parser("doctor", help="what this host supports for the sandbox, level by level")

    record_cmd = commands.add_parser("record", help="record expectations from the reference")
    record_cmd.add_argument("exercise")
    record_cmd.add_argument("--test", action="append", dest="tests", metavar="NAME")

    verify_cmd = commands.add_parser("verify", help="check a suite: reference, stubs, mutants")
    verify_cmd.add_argument("exercise")
    verify_cmd.add_argument(
        "--sandbox",
        choices=SANDBOX_CHOICES,
        help=SANDBOX_HELP + " (default: $GRADER_SANDBOX, the suite's, bwrap)",
    )

    gradebook_cmd = commands.add_parser("gradebook", help="what a batch's gradebook holds")
    gradebook_cmd.add_argument("out", type=Path, metavar="OUT", help="a batch's --out folder")
    gradebook_cmd.add_argument(
        "--changes",
        action="store_true",
        help="whose score changed between their last two gradings, and which tests caused it",
    )
    gradebook_cmd.add_argument(
        "--format",
        dest="lms",
        choices=["canvas", "moodle"],
        help="a CSV a learning management system imports as it is: each "
        "student's latest score in one assignment column",
    )
    gradebook_cmd.add_argument(
        "--assignment",
        metavar="NAME",
        help="with --format: the LMS's assignment column (default: the exercise)",
    )

    handout_cmd = commands.add_parser("handout", help="write what students receive into DIR")
    handout_cmd.add_argument("exercise")
    handout_cmd.add_argument("directory", type=Path)

    gradescope_cmd = commands.add_parser("gradescope", help="write a Gradescope autograder zip")
    gradescope_cmd.add_argument("exercise")
    gradescope_cmd.add_argument("zip", type=Path, help="the autograder zip to write")
    _service_commands(commands)
    return parser


def _service_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`serve`, `tokens` and `submit` (issue 22): the course's submission service."""
    serve = commands.add_parser("serve", help="run a course's submission service")
    serve.add_argument("course", type=Path, help="the course file (YAML)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("-w", "--workers", type=int, default=2, help="grading processes")
    serve.add_argument(
        "--sandbox",
        choices=SANDBOX_CHOICES,
        help=SANDBOX_HELP + " (default: $GRADER_SANDBOX, the suite's, bwrap)",
    )
    serve.add_argument("--executor", choices=["local", "dask"], default="local")
    serve.add_argument("--scheduler", metavar="ADDRESS")
    tokens = commands.add_parser("tokens", help="print login,token lines for a course")
    tokens.add_argument("course", type=Path)
    tokens.add_argument("logins", nargs="*", metavar="LOGIN")
    backup = commands.add_parser("backup", help="back a course's service up, while it runs")
    backup.add_argument("course", type=Path, help="the course file (YAML)")
    backup.add_argument("file", type=Path, metavar="FILE", help="the backup to write (.tar.gz)")
    restore = commands.add_parser("restore", help="restore a course's backup into a new folder")
    restore.add_argument("file", type=Path, metavar="FILE", help="a backup written by grader backup")
    restore.add_argument("folder", type=Path, metavar="DIR", help="a new or empty folder")
    submit = commands.add_parser("submit", help="submit files to a course's service")
    submit.add_argument("url")
    submit.add_argument("assignment")
    submit.add_argument("files", nargs="+", type=Path, metavar="FILE")
    submit.add_argument(
        "--token",
        help="default: $GRADER_TOKEN, the safe way: a command line "
        "(--token) is visible to other users of the machine (ps)",
    )


COMMANDS = (
    "grade",
    "batch",
    "tournament",
    "check",
    "statement",
    "run",
    "new",
    "list",
    "doctor",
    "record",
    "verify",
    "gradebook",
    "handout",
    "gradescope",
    "serve",
    "tokens",
    "backup",
    "restore",
    "submit",
)
SINGLE_ONLY = {"results": "--results", "junit": "--junit", "tests": "--test"}
BATCH_ONLY = {
    "jobs": "--jobs",
    "out": "--out",
    "roster": "--roster",
    "executor": "--executor",
    "scheduler": "--scheduler",
    "resume": "--resume",
}


def command_call(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """The command's module and its keyword arguments, as the command line gave them.

    `grader grade EXERCISE CLASS --batch ...` (the spelling scripts use) is `grader batch`; its
    options that belong to one spelling only are refused with the other.
    """
    options = dict(vars(args))
    name = options.pop("command")
    if name != "grade":
        return name, options
    if options.pop("batch"):
        for key, flag in SINGLE_ONLY.items():
            if options.pop(key):
                raise UsageError(
                    f"{flag} does not go with --batch: a batch grades every test and "
                    f"writes results.json and junit.xml for every student under --out"
                )
        options["folder"] = options.pop("submission")
        return "batch", options
    for key, flag in BATCH_ONLY.items():
        if options.pop(key) not in (None, False):
            raise UsageError(f"{flag} only goes with --batch (or `grader batch`)")
    return name, options


class Terminated(KeyboardInterrupt):
    """SIGTERM: unwinds like Ctrl-C (every `except KeyboardInterrupt` cleans up the same way)."""


EXIT_INTERRUPTED = 128 + signal.SIGINT
EXIT_TERMINATED = 128 + signal.SIGTERM


def _stop(signum: int, frame: object) -> None:
    """The first SIGINT or SIGTERM unwinds the command (its `with` and `finally` blocks stop
    pools, fork servers, tests and remove scratch folders); later ones are ignored, so that they
    cannot cut that cleanup short (it is bounded: seconds)."""
    for each in (signal.SIGINT, signal.SIGTERM):
        signal.signal(each, signal.SIG_IGN)
    raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


@contextlib.contextmanager
def _stopping_cleanly() -> Iterator[None]:
    """SIGINT and SIGTERM handled by `_stop` while a command runs (in the main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {each: signal.signal(each, _stop) for each in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for each, handler in before.items():
            signal.signal(each, handler)


def _interrupt_behind(error: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C or SIGTERM during whose handling `error` was raised, if any."""
    seen: BaseException | None = error.__context__
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return seen
        seen = seen.__context__
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit status (docs/commands.md, "Exit status"): 0 done, 1 the grader's fault
    (a bug, printed with its traceback, or a JE), 2 a usage error, 3 bad input, 4 `verify` or
    `record` found a problem, 130 after Ctrl-C, 143 after SIGTERM."""
    args = build_parser().parse_args(argv)
    problems = Diagnostics()
    try:
        name, options = command_call(args)
        with _stopping_cleanly():
            command = importlib.import_module(f"grader.commands.{name}")
            code: int = command.main(**options)
        return code
    except Refused as refused:
        refused.found.print()
        print(refused, file=sys.stderr)
        return EXIT_BAD_INPUT
    except UserError as error:
        problems.error(str(error))
        problems.print()
        return EXIT_USAGE if isinstance(error, UsageError) else EXIT_BAD_INPUT
    except Terminated:
        print("terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as error:
        stopped = _interrupt_behind(error)
        if stopped is not None:  # cleanup failed while the interrupt unwound: still the interrupt
            where = traceback.extract_tb(error.__traceback__)[-1:]
            at = f" at {where[0].filename}:{where[0].lineno}" if where else ""
            print(
                f"{'terminated' if isinstance(stopped, Terminated) else 'interrupted'} (while "
                f"stopping, the grader's own {type(error).__name__}{at}: {error})",
                file=sys.stderr,
            )
            return EXIT_TERMINATED if isinstance(stopped, Terminated) else EXIT_INTERRUPTED
        traceback.print_exc()
        print(
            f"grader bug: the traceback above is the grader's fault, not the input's (exit "
            f"{EXIT_GRADER_FAILED})",
            file=sys.stderr,
        )
        return EXIT_GRADER_FAILED


if __name__ == "__main__":
    sys.exit(main())
