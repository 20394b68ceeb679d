"""Judging one test run: how its process ended, then what it did against what was recorded."""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass
from typing import Any

from grader.judge.checkers import Check
from grader.judge.compare import allowance, matches
from grader.judge.transcripts import readable_diff, where
from grader.judge.verdicts import Verdict
from grader.run import received
from grader.run.box.protocol import STEP_MARKER, Raised, StepOutcome, raised
from grader.run.watchdog import RunOutcome
from grader.suite.limits import Limits
from grader.suite.normalize import normalized_lines
from grader.suite.schema import Normalize, Step


@dataclass
class Judgement:
    verdict: Verdict
    message: str = ""
    details: str = ""
    cause: str = ""  # a CE's reason without the test's own words: alike in every test it stops


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


def judge_exception(got: Raised, label: str) -> Judgement:
    """The verdict of a step or program that raised: NI, CE (it does not import), else RTE."""
    if got["ni"]:
        origin = got.get("origin")
        where = f"{origin} raises NotImplementedError" if origin else "raises NotImplementedError"
        return Judgement(Verdict.NI, f"{label}: not implemented yet ({where})")
    if got["import"]:
        hint = ""
        if got["raises"] == "AttributeError":
            hint = (
                " (missing function or attribute: check the name and that it is defined at "
                "the top level of the module)"
            )
        cause = f"{got['raises']}: {got['message']}{hint}"
        return Judgement(Verdict.CE, f"{label}: {cause}", got["traceback"], cause=cause)
    return Judgement(
        Verdict.RTE, f"{label} raised {got['raises']}: {got['message']}", got.get("traceback", "")
    )


NOTHING_COUNTED = (
    "the work of a search is counted as the calls of its own recursive function, "
    "in the submission's files and the test's thread: a search with an explicit "
    "stack, or run in another thread or process, cannot be judged"
)


def wanted(step: Step, expected: Any) -> str:
    """What a step had to return, for a message.

    >>> wanted(Step(call="probe.searches", compare="at_most", tolerance=0.2), 569)
    "at most 682 (the reference's 569 + 20%)"
    """
    if step.compare == "at_most" and type(expected) is int:
        return (
            f"at most {allowance(expected, step.tolerance)} (the reference's {expected} + "
            f"{step.tolerance:.0%})"
        )
    return received.render(expected)


def _names_used(step: Step) -> list[str]:
    """The `let` names a step's target and arguments start from ($ref, and the heads of $get,
    $call and dotted targets), in order."""
    found: list[str] = [step.target.split(".")[0]]

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for key in ("$ref", "$get", "$call"):
                if key in value:
                    found.append(str(value[key]).split(".")[0])
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(step.args)
    walk(step.kwargs)
    return found


HOW_MADE_LINES = 12  # at most, in a failure's details: the first and last steps, "..." between


def how_made(steps: list[Step], step: Step) -> str:
    """How the objects `step` works on were made: one line per `let` it depends on, in the
    order they ran ("" when it uses none), for feedback that names generated objects.

    >>> steps = [Step(call="m.Board", let="b"), Step(call="b.play", args=[0]),
    ...          Step(call="b.child", args=[4], let="t1"), Step(call="t1.best", args=[3])]
    >>> print(how_made(steps, steps[3]))
    where
      b = m.Board()
      b.play(0)
      t1 = b.child(4)
    """
    made = {each.let: each for each in steps if each.let}
    needed: set[str] = set()
    todo = [name for name in _names_used(step) if name in made]
    while todo:
        name = todo.pop()
        if name in needed:
            continue
        needed.add(name)
        todo += [used for used in _names_used(made[name]) if used in made]
    before = steps[: next(i for i, each in enumerate(steps) if each is step)]
    lines = [
        f"  {each.let} = {step_label(each)}" if each.let else f"  {step_label(each)}"
        for each in before
        if each.let in needed or (each.let is None and each.target.split(".")[0] in needed)
    ]
    if len(lines) > HOW_MADE_LINES:
        lines = [*lines[: HOW_MADE_LINES // 2], "  ...", *lines[-HOW_MADE_LINES // 2 :]]
    return "\n".join(["where", *lines]) if lines else ""


def with_origin(judgement: Judgement, steps: list[Step], step: Step) -> Judgement:
    """`judgement` with how the step's objects were made added to its details."""
    origin = how_made(steps, step)
    if not origin or judgement.verdict not in (Verdict.WA, Verdict.RTE):
        return judgement
    details = f"{origin}\n{judgement.details}".rstrip() if judgement.details else origin
    return Judgement(judgement.verdict, judgement.message, details, cause=judgement.cause)


def judge_steps(
    steps: list[Step],
    got_list: list[StepOutcome],
    expected_list: list[dict[str, Any]],
    check: Check | None = None,
) -> Judgement:
    """Compare the child's step outcomes with the recorded ones (a step naming a `checker`: ask
    it, through `check`, instead or beside); the first failure decides, and says how the objects
    it works on were made."""
    for got in got_list:
        failed = raised(got)
        if (
            failed is not None
            and failed.get("let_failed")
            and not any(e.get("let_failed") for e in expected_list)
        ):
            return judge_exception(failed, "preparing the test")
    compared_steps = [step for step in steps if step.compared]
    got_compared = [g for g in got_list if not g.get("let_failed")]
    expected_compared = [e for e in expected_list if not e.get("let_failed")]
    if len(expected_compared) != len(compared_steps):
        return Judgement(
            Verdict.JE,
            "the recorded expectations do not match the suite's steps; re-record them with `grader record`",
        )
    if len(got_compared) != len(compared_steps):  # the test process wrote its own result
        return Judgement(
            Verdict.RTE,
            f"the test process sent back a malformed result "
            f"({len(got_compared)} step outcome(s) for {len(compared_steps)} "
            f"compared step(s))",
        )
    for step, got, expected in zip(compared_steps, got_compared, expected_compared, strict=True):
        judged = _judge_step(step, got, expected, check)
        if judged is not None:
            return with_origin(judged, steps, step)
    return Judgement(Verdict.AC)


def _judge_step(
    step: Step, got: StepOutcome, expected: dict[str, Any], check: Check | None
) -> Judgement | None:
    """The failure of one compared step, or None when it matches what the reference did (and
    its checker, if it names one, accepts it)."""
    if _returned_the_recorded_value(step, got, expected):
        return None
    label = step_label(step)
    failed = raised(got)
    if "raises" in expected:
        if failed is not None and failed["raises"] == expected["raises"]:
            return None
        if failed is None:
            return Judgement(
                Verdict.WA,
                f"{label} returned {received.render(got.get('value'))}"
                f", expected it to raise {expected['raises']}",
            )
        if failed["ni"] or failed["import"]:
            return judge_exception(failed, label)
        return Judgement(
            Verdict.WA,
            f"{label} raised {failed['raises']}, expected it to raise {expected['raises']}",
            failed["traceback"],
        )
    if "unplain" in got:
        return Judgement(Verdict.WA, f"{label} {got.get('unplain')}")
    if failed is not None:
        return judge_exception(failed, label)
    if step.count is not None and got.get("value") == 0 != expected["value"]:
        return Judgement(Verdict.WA, f"{label}: no call was counted ({NOTHING_COUNTED})")
    if step.recorded_compared and not matches(
        step.compare, got.get("value"), expected["value"], step.tolerance
    ):
        return Judgement(
            Verdict.WA,
            f"{label} returned {received.render(got.get('value'))}, "
            f"expected {wanted(step, expected['value'])}",
        )
    if step.checker is not None:
        if check is None:
            return Judgement(Verdict.JE, f"{label}: no way to run its checker {step.checker}")
        verdict, message, details = check(step, got.get("value"), label)
        if verdict is not Verdict.AC:
            return Judgement(verdict, message, details)
    return None


def _returned_the_recorded_value(step: Step, got: StepOutcome, expected: dict[str, Any]) -> bool:
    """The common case, decided before any message is made: the reference's value, no checker."""
    if step.checker is not None or "value" not in got or "value" not in expected:
        return False
    if step.count is not None and got.get("value") == 0 != expected["value"]:
        return False
    return matches(step.compare, got.get("value"), expected["value"], step.tolerance)


def judge_process(outcome: RunOutcome, limits: Limits) -> Judgement | None:
    """A verdict from how the process ran (limits, crashes), or None when it ran to the end.

    Time is judged by CPU time against the stated limit; the wall clock only ends a test that
    stopped using CPU (asleep, blocked) and is a safety net far above the CPU limit.
    """
    if outcome.worker_failure:
        return Judgement(Verdict.JE, outcome.worker_failure)
    killed = outcome.killed_for
    output_cap = limits.output_kb * 1024
    if killed == "output" or (killed is None and len(outcome.stdout) > output_cap):
        return Judgement(Verdict.OLE, f"wrote more than {limits.output_kb:g} kB of output")
    if killed is None and outcome.exit_code == -signal.SIGXFSZ:  # RLIMIT_FSIZE, as the test set it
        largest = max(limits.output_kb / 1024, limits.scratch_mb)
        return Judgement(
            Verdict.OLE,
            f"wrote a file past the {largest:g} MB any one file may "
            f"hold (the larger of output_kb and scratch_mb)",
        )
    if killed == "memory" or (killed is None and outcome.peak_mb > limits.memory_mb):
        return Judgement(
            Verdict.MLE,
            f"used more than {limits.memory_mb:g} MB of memory "
            f"(at least {max(outcome.peak_mb, limits.memory_mb):.1f} MB)",
        )
    if killed == "cpu" or (
        killed is None and (outcome.cpu_s > limits.cpu_s or outcome.exit_code == -signal.SIGXCPU)
    ):
        return Judgement(
            Verdict.TLE,
            f"used more than {limits.cpu_s:g} s of CPU time "
            f"(stopped at {max(outcome.cpu_s, limits.cpu_s):.2f} s)",
        )
    if killed == "wall":
        return Judgement(
            Verdict.TLE,
            f"still running after {limits.wall_s:g} s of wall-clock "
            f"time, the safety limit, having used {outcome.cpu_s:.2f} s of its "
            f"{limits.cpu_s:g} s of CPU time (waiting or asleep)",
        )
    if killed == "asleep" and outcome.napped:
        return Judgement(
            Verdict.TLE,
            f"asleep: for {outcome.asleep_s:.1f} s its processes were "
            f"seldom runnable and used under half that time in CPU (it napped in a "
            f"loop, or waited for something that never came), having used "
            f"{outcome.cpu_s:.2f} s of its {limits.cpu_s:g} s of CPU time",
        )
    if killed == "asleep":
        return Judgement(
            Verdict.TLE,
            f"asleep: for {outcome.asleep_s:.1f} s none of its processes "
            f"was runnable and it used no CPU time (it slept, or waited for input "
            f"or an event that never came), having used {outcome.cpu_s:.2f} s of "
            f"its {limits.cpu_s:g} s of CPU time",
        )
    if killed == "processes":
        return Judgement(
            Verdict.RTE,
            f"started more than {limits.processes} process(es), or "
            f"more threads than the kernel allows a test (none in a test that "
            f"counts work)",
        )
    if outcome.result is None:
        code = outcome.exit_code
        how = (
            f"was killed by signal {_signal_name(-code)}"
            if code is not None and code < 0
            else f"exited with code {code}"
        )
        message = outcome.result_error or f"the test process {how} before reporting a result"
        return Judgement(Verdict.RTE, message, _tail(outcome.stderr))
    return None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


MARKER_LINE = re.compile(re.escape(STEP_MARKER) + rb"[0-9]*\n?")


def without_markers(data: bytes) -> bytes:
    """A test's stderr without the step markers the grader's own code wrote there.

    >>> without_markers(b"\\x00grader-step 0\\nboom\\n\\x00grader-step 1\\n")
    b'boom\\n'
    """
    return MARKER_LINE.sub(b"", data)


def running_step(stderr: bytes) -> int | None:
    """The index of the step a call test was running when it stopped (its last step marker).

    >>> running_step(b"\\x00grader-step 0\\nout\\n\\x00grader-step 12\\n")
    12
    >>> running_step(b"nothing") is None
    True
    """
    at = stderr.rfind(STEP_MARKER)
    if at < 0:
        return None
    number = stderr[at + len(STEP_MARKER) :].split(b"\n", 1)[0]
    return int(number) if number.isdigit() and len(number) < 8 else None


def _tail(data: bytes, lines: int = 20) -> str:
    text = without_markers(data).decode("utf-8", "replace").rstrip("\n")
    return "\n".join(text.split("\n")[-lines:])


def while_running(judgement: Judgement, what: str) -> Judgement:
    """A limit's verdict naming the call or the program run that went over it.

    >>> while_running(Judgement(Verdict.TLE, "used more than 2 s of CPU time"), "m.f(1)").message
    'used more than 2 s of CPU time, while running m.f(1)'
    """
    if judgement.verdict not in (Verdict.TLE, Verdict.MLE, Verdict.OLE) or not what:
        return judgement
    return Judgement(judgement.verdict, f"{judgement.message}, while running {what}", judgement.details)


def judge_transcript(
    got_text: str, got_exit: int, expected_text: str, expected_exit: int, rules: Normalize
) -> Judgement:
    """A program's output and exit code against the recorded ones, after normalizing both."""
    got_lines = normalized_lines(got_text, rules)
    expected_lines = normalized_lines(expected_text, rules)
    if got_lines != expected_lines:
        return Judgement(
            Verdict.WA,
            "the output differs from the expected transcript " + where(got_lines, expected_lines),
            readable_diff(got_lines, expected_lines),
        )
    if got_exit != expected_exit:
        return Judgement(Verdict.WA, f"the program exited with code {got_exit}, expected {expected_exit}")
    return Judgement(Verdict.AC)
