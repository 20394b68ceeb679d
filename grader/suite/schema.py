"""The suite schema: one YAML file per exercise, validated strictly (see docs/suites.md)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from grader.errors import UserError
from grader.sandboxes import SandboxChoice
from grader.suite.fields import CheckerName, TimeLimit, check_regex
from grader.suite.questions import Question, question_problem

NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]*$"
HELPER_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$")


class SuiteError(UserError):
    """A suite that cannot be used, with a message naming the file, the line and the key."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


UNCALIBRATED_TIME_S = 600.0
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
WALL_RULE = "max(3 x cpu_s, cpu_s + 30 s)"
WALL_NOTE = ("; time limits judge CPU time, the wall clock is a safety net above them "
             f"(leave wall_s out for {WALL_RULE})")


def default_wall_s(cpu_s: float) -> float:
    """The wall-clock limit that goes with a CPU limit when the suite sets none: max(3x, +30 s).

    Time limits judge CPU time; the wall clock is only a safety net against a test that sleeps or
    waits, set well above the CPU limit so that a busy machine slows grading but changes no verdict.
    """
    return round(max(3 * cpu_s, cpu_s + 30), 3)


class LocatedError(ValueError):
    """A validation problem found by a model's validator about one of its keys (`loc` below it)."""

    def __init__(self, loc: tuple[int | str, ...], message: str) -> None:
        super().__init__(message)
        self.loc = loc


class Limits(Strict):
    """Resource limits of one test run, resolved to plain numbers."""

    cpu_s: float = Field(10.0, gt=0)
    wall_s: float = Field(default_wall_s(10.0), gt=0)
    memory_mb: float = Field(512.0, gt=0)
    output_kb: float = Field(1024.0, gt=0)
    processes: int = Field(1, ge=1)
    scratch_mb: float = Field(64.0, gt=0)
    scratch_files: int = Field(512, ge=1)


class LimitSpec(Strict):
    """Limits as a suite writes them; every field has a default, times may be relative."""

    cpu_s: TimeLimit = Field(10.0, description="CPU seconds of the whole process tree (going over "
                             "is TLE), or '3x': three times the reference's CPU time on this machine")
    wall_s: TimeLimit | None = Field(
        None, description="wall-clock seconds before the test is killed (TLE): only a safety net, "
        f"since time limits judge CPU time. Unset: {WALL_RULE} of the resolved CPU limit; else "
        "seconds (not below an absolute cpu_s) or a multiple of the reference's wall time ('5x')")
    memory_mb: float = Field(512.0, gt=0, description="peak resident memory of the process tree")
    output_kb: float = Field(1024.0, gt=0, description="bytes the test may write to stdout")
    processes: int = Field(1, ge=1, description="processes alive at once, the test's own included")
    floor_s: float = Field(1.0, gt=0, description="the least a relative time limit resolves to")
    scratch_mb: float = Field(64.0, gt=0, description="size in MB of the test's private writable "
                              "space: its /tmp and its working folder, fresh for every test")
    scratch_files: int = Field(512, ge=1, description="how many files and folders the test may "
                               "create in its private writable space")

    @model_validator(mode="after")
    def _wall_not_below_cpu(self) -> LimitSpec:
        problem = self.wall_problem()
        if problem is not None:
            raise LocatedError(("wall_s",), problem)
        return self

    def wall_problem(self) -> str | None:
        """Why this wall_s cannot be (an absolute one below an absolute cpu_s), or None."""
        if isinstance(self.wall_s, float) and isinstance(self.cpu_s, float) \
                and self.wall_s < self.cpu_s:
            return f"{self.wall_s:g} s is below cpu_s {self.cpu_s:g} s" + WALL_NOTE
        return None

    def merged(self, overrides: LimitOverrides | None) -> LimitSpec:
        if overrides is None:
            return self
        return self.model_copy(update=overrides.model_dump(exclude_none=True))

    @property
    def relative(self) -> bool:
        return isinstance(self.cpu_s, str) or isinstance(self.wall_s, str)

    def resolve(self, reference_cpu_s: float | None = None,
                reference_wall_s: float | None = None) -> Limits:
        """Plain limits; relative times need the reference's (else they are left generous).

        Without a wall_s of its own the wall-clock limit follows the resolved CPU limit
        (`default_wall_s`).
        """

        def seconds(value: float | str, reference: float | None) -> float:
            if isinstance(value, str):
                if reference is None:
                    return UNCALIBRATED_TIME_S
                return round(max(self.floor_s, float(value[:-1]) * reference), 3)
            return float(value)

        cpu_s = seconds(self.cpu_s, reference_cpu_s)
        wall_s = default_wall_s(cpu_s) if self.wall_s is None \
            else seconds(self.wall_s, reference_wall_s)
        return Limits(cpu_s=cpu_s, wall_s=wall_s, memory_mb=self.memory_mb,
                      output_kb=self.output_kb, processes=self.processes,
                      scratch_mb=self.scratch_mb, scratch_files=self.scratch_files)


class LimitOverrides(Strict):
    cpu_s: TimeLimit | None = None
    wall_s: TimeLimit | None = None
    memory_mb: float | None = Field(None, gt=0)
    output_kb: float | None = Field(None, gt=0)
    processes: int | None = Field(None, ge=1)
    floor_s: float | None = Field(None, gt=0)
    scratch_mb: float | None = Field(None, gt=0)
    scratch_files: int | None = Field(None, ge=1)


class Normalize(Strict):
    """How a transcript is compared with the expected one."""

    mask: list[str] = Field(default_factory=list,
                            description="regexes; a matching line equals any other matching line")
    substitute: list[tuple[str, str]] = Field(
        default_factory=list, description="[regex, replacement] pairs applied to every line")
    trailing_whitespace: Literal["strip", "keep"] = "strip"

    @field_validator("mask")
    @classmethod
    def _regexes_compile(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            check_regex(pattern)
        return patterns

    @field_validator("substitute")
    @classmethod
    def _substitutions_compile(cls, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
        for pattern, _ in pairs:
            check_regex(pattern)
        return pairs


Comparator = Literal["equal", "unordered", "approx", "set", "at_most"]
Show = Literal["plain", "str", "repr", "attrs"]
Count = Literal["recursive_calls"]


class Step(Strict):
    call: str | None = None
    get: str | None = None
    args: list[Any] = Field(default_factory=list)
    kwargs: dict[str, Any] = Field(default_factory=dict)
    let: str | None = None
    check: bool = False
    show: Show = "plain"
    attrs: list[str] | None = None
    compare: Comparator = "equal"
    tolerance: float = Field(1e-9, ge=0, allow_inf_nan=False)  # isclose refuses < 0
    label: str | None = None
    count: Count | None = None
    budget: int | None = Field(None, ge=1)
    checker: CheckerName = None  # MODULE:FUNCTION judging the answer (docs/suites.md)

    @model_validator(mode="after")
    def _one_target(self) -> Step:
        if (self.call is None) == (self.get is None):
            raise ValueError("a step needs exactly one of 'call' or 'get'")
        if self.get is not None and (self.args or self.kwargs):
            raise ValueError("'get' reads an attribute and takes no 'args'/'kwargs'")
        if (self.show == "attrs") != (self.attrs is not None):
            raise ValueError("'show: attrs' and 'attrs: [...]' go together")
        if self.count is not None and (self.call is None or self.let is not None):
            raise ValueError("'count' counts the work of a 'call' and gives that count, not a 'let'")
        if self.budget is not None and self.count is None:
            raise ValueError("'budget' stops a counted call: it goes with 'count'")
        if self.checker is not None and not self.compared:
            raise ValueError("'checker' judges a compared step: not a 'let' (add 'check: true')")
        return self

    @property
    def target(self) -> str:
        return self.call or self.get or ""

    def but(self, **changes: Any) -> Step:
        """This step with `changes`, validated again.

        >>> Step(call="b.play", args=[1]).but(let="played").let
        'played'
        """
        return Step.model_validate({**self.model_dump(exclude_unset=True), **changes})

    @property
    def compared(self) -> bool:
        return self.let is None or self.check

    @property
    def recorded_compared(self) -> bool:
        """Compared with the recorded answer: without a checker, or beside it with `compare:`.

        >>> Step(call="m.f", checker="c:f").recorded_compared, Step(call="m.f").recorded_compared
        (False, True)
        """
        return self.checker is None or "compare" in self.model_fields_set


class Transcript(Strict):
    driver: str
    args: list[str | dict[str, str]] = Field(default_factory=list)
    stdin: str | None = None
    expected: str

    @field_validator("args")
    @classmethod
    def _fixture_args(cls, args: list[str | dict[str, str]]) -> list[str | dict[str, str]]:
        for arg in args:
            if isinstance(arg, dict) and set(arg) != {"fixture"}:
                raise ValueError("an argument is a string or {fixture: FILE}")
        return args


Visibility = Literal["visible", "hidden", "after_due_date"]


class TestSpec(Strict):
    __test__ = False  # a suite's test, not one for pytest to collect
    name: Annotated[str, Field(pattern=NAME_PATTERN)]
    points: float = Field(1.0, ge=0)
    visibility: Visibility = "visible"
    limits: LimitOverrides | None = None
    description: str = ""
    question: str | None = Field(
        None, description="the id of the question (of the suite's `questions:`) this test belongs to")
    call: str | None = None
    cases: list[list[Any]] | None = None
    cases_from: str | None = None
    compare: Comparator = "equal"
    tolerance: float = Field(1e-9, ge=0, allow_inf_nan=False)  # isclose refuses < 0
    show: Show = "plain"
    attrs: list[str] | None = None
    steps: list[Step] | None = None
    steps_from: str | None = None
    checker: CheckerName = None  # MODULE:FUNCTION judging each case's answer (docs/suites.md)
    transcript: Transcript | None = None
    normalize: Normalize | None = None
    reference_helpers: dict[str, str] = Field(
        default_factory=dict, description="functions or classes this test runs with the "
        "reference's versions of, each mapped to the question (or test) that grades it "
        "({module.name: question}), so that a wrong helper costs only its own question; only "
        "their reference code enters the test's process (see docs/suites.md)")

    @model_validator(mode="after")
    def _one_kind(self) -> TestSpec:
        kinds = [self.call is not None, self.steps is not None or self.steps_from is not None,
                 self.transcript is not None]
        if sum(kinds) != 1:
            raise ValueError("a test is exactly one of: 'call' with 'cases'/'cases_from', "
                             "'steps'/'steps_from', or 'transcript'")
        if self.call is not None and (self.cases is None) == (self.cases_from is None):
            raise ValueError("'call' needs exactly one of 'cases' or 'cases_from'")
        if self.steps is not None and self.steps_from is not None:
            raise ValueError("use one of 'steps' or 'steps_from'")
        if self.checker is not None and self.call is None:
            raise LocatedError(("checker",), "a test's 'checker' judges the answers of its "
                               "'call'; in steps, give each step its own 'checker'")
        for helper in self.reference_helpers:
            if not HELPER_PATTERN.match(helper):
                raise LocatedError(("reference_helpers", helper),
                                   f"'{helper}' is not module.name (a function or class)")
            if helper == self.call:
                raise LocatedError(("reference_helpers", helper), f"'{helper}' is the function "
                                   "this test grades: it must run as the student wrote it")
        return self

    @property
    def kind(self) -> Literal["call", "transcript"]:
        return "transcript" if self.transcript is not None else "call"


class Suite(Strict):
    exercise: Annotated[str, Field(pattern=NAME_PATTERN)]
    title: str = ""
    submit: list[str] = Field(min_length=1)
    given: list[str] = Field(default_factory=list)
    limits: LimitSpec = Field(default_factory=LimitSpec)
    normalize: Normalize = Field(default_factory=Normalize)
    sandbox: SandboxChoice | None = Field(
        None, description="how test processes are confined unless the command line says otherwise")
    env: dict[str, str] = Field(
        default_factory=dict, description="environment variables the test processes get on top of "
        "a fixed minimal set (names: letters, digits and _, not starting with a digit)")
    questions: list[Question] = Field(default_factory=list, description="the assignment's "
                                      "questions, in order; each test names its `question:`")
    withheld_points: float = Field(0.0, ge=0, description="hidden tests' points left out (a handout's)")
    tests: list[TestSpec] = Field(min_length=1)

    @field_validator("env")
    @classmethod
    def _environment_names(cls, env: dict[str, str]) -> dict[str, str]:
        for name, value in env.items():
            if not ENV_NAME.match(name):
                raise LocatedError((name,), f"{name!r} is not an environment variable name "
                                   "(letters, digits and _, not starting with a digit)")
            if "\0" in value:
                raise LocatedError((name,), "an environment variable cannot hold a NUL character")
        return env

    @model_validator(mode="after")
    def _wall_not_below_cpu(self) -> Suite:
        """A test's limits merged with the suite's: an absolute wall_s never below an absolute cpu_s."""
        for index, test in enumerate(self.tests):
            if test.limits is None or (test.limits.cpu_s is None and test.limits.wall_s is None):
                continue
            merged = self.limits.merged(test.limits)
            if not isinstance(merged.wall_s, float) or not isinstance(merged.cpu_s, float) \
                    or merged.wall_s >= merged.cpu_s:
                continue
            if test.limits.wall_s is None:
                key = "cpu_s"
                problem = f"{merged.cpu_s:g} s is above the suite's wall_s {merged.wall_s:g} s"
            else:
                key = "wall_s"
                whose = "" if test.limits.cpu_s is not None else "the suite's "
                problem = f"{merged.wall_s:g} s is below {whose}cpu_s {merged.cpu_s:g} s"
            raise LocatedError(("tests", index, "limits", key), problem + WALL_NOTE)
        return self

    @model_validator(mode="after")
    def _unique_names(self) -> Suite:
        seen: dict[str, int] = {}
        for index, test in enumerate(self.tests):
            if test.name in seen:
                raise LocatedError(("tests", index, "name"), f"two tests are named '{test.name}' "
                                   f"(the first is tests.{seen[test.name]})")
            seen[test.name] = index
        if overlap := set(self.submit) & set(self.given):
            raise LocatedError(("given",), f"files both submitted and given: {sorted(overlap)}")
        return self

    @model_validator(mode="after")
    def _questions_known(self) -> Suite:
        problem = question_problem(self.questions, [(t.name, t.question) for t in self.tests])
        if problem is not None:
            raise LocatedError(*problem)
        return self

    def question_titles(self) -> dict[str, str]:
        """Each declared question's title (its id when it has none), in the suite's order."""
        return {question.id: question.title or question.id for question in self.questions}

    @model_validator(mode="after")
    def _helpers_known(self) -> Suite:
        """Reference helpers belong to submitted modules and name the test or question grading
        them (never the test's own)."""
        submitted = {name.removesuffix(".py") for name in self.submit}
        names = {test.name for test in self.tests}
        questions = {question.id for question in self.questions}
        for index, test in enumerate(self.tests):
            for helper, grading in test.reference_helpers.items():
                where = ("tests", index, "reference_helpers", helper)
                if helper.split(".")[0] not in submitted:
                    raise LocatedError(where, f"'{helper}' is not in a submitted module "
                                       f"({', '.join(sorted(submitted))})")
                if grading not in names and grading not in questions:
                    raise LocatedError(where, f"no test or question named '{grading}' grades it")
                if grading in (test.name, test.question):
                    raise LocatedError(where, f"'{helper}' is graded by this very test or its "
                                       "question: it must run as the student wrote it")
        return self

    @property
    def total_points(self) -> float:
        return sum(test.points for test in self.tests)
