"""Running a suite's tests on one prepared submission: one `TestRun` per test.

A run observes; it compares nothing unless asked (`Grader.grade_test`). Grading judges what a run
observed against the recorded expectations; `grader record` stores it as the expectations;
calibration keeps only its times. Limits come resolved (`TestLimits`), never worked out here.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeAlias, TypedDict

from grader import owners
from grader.inert import inert_text
from grader.judge.checkers import run_checker
from grader.judge.games import Asked
from grader.judge.gametest import play_matches
from grader.judge.helpers import helper_code, reference_available
from grader.judge.judgement import (
    Judgement,
    judge_exception,
    judge_process,
    judge_steps,
    judge_transcript,
    running_step,
    step_label,
    while_running,
)
from grader.judge.live import GameRun, play
from grader.judge.verdicts import Verdict
from grader.run import received
from grader.run.box.protocol import HelperCode, StepOutcome
from grader.run.compiling import COMPILE_MEMORY_FLOOR_MB, CompileLimits
from grader.run.runner import ForkServer
from grader.run.submission import Prepared, prepare
from grader.run.watchdog import RunOutcome
from grader.sandboxes import Confinement
from grader.suite import expectations
from grader.suite.limits import Limits
from grader.suite.load import LoadedSuite
from grader.suite.schema import Step, TestSpec, Transcript


@dataclass(frozen=True)
class TestLimits:
    """A test's limits as numbers, and how relative ones were calibrated (empty if none were)."""

    limits: Limits
    note: str = ""
    problem: str | None = None  # why they could not be resolved (the test is then JE)


class ProgramRun(TypedDict):
    """What a transcript test's program did (as `grader record` stores it)."""

    exit: int
    stdout: bytes


Observed: TypeAlias = list[StepOutcome] | ProgramRun | GameRun


@dataclass(frozen=True)
class TestRun:
    """One run of a test: how its process went, and what it did or why it did not finish."""

    outcome: RunOutcome | None  # None: it never started (the submission does not compile)
    observed: Observed | None = None  # what it did, when it ran to the end
    stopped: Judgement | None = None  # else the verdict that ended it (CE, a limit, a crash)
    played: Judgement | None = None  # an interactive test's verdict when AC (its game record)


def _scratch_root() -> Path:
    """Where submissions are laid out ($GRADER_SCRATCH, else the system's temporary folder),
    once what graders that died left there is gone."""
    root = owners.scratch_root()
    owners.sweep_once(root)
    return root


def compile_limits(loaded: LoadedSuite) -> CompileLimits:
    """A submission compiles within the most memory any of its suite's tests may use (at least
    `COMPILE_MEMORY_FLOOR_MB`)."""
    suite = loaded.suite
    memory = max(suite.limits.merged(test.limits).memory_mb for test in suite.tests)
    return CompileLimits(memory_mb=max(memory, COMPILE_MEMORY_FLOOR_MB))


@contextmanager
def prepared_submission(
    loaded: LoadedSuite, source: Path, overlay: Path | None = None
) -> Iterator[tuple[Prepared, Path]]:
    """The submission laid out in a fresh scratch folder that names this process as its owner
    (removed on the way out; if this process is killed, by the next grader that starts)."""
    scratch = Path(tempfile.mkdtemp(prefix=owners.scratch_prefix(), dir=_scratch_root()))
    try:
        suite = loaded.suite
        prepared = prepare(
            source,
            loaded.exercise,
            suite.submit,
            suite.given,
            scratch / "code",
            overlay=overlay,
            compile_limits=compile_limits(loaded),
        )
        yield prepared, scratch
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def program_run(spec: Transcript) -> str:
    """A transcript test's run as a command line: the driver, its arguments, its stdin file.

    >>> program_run(Transcript(driver="main", args=["--size", "3"], stdin="input2.txt",
    ...                        expected="out.txt"))
    'main --size 3 < input2.txt'
    >>> program_run(Transcript(driver="play", args=[{"fixture": "b.txt"}], expected="o.txt"))
    'play b.txt (no input)'
    """
    words = [spec.driver, *(arg["fixture"] if isinstance(arg, dict) else arg for arg in spec.args)]
    return " ".join(words) + (f" < {spec.stdin}" if spec.stdin else " (no input)")


class Grader:
    """Runs the tests of one suite on one submission, under limits resolved beforehand."""

    def __init__(
        self,
        loaded: LoadedSuite,
        prepared: Prepared,
        scratch: Path,
        limits: Mapping[str, TestLimits],
        sandbox: Confinement,
    ) -> None:
        self.loaded = loaded
        self.suite = loaded.suite
        self.prepared = prepared
        self.scratch = scratch
        self.limits = limits
        self.inputs = scratch / "inputs"
        self.inputs.mkdir(mode=0o700, exist_ok=True)  # tests pass through, never list: run_test
        self.test_inputs = self.inputs
        self.sandbox = sandbox
        self.server = ForkServer(
            prepared.code_dir, scratch, sandbox, inputs=self.inputs, env=loaded.suite.env
        )
        self.with_reference_helpers = reference_available(loaded)

    def __enter__(self) -> Grader:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()

    def shown(self, text: str) -> str:
        """`text` as students may see it: inert, and without the grader's own paths."""
        for folder in (
            self.prepared.code_dir,
            self.test_inputs,
            self.inputs,
            self.scratch,
            self.loaded.exercise.root,
        ):
            text = text.replace(f"{folder}{os.sep}", "").replace(str(folder), ".")
        return inert_text(text)

    def input_file(self, name: str) -> Path:
        """A copy of fixtures/NAME/<name> that the test process may read."""
        origin = self.loaded.fixtures / name
        if not origin.is_file():
            raise FileNotFoundError(f"{origin}: input fixture named in the suite does not exist")
        copy = self.test_inputs / name
        if not copy.exists():
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(origin, copy)
            self.server.share_inputs(self.test_inputs)
        return copy

    def run_test(self, test: TestSpec, swapped: Sequence[str] = ()) -> TestRun:
        """Run one test and say what it did; nothing is compared.

        It runs the student's code as submitted, but for the functions and classes named in
        `swapped` (module.name), which are the reference's (`grader.judge.blame` picks them).
        """
        limits = self.limits[test.name].limits
        if (cannot := self.unrunnable(limits)) is not None:
            return TestRun(None, stopped=cannot)
        helpers = helper_code(self.loaded, test, swapped) if swapped else []
        # Each test reads its input fixtures from a folder of its own with an unguessable name,
        # removed after it: no test reads another's inputs (a hidden test's, say, to print them
        # in a visible test's feedback), since the folder above cannot be listed.
        self.test_inputs = self.inputs / secrets.token_hex(16)
        self.test_inputs.mkdir(mode=0o700)
        self.server.share_inputs(self.test_inputs)
        try:
            if test.transcript is not None:
                return self._run_transcript(test, limits, helpers)
            if test.interactive is not None:
                judgement, outcome, game = play(self.server, self.loaded, test.interactive, limits, helpers)
                if judgement.verdict is Verdict.AC:
                    return TestRun(outcome, observed=game, played=judgement)
                return TestRun(outcome, stopped=judgement)
            if test.game is not None:
                return self._run_games(test, limits, helpers)
            return self._run_calls(test, limits, helpers)
        finally:
            shutil.rmtree(self.test_inputs, ignore_errors=True)

    def unrunnable(self, limits: Limits) -> Judgement | None:
        """Why no test of this submission can run (CE: missing files, syntax; JE: the compiler
        or the disk failed the grader), or None."""
        if self.prepared.missing:
            missing = "missing file(s): " + ", ".join(self.prepared.missing)
            return Judgement(Verdict.CE, missing, cause=missing)
        if self.prepared.compile_problem is not None:
            return Judgement(Verdict.JE, self.prepared.compile_problem)
        if self.prepared.syntax_errors:
            name, error = next(iter(self.prepared.syntax_errors.items()))
            return Judgement(Verdict.CE, f"{name} does not compile", error, cause=f"{name} does not compile")
        return Judgement(Verdict.JE, full) if (full := self.server.disk_problem(limits)) is not None else None

    def ask(self, steps: list[Step], limits: Limits, helpers: list[HelperCode] | None = None) -> Asked:
        """One move asked of this submission's engine: `steps` in a fresh test process, the
        answer of its compared step (the list of them if several; checked plain data), or the
        judgement that stopped it."""
        if (cannot := self.unrunnable(limits)) is not None:
            return Asked(stopped=cannot)
        outcome = self.server.run_calls([self._wire_step(step) for step in steps], limits, helpers)
        stopped = judge_process(outcome, limits)
        label = step_label(steps[-1]) if steps else ""
        if stopped is not None:
            return Asked(stopped=while_running(stopped, label), outcome=outcome)
        try:
            outcomes = received.step_outcomes(outcome.result)
        except received.Malformed as error:
            problem = f"the test process sent back a malformed result ({error})"
            return Asked(stopped=Judgement(Verdict.RTE, problem), outcome=outcome)
        if not outcomes:
            return Asked(stopped=Judgement(Verdict.RTE, f"{label}: no answer came back"), outcome=outcome)
        values, pending = [], list(outcomes)
        for step in steps:  # a step kept under a name leaves an outcome only when it failed
            if not pending or not (step.compared or pending[0].get("let_failed")):
                continue
            got = pending.pop(0)
            if "raises" in got:  # a failed `let` says where it raised, not which step it was
                where = "setting up the position" if got.get("let_failed") else step_label(step)
                return Asked(stopped=judge_exception(got, where), outcome=outcome)
            if "unplain" in got:
                problem = f"{step_label(step)} returned what is not plain data ({got['unplain']})"
                return Asked(stopped=Judgement(Verdict.WA, problem), outcome=outcome)
            values.append(got["value"])
        return Asked(answer=values[0] if len(values) == 1 else values, outcome=outcome)

    def grade_test(self, test: TestSpec, swapped: Sequence[str] = ()) -> tuple[Judgement, TestRun]:
        """Run one test (with the reference's `swapped` helpers) and judge it against its
        recorded expectations."""
        run = self.run_test(test, swapped)
        if run.stopped is not None:
            return run.stopped, run
        if run.played is not None:
            return run.played, run
        if test.game is not None:
            return Judgement(Verdict.AC), run
        if test.transcript is not None:
            assert isinstance(run.observed, dict) and run.outcome is not None
            exit_code = run.observed.get("exit", 0)
            assert isinstance(exit_code, int)
            expected_text, expected_exit = expectations.load_transcript(self.loaded, test)
            text = run.outcome.stdout.decode("utf-8", "replace")
            judged = judge_transcript(
                text,
                exit_code,
                expected_text,
                expected_exit,
                test.normalize or self.suite.normalize,
            )
            if judged.verdict is not Verdict.AC:
                judged = Judgement(
                    judged.verdict, f"{program_run(test.transcript)}: {judged.message}", judged.details
                )
            return judged, run
        assert isinstance(run.observed, list)
        expected = expectations.load_call(self.loaded, test)
        return judge_steps(
            expectations.steps_of(test, self.loaded),
            run.observed,
            expected,
            partial(run_checker, self.loaded),
        ), run

    def _run_calls(self, test: TestSpec, limits: Limits, helpers: list[HelperCode]) -> TestRun:
        steps = expectations.steps_of(test, self.loaded)
        outcome = self.server.run_calls([self._wire_step(step) for step in steps], limits, helpers)
        stopped = judge_process(outcome, limits)
        if stopped is not None:
            index = running_step(outcome.stderr)
            running = step_label(steps[index]) if index is not None and index < len(steps) else ""
            return TestRun(outcome, stopped=while_running(stopped, running))
        try:
            return TestRun(outcome, observed=received.step_outcomes(outcome.result))
        except received.Malformed as error:
            return TestRun(
                outcome,
                stopped=Judgement(Verdict.RTE, f"the test process sent back a malformed result ({error})"),
            )

    def _run_games(self, test: TestSpec, limits: Limits, helpers: list[HelperCode]) -> TestRun:
        played = play_matches(self.loaded, test, partial(self.ask, limits=limits, helpers=helpers))
        return TestRun(played.outcome, observed=[], stopped=played.failure)

    def _wire_step(self, step: Step) -> dict[str, Any]:
        if not step.reads_fixtures:
            return step.sent
        return {**step.sent, "args": [self._wire_arg(arg) for arg in step.args]}

    def _wire_arg(self, arg: Any) -> Any:
        if isinstance(arg, dict) and set(arg) == {"fixture"}:
            return {"$path": str(self.input_file(arg["fixture"])), "$name": arg["fixture"]}
        if isinstance(arg, list):
            return [self._wire_arg(item) for item in arg]
        return arg

    def _run_transcript(self, test: TestSpec, limits: Limits, helpers: list[HelperCode]) -> TestRun:
        spec = test.transcript
        assert spec is not None
        argv = [str(self.input_file(a["fixture"])) if isinstance(a, dict) else a for a in spec.args]
        stdin = self.input_file(spec.stdin) if spec.stdin else None
        outcome = self.server.run_driver(spec.driver, argv, stdin, limits, helpers)
        stopped = judge_process(outcome, limits)
        if stopped is not None:
            return TestRun(outcome, stopped=while_running(stopped, program_run(spec)))
        try:
            result = received.driver_outcome(outcome.result)
        except received.Malformed as malformed:
            return TestRun(
                outcome,
                stopped=Judgement(
                    Verdict.RTE, f"the test process sent back a malformed result ({malformed})"
                ),
            )
        if result["error"] is not None:
            return TestRun(outcome, stopped=judge_exception(result["error"], program_run(spec)))
        return TestRun(outcome, observed=ProgramRun(exit=result["exit"], stdout=outcome.stdout))
