"""The one exit-status rule (docs/commands.md, "Exit status"): 0 done, 1 the grader's fault with its
traceback, 2 a usage error, 3 the user's input is wrong (one line, no traceback), and every
command's options reach its typed `main` unchanged."""

from __future__ import annotations

import argparse
import importlib
import inspect
from pathlib import Path

import pytest

from grader import cli
from grader.commands import EXIT_BAD_INPUT, EXIT_GRADER_FAILED, EXIT_USAGE
from grader.commands import list as listing
from grader.errors import UsageError, UserError


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


@pytest.mark.parametrize(
    "raised",
    [
        KeyError("a bug's key"),
        FileNotFoundError("a bug's file"),
        FileExistsError("a bug's file"),
        RuntimeError("a bug"),
    ],
)
def test_a_grader_bug_is_exit_1_with_its_traceback(
    raised: Exception, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(**options: object) -> int:
        raise raised

    monkeypatch.setattr(listing, "main", broken)
    assert cli.main(["list"]) == EXIT_GRADER_FAILED
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and f"{type(raised).__name__}" in err
    assert err.rstrip().endswith(
        "grader bug: the traceback above is the grader's fault, not the input's (exit 1)"
    )


def test_a_cleanup_that_fails_during_ctrl_c_is_still_130_and_names_its_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted_then_broken(**options: object) -> int:
        try:
            raise KeyboardInterrupt
        finally:
            raise RuntimeError("cannot rollback")

    monkeypatch.setattr(listing, "main", interrupted_then_broken)
    assert cli.main(["list"]) == cli.EXIT_INTERRUPTED
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.startswith("interrupted (while stopping, the grader's own RuntimeError at ")
    assert err.rstrip().endswith(": cannot rollback)")


@pytest.mark.parametrize(
    ("raised", "status"),
    [
        (UserError("suite.yaml:3: tests: a list"), EXIT_BAD_INPUT),
        (UsageError("--out only goes with --batch"), EXIT_USAGE),
    ],
)
def test_the_users_mistake_is_one_line_on_stderr(
    raised: UserError, status: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuses(**options: object) -> int:
        raise raised

    monkeypatch.setattr(listing, "main", refuses)
    assert cli.main(["list"]) == status
    printed = capsys.readouterr()
    assert printed.err == f"error: {raised}\n" and printed.out == ""


def test_an_unknown_test_name_is_bad_input_not_a_bug(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        cli.main(["grade", "bitgrid", "samples/bitgrid/alice", "--test", "nosuch", "--sandbox", "process"])
        == EXIT_BAD_INPUT
    )
    err = capsys.readouterr().err
    assert err.startswith("error: no test named nosuch in ") and "Traceback" not in err


def test_a_handout_into_a_full_folder_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "kept.txt").write_text("mine")
    assert cli.main(["handout", "bitgrid", str(tmp_path)]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == (f"error: {tmp_path}: the handout folder exists and is not empty\n")


def test_argparse_usage_errors_are_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["grade", "bitgrid"])
    assert stopped.value.code == EXIT_USAGE
    assert "usage: grader grade" in capsys.readouterr().err


@pytest.mark.parametrize("name", cli.COMMANDS)
def test_each_command_is_a_typed_function_of_its_options(name: str) -> None:
    """The CLI only declares options: each one is a keyword-only parameter of the command's
    `main` (the `grade --batch` spelling aside, which the CLI turns into `batch`)."""
    parser = _subparsers(cli.build_parser())[name]
    dests = {action.dest for action in parser._actions if action.dest != "help"}
    if name == "grade":
        dests -= {"batch", *cli.BATCH_ONLY}
    command = importlib.import_module(f"grader.commands.{name}").main
    parameters = inspect.signature(command).parameters
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters.values()), name
    assert set(parameters) - {"console"} == dests, name
    assert inspect.getdoc(command), f"grader.commands.{name}.main has no docstring"
