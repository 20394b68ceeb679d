"""Grading one submission against a suite: run every test, judge it, collect the results."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.exercise import project_root
from grader.inert import inert_text
from grader.judge import calibration
from grader.judge.compare import matches
from grader.judge.transcripts import normalized_lines, readable_diff
from grader.judge.verdicts import TestResult, Usage, Verdict
from grader.run import received
from grader.run.runner import ForkServer, RunOutcome, ServerStartError
from grader.run.sandbox import resolve as resolve_sandbox
from grader.run.submission import Prepared, prepare
from grader.suite import expectations
from grader.suite.load import LoadedSuite
from grader.suite.schema import Limits, Step, TestSpec


@dataclass
class GradeReport:
    exercise: str
    submission: str
    results: list[TestResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    sandbox: str = ""
    missing: list[str] = field(default_factory=list)  # submitted files the submission lacks

    @property
    def score(self) -> float:
        return sum(result.points for result in self.results)

    @property
    def max_score(self) -> float:
        return sum(result.max_points for result in self.results)


@dataclass
class Judgement:
    verdict: Verdict
    message: str = ""
    details: str = ""


def _scratch_root() -> str | None:
    """Where submissions are laid out: $GRADER_SCRATCH, else the system's temporary folder."""
    return os.environ.get("GRADER_SCRATCH") or None


@contextmanager
def prepared_submission(loaded: LoadedSuite, source: Path,
                        overlay: Path | None = None) -> Iterator[tuple[Prepared, Path]]:
    scratch = Path(tempfile.mkdtemp(prefix="grader-", dir=_scratch_root()))
    scratch.chmod(0o755)
    try:
        suite = loaded.suite
        prepared = prepare(source, suite.exercise, suite.submit, suite.given, scratch / "code",
                           overlay=overlay)
        yield prepared, scratch
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def render_value(value: Any) -> str:
    if isinstance(value, dict) and len(value) >= 1 and any(k.startswith("$") for k in value):
        if "$call" in value:
            arguments = render_args(value.get("args", []), value.get("kwargs", {}))
            return f"{value['$call']}({arguments})"
        if "$tuple" in value:
            return "(" + ", ".join(map(render_value, value["$tuple"])) + ")"
        if "$path" in value:
            return repr(value.get("$name", value["$path"]))
        inner = next(iter(value.values()))
        return str(inner)
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def render_args(args: list[Any], kwargs: dict[str, Any]) -> str:
    parts = [render_value(arg) for arg in args]
    parts += [f"{key}={render_value(value)}" for key, value in kwargs.items()]
    return ", ".join(parts)


def step_label(step: Step) -> str:
    if step.label:
        return step.label
    if step.get is not None:
        return step.get
    return f"{step.call}({render_args(step.args, step.kwargs)})"


def _outcome_of_exception(got: dict[str, Any], label: str) -> Judgement:
    if got.get("ni"):
        return Judgement(Verdict.NI, f"{label}: not implemented yet (raises NotImplementedError)")
    if got.get("import"):
        hint = ""
        if got["raises"] == "AttributeError":
            hint = " (missing function or attribute: check the name and that it is defined at " \
                   "the top level of the module)"
        return Judgement(Verdict.CE, f"{label}: {got['raises']}: {got['message']}{hint}",
                         got.get("traceback", ""))
    return Judgement(Verdict.RTE, f"{label} raised {got['raises']}: {got['message']}",
                     got.get("traceback", ""))


def judge_steps(steps: list[Step], got_list: list[dict[str, Any]],
                expected_list: list[dict[str, Any]], first_step: int = 0) -> Judgement:
    """Compare the child's step outcomes with the recorded ones; the first failure decides."""
    for got in got_list:
        if got.get("let_failed") and not any(e.get("let_failed") for e in expected_list):
            return _outcome_of_exception(got, "preparing the test")
    compared_steps = [step for step in steps if step.compared]
    got_compared = [g for g in got_list if not g.get("let_failed")]
    expected_compared = [e for e in expected_list if not e.get("let_failed")]
    if len(expected_compared) != len(compared_steps) or len(got_compared) != len(compared_steps):
        return Judgement(Verdict.JE, "the recorded expectations do not match the suite's steps; "
                         "re-record them with `grader record`")
    for step, got, expected in zip(compared_steps, got_compared, expected_compared, strict=True):
        label = step_label(step)
        if "raises" in expected:
            if got.get("raises") == expected["raises"]:
                continue
            if "raises" in got:
                if got.get("ni") or got.get("import"):
                    return _outcome_of_exception(got, label)
                return Judgement(Verdict.WA, f"{label} raised {got['raises']}, expected it to "
                                 f"raise {expected['raises']}", got.get("traceback", ""))
            return Judgement(Verdict.WA, f"{label} returned {received.render(got.get('value'))}, "
                             f"expected it to raise {expected['raises']}")
        if "unplain" in got:
            return Judgement(Verdict.WA, f"{label} {got['unplain']}")
        if "raises" in got:
            return _outcome_of_exception(got, label)
        if not matches(step.compare, got["value"], expected["value"], step.tolerance):
            return Judgement(Verdict.WA, f"{label} returned {received.render(got['value'])}, "
                             f"expected {received.render(expected['value'])}")
    return Judgement(Verdict.AC)


def judge_process(outcome: RunOutcome, limits: Limits) -> Judgement | None:
    """A verdict from how the process ran (limits, crashes), or None when it ran to the end.

    Time is judged by CPU time against the stated limit; the wall clock only ends a test that
    stopped using CPU (asleep, blocked) and is a safety net far above the CPU limit.
    """
    if outcome.worker_failure:
        return Judgement(Verdict.JE, outcome.worker_failure)
    killed = outcome.killed_for
    output_cap = limits.output_kb * 1024
    if killed == "output" or (killed is None and (len(outcome.stdout) > output_cap
                                                   or outcome.exit_code == -signal.SIGXFSZ)):
        return Judgement(Verdict.OLE, f"wrote more than {limits.output_kb:g} kB of output")
    if killed == "memory" or (killed is None and outcome.peak_mb > limits.memory_mb):
        return Judgement(Verdict.MLE, f"used more than {limits.memory_mb:g} MB of memory "
                         f"(at least {max(outcome.peak_mb, limits.memory_mb):.1f} MB)")
    if killed == "cpu" or (killed is None and (outcome.cpu_s > limits.cpu_s
                                               or outcome.exit_code == -signal.SIGXCPU)):
        return Judgement(Verdict.TLE, f"used more than {limits.cpu_s:g} s of CPU time "
                         f"(stopped at {max(outcome.cpu_s, limits.cpu_s):.2f} s)")
    if killed == "wall":
        return Judgement(Verdict.TLE, f"still running after {limits.wall_s:g} s of wall-clock "
                         f"time, the safety limit, having used {outcome.cpu_s:.2f} s of its "
                         f"{limits.cpu_s:g} s of CPU time (waiting or asleep)")
    if killed == "processes":
        return Judgement(Verdict.RTE, f"started more than {limits.processes} process(es), or "
                         f"more threads than the kernel allows a test")
    if outcome.result is None:
        code = outcome.exit_code
        how = (f"was killed by signal {_signal_name(-code)}" if code is not None and code < 0
               else f"exited with code {code}")
        message = outcome.result_error or f"the test process {how} before reporting a result"
        return Judgement(Verdict.RTE, message, _tail(outcome.stderr))
    return None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _tail(data: bytes, lines: int = 20) -> str:
    text = data.decode("utf-8", "replace").rstrip("\n")
    return "\n".join(text.split("\n")[-lines:])


class Grader:
    """Runs the tests of one suite on one submission."""

    def __init__(self, loaded: LoadedSuite, prepared: Prepared, scratch: Path,
                 record: bool = False, sandbox: str | None = None) -> None:
        self.loaded = loaded
        self.suite = loaded.suite
        self.prepared = prepared
        self.scratch = scratch
        self.record = record
        self.inputs = scratch / "inputs"
        self.inputs.mkdir(exist_ok=True)
        self.inputs.chmod(0o755)
        self.sandbox = resolve_sandbox(sandbox or os.environ.get("GRADER_SANDBOX")
                                       or loaded.suite.sandbox)
        self.server = ForkServer(prepared.code_dir, scratch, self.sandbox, inputs=self.inputs,
                                 env=loaded.suite.env)
        self.limit_notes: dict[str, str] = {}

    def __enter__(self) -> Grader:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()

    def shown(self, text: str) -> str:
        """`text` as students may see it: inert, and without the grader's own paths."""
        for folder, name in ((self.prepared.code_dir, ""), (self.inputs, ""),
                             (self.scratch, ""), (project_root(), "")):
            text = text.replace(f"{folder}{os.sep}", name).replace(str(folder), name or ".")
        return inert_text(text)

    def limits_for(self, test: TestSpec) -> Limits:
        limits, note = calibration.limits_for(self.loaded, test, calibrate=not self.record)
        self.limit_notes[test.name] = note
        return limits

    def input_file(self, name: str) -> Path:
        """A copy of fixtures/NAME/<name> that the test process may read."""
        origin = self.loaded.fixtures / name
        if not origin.is_file():
            raise FileNotFoundError(f"{origin}: input fixture named in the suite does not exist")
        copy = self.inputs / name
        if not copy.exists():
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(origin, copy)
            copy.chmod(0o644)
        return copy

    def run_test(self, test: TestSpec) -> tuple[Judgement, RunOutcome | None, Any]:
        """(judgement, process outcome, what to record) for one test."""
        limits = self.limits_for(test)
        if self.prepared.missing:
            return Judgement(Verdict.CE, "missing file(s): " + ", ".join(self.prepared.missing)), \
                None, None
        if self.prepared.syntax_errors:
            name, error = next(iter(self.prepared.syntax_errors.items()))
            return Judgement(Verdict.CE, f"{name} does not compile", error), None, None
        if test.transcript is not None:
            return self._run_transcript(test, limits)
        return self._run_calls(test, limits)

    def _run_calls(self, test: TestSpec, limits: Limits) -> tuple[Judgement, RunOutcome, Any]:
        steps = expectations.steps_of(test, self.loaded)
        request = {"kind": "call", "steps": [self._wire_step(step) for step in steps]}
        outcome = self.server.run(request, limits)
        process_judgement = judge_process(outcome, limits)
        if process_judgement is not None:
            return process_judgement, outcome, None
        try:
            got = received.step_outcomes(outcome.result)
        except received.Malformed as error:
            return Judgement(Verdict.RTE, f"the test process sent back a malformed result "
                             f"({error})"), outcome, None
        if self.record:
            return Judgement(Verdict.AC), outcome, got
        expected = expectations.load_call(self.loaded, test)
        return judge_steps(steps, got, expected), outcome, None

    def _wire_step(self, step: Step) -> dict[str, Any]:
        data = step.model_dump(exclude_defaults=True)
        data["args"] = [self._wire_arg(arg) for arg in step.args]
        return data

    def _wire_arg(self, arg: Any) -> Any:
        if isinstance(arg, dict) and set(arg) == {"fixture"}:
            return {"$path": str(self.input_file(arg["fixture"])), "$name": arg["fixture"]}
        if isinstance(arg, list):
            return [self._wire_arg(item) for item in arg]
        return arg

    def _run_transcript(self, test: TestSpec, limits: Limits) -> tuple[Judgement, RunOutcome, Any]:
        spec = test.transcript
        assert spec is not None
        argv = [str(self.input_file(a["fixture"])) if isinstance(a, dict) else a for a in spec.args]
        stdin = self.input_file(spec.stdin) if spec.stdin else None
        request = {"kind": "transcript", "driver": spec.driver, "argv": argv}
        outcome = self.server.run(request, limits, stdin_file=stdin)
        process_judgement = judge_process(outcome, limits)
        if process_judgement is not None:
            return process_judgement, outcome, None
        try:
            result = received.driver_outcome(outcome.result)
        except received.Malformed as malformed:
            return Judgement(Verdict.RTE, f"the test process sent back a malformed result "
                             f"({malformed})"), outcome, None
        error = result["error"]
        if error:
            label = " ".join([spec.driver, *map(render_value, spec.args)])
            return _outcome_of_exception(error, label), outcome, None
        exit_code = result["exit"]
        text = outcome.stdout.decode("utf-8", "replace")
        if self.record:
            return Judgement(Verdict.AC), outcome, {"exit": exit_code, "stdout": outcome.stdout}
        expected_text, expected_exit = expectations.load_transcript(self.loaded, test)
        rules = test.normalize or self.suite.normalize
        got_lines = normalized_lines(text, rules)
        expected_lines = normalized_lines(expected_text, rules)
        if got_lines != expected_lines:
            return Judgement(Verdict.WA, "the output differs from the expected transcript",
                             readable_diff(got_lines, expected_lines)), outcome, None
        if exit_code != expected_exit:
            return Judgement(Verdict.WA, f"the program exited with code {exit_code}, expected "
                             f"{expected_exit}"), outcome, None
        return Judgement(Verdict.AC), outcome, None


def result_of(test: TestSpec, judgement: Judgement, outcome: RunOutcome | None,
              limits_note: str = "", shown: Callable[[str], str] = inert_text) -> TestResult:
    """The test's result; every text that may hold what the test produced passes `shown`."""
    usage = Usage()
    stdout = None
    if outcome is not None:
        usage = Usage(cpu_s=outcome.cpu_s, wall_s=outcome.wall_s, peak_mb=outcome.peak_mb,
                      resident_mb=outcome.resident_mb)
        stdout = outcome.stdout.decode("utf-8", "replace")[:4000] if test.kind == "call" else None
    return TestResult(name=test.name, verdict=judgement.verdict,
                      points=test.points if judgement.verdict is Verdict.AC else 0.0,
                      max_points=test.points, visibility=test.visibility, kind=test.kind, usage=usage,
                      message=shown(judgement.message), details=shown(judgement.details),
                      stdout=shown(stdout) if stdout else None,
                      limits=outcome.limits.model_dump() if outcome is not None else {},
                      limits_note=limits_note)


def select_tests(loaded: LoadedSuite, public_only: bool,
                 names: list[str] | None = None) -> list[TestSpec]:
    tests = [t for t in loaded.suite.tests if not public_only or t.visibility == "visible"]
    if names:
        unknown = set(names) - {t.name for t in loaded.suite.tests}
        if unknown:
            raise KeyError(f"no test named {', '.join(sorted(unknown))} in {loaded.path}")
        tests = [t for t in tests if t.name in names]
    return tests


def grade(loaded: LoadedSuite, source: Path, public_only: bool = False,
          names: list[str] | None = None, overlay: Path | None = None,
          on_result: Callable[[TestResult], None] | None = None,
          sandbox: str | None = None) -> GradeReport:
    """Grade the submission at `source` (folder or .zip); one failing test never stops the rest."""
    tests = select_tests(loaded, public_only, names)
    report = GradeReport(exercise=loaded.name, submission=str(source))
    with prepared_submission(loaded, source, overlay) as (prepared, scratch):
        if prepared.missing:
            report.missing = list(prepared.missing)
            report.notes.append("missing file(s): " + ", ".join(prepared.missing))
        if prepared.ignored:
            report.notes.append("ignored file(s): " + ", ".join(prepared.ignored))
        try:
            with Grader(loaded, prepared, scratch, sandbox=sandbox) as grader:
                report.sandbox = grader.sandbox
                for test in tests:
                    try:
                        judgement, outcome, _ = grader.run_test(test)
                    except (OSError, ValueError, KeyError, RuntimeError) as error:
                        judgement, outcome = Judgement(Verdict.JE, f"{error}"), None
                    result = result_of(test, judgement, outcome,
                                       grader.limit_notes.get(test.name, ""), grader.shown)
                    report.results.append(result)
                    if on_result is not None:
                        on_result(result)
        except ServerStartError as error:
            report.results = [result_of(test, Judgement(
                Verdict.JE, f"the grader could not start a test process: {error}"), None)
                for test in tests]
    return report
