"""The `grader` command line: it only declares the options; each command is a module of
`grader.commands`, imported when it runs (so `grader --help` or `grader list` loads no fork
server, and nothing of rich, YAML or pydantic it does not use)."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from grader.commands import EXIT_BAD_INPUT
from grader.errors import UserError
from grader.sandboxes import SANDBOX_CHOICES


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
    grade_cmd.add_argument("--sandbox", choices=SANDBOX_CHOICES,
                           help="confine tests with bubblewrap, process limits only, or bubblewrap "
                                "when available (default: $GRADER_SANDBOX, the suite's, bwrap)")
    grade_cmd.add_argument("--resume", action="store_true",
                           help="regrade only the submissions whose inputs changed since their "
                                "last grading in --out")
    grade_cmd.add_argument("--roster", type=Path, metavar="FILE",
                           help="CSV with a 'submission' column (folder or .zip name); its other "
                                "columns go in front of grades.csv")
    grade_cmd.add_argument("--executor", choices=["local", "dask"],
                           help="where a batch is graded: this machine's process pool (local, "
                                "the default) or a Dask cluster (dask)")
    grade_cmd.add_argument("--scheduler", metavar="ADDRESS",
                           help="with --executor dask: a running Dask scheduler (e.g. "
                                "tcp://host:8786); default: a LocalCluster of -j workers here")

    check_cmd = commands.add_parser("check", help="grade your working copy with the visible tests")
    check_cmd.add_argument("exercise")
    check_cmd.add_argument("--sandbox", choices=SANDBOX_CHOICES,
                           help="default: $GRADER_SANDBOX, the suite's, else process limits only "
                                "(your own code on your machine)")

    run_cmd = commands.add_parser("run", help="run a driver of an exercise interactively")
    run_cmd.add_argument("exercise")
    run_cmd.add_argument("driver")
    run_cmd.add_argument("--submission", type=Path,
                         help="folder or .zip with a student's files, run confined in bubblewrap "
                              "(default: the reference; in a handout, your working copy "
                              "exercises/EXERCISE, run as python would)")
    run_cmd.add_argument("--unconfined", action="store_true",
                         help="run the --submission with your own privileges, files and "
                              "environment, outside the sandbox (only code you trust)")
    run_cmd.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the driver")

    commands.add_parser("list", help="the exercises, their drivers and points")
    commands.add_parser("doctor", help="what this host supports for the sandbox, level by level")

    record_cmd = commands.add_parser("record", help="record expectations from the reference")
    record_cmd.add_argument("exercise")
    record_cmd.add_argument("--test", action="append", dest="tests", metavar="NAME")

    verify_cmd = commands.add_parser("verify", help="check a suite: reference, stubs, mutants")
    verify_cmd.add_argument("exercise")
    verify_cmd.add_argument("--sandbox", choices=SANDBOX_CHOICES,
                            help="default: $GRADER_SANDBOX, the suite's, bwrap")

    gradebook_cmd = commands.add_parser("gradebook", help="what a batch's gradebook holds")
    gradebook_cmd.add_argument("out", type=Path, metavar="OUT", help="a batch's --out folder")
    gradebook_cmd.add_argument("--changes", action="store_true",
                               help="whose score changed between their last two gradings, and "
                                    "which tests caused it")

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
    serve.add_argument("--sandbox", choices=SANDBOX_CHOICES)
    serve.add_argument("--executor", choices=["local", "dask"], default="local")
    serve.add_argument("--scheduler", metavar="ADDRESS")
    tokens = commands.add_parser("tokens", help="print login,token lines for a course")
    tokens.add_argument("course", type=Path)
    tokens.add_argument("logins", nargs="*", metavar="LOGIN")
    submit = commands.add_parser("submit", help="submit files to a course's service")
    submit.add_argument("url")
    submit.add_argument("assignment")
    submit.add_argument("files", nargs="+", type=Path, metavar="FILE")
    submit.add_argument("--token", help="default: $GRADER_TOKEN")


COMMANDS = ("grade", "check", "run", "list", "doctor", "record", "verify", "gradebook", "handout",
            "gradescope", "serve", "tokens", "submit")


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


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from rich.console import Console  # after parsing: `--help` and usage errors print without it
    from rich.markup import escape

    console = Console(stderr=False, soft_wrap=True)
    errors = Console(stderr=True, soft_wrap=True)
    try:
        with _stopping_cleanly():
            command = importlib.import_module(f"grader.commands.{args.command}")
            code: int = command.run(args, console)
        return code
    except (UserError, FileNotFoundError, FileExistsError, KeyError) as error:
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        errors.print(f"[red]error:[/] {escape(str(message))}", highlight=False)
        return EXIT_BAD_INPUT
    except Terminated:
        errors.print("[yellow]terminated[/]")
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        errors.print("[yellow]interrupted[/]")
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
