"""`grader record`: run the reference on every test and store what it did as the expectations."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from grader.commands import EXIT_CHECK_FAILED, EXIT_OK
from grader.judge.grade import Grader, prepared_submission, select_tests
from grader.suite import expectations
from grader.suite.load import LoadedSuite, load_suite


class RecordError(Exception):
    """The reference itself fails a test, so nothing can be recorded for it."""


@dataclass
class Recording:
    written: list[Path] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def record(loaded: LoadedSuite, names: list[str] | None = None,
           progress: Callable[[str], None] | None = None) -> Recording:
    recording = Recording()
    tests = select_tests(loaded, public_only=False, names=names)
    with prepared_submission(loaded, loaded.exercise.reference) as (prepared, scratch):
        if prepared.missing:
            raise RecordError(f"reference/{loaded.name} lacks {', '.join(prepared.missing)}")
        with Grader(loaded, prepared, scratch, record=True, sandbox="auto") as grader:
            for test in tests:
                judgement, outcome, recorded = grader.run_test(test)
                bad_steps = [step for step in (recorded if isinstance(recorded, list) else [])
                             if step.get("ni") or step.get("import") or "unplain" in step]
                if recorded is None or bad_steps:
                    detail = judgement.message if recorded is None else (
                        bad_steps[0].get("message") or bad_steps[0].get("unplain", ""))
                    verdict = judgement.verdict.value if recorded is None else "an error"
                    recording.failures.append(f"{test.name}: the reference gets {verdict}: {detail}")
                    continue
                recording.written += expectations.write(loaded, test, recorded)
                if progress is not None and outcome is not None:
                    progress(f"{test.name}: recorded ({outcome.cpu_s:.2f} s CPU, "
                             f"{outcome.peak_mb:.1f} MB)")
    return recording


def run(args: argparse.Namespace, console: Console) -> int:
    loaded = load_suite(args.exercise)
    recording = record(loaded, names=args.tests, progress=console.print)
    for failure in recording.failures:
        console.print(f"[red]not recorded:[/] {failure}")
    console.print(f"{len(recording.written)} file(s) written under {loaded.fixtures}; "
                  f"review them with `git diff {loaded.fixtures}`")
    return EXIT_CHECK_FAILED if recording.failures else EXIT_OK
