"""The suite schema: one YAML file per exercise, validated strictly (see docs/suites.md)."""

from __future__ import annotations

import re
from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from grader.sandboxes import SandboxChoice
from grader.suite.fields import CheckerName, check_regex
from grader.suite.gamespec import GameSpec
from grader.suite.interactive import Interactive
from grader.suite.limits import WALL_NOTE, LimitSpec
from grader.suite.model import LocatedError, Strict
from grader.suite.questions import Question, question_problem

NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]*$"
HELPER_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Normalize(Strict):
    """How a transcript is compared with the expected one."""

    mask: list[str] = Field(
        default_factory=list, description="regexes; a matching line equals any other matching line"
    )
    substitute: list[tuple[str, str]] = Field(
        default_factory=list, description="[regex, replacement] pairs applied to every line"
    )
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


def _names_a_fixture(value: Any) -> bool:
    if isinstance(value, dict):
        return set(value) == {"fixture"}
    return isinstance(value, list) and any(_names_a_fixture(item) for item in value)


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

    @cached_property
    def sent(self) -> dict[str, Any]:
        """The step as a test process is sent it, `{fixture: FILE}` arguments still unresolved:
        made once, as the same steps go out in every grading (shared: never changed)."""
        return {**self.model_dump(exclude_defaults=True), "args": self.args}

    @cached_property
    def reads_fixtures(self) -> bool:
        """Whether an argument (or an item of a list argument) is a `{fixture: FILE}`."""
        return _names_a_fixture(self.args)

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
    limits: LimitSpec | None = Field(None, description="the keys of the suite's limits this test changes")
    description: str = ""
    question: str | None = Field(
        None, description="the id of the question (of the suite's `questions:`) this test belongs to"
    )
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
    interactive: Interactive | None = None  # played live by a referee (grader/suite/interactive.py)
    game: GameSpec | None = None  # whole games by calls against a trusted referee (suite/games.py)
    normalize: Normalize | None = None
    reference_helpers: dict[str, str] = Field(
        default_factory=dict,
        description="functions or classes this test runs with the "
        "reference's versions of, each mapped to the question (or test) that grades it "
        "({module.name: question}), so that a wrong helper costs only its own question; only "
        "their reference code enters the test's process (see docs/suites.md)",
    )

    @model_validator(mode="after")
    def _one_kind(self) -> TestSpec:
        kinds = [
            self.call is not None,
            self.steps is not None or self.steps_from is not None,
            self.transcript is not None,
            self.interactive is not None,
            self.game is not None,
        ]
        if sum(kinds) != 1:
            raise ValueError(
                "a test is exactly one of: 'call' with 'cases'/'cases_from', "
                "'steps'/'steps_from', 'transcript', 'interactive' or 'game'"
            )
        if self.call is not None and (self.cases is None) == (self.cases_from is None):
            raise ValueError("'call' needs exactly one of 'cases' or 'cases_from'")
        if self.steps is not None and self.steps_from is not None:
            raise ValueError("use one of 'steps' or 'steps_from'")
        if self.checker is not None and self.call is None:
            raise LocatedError(
                ("checker",),
                "a test's 'checker' judges the answers of its "
                "'call'; in steps, give each step its own 'checker'",
            )
        for helper in self.reference_helpers:
            if not HELPER_PATTERN.match(helper):
                raise LocatedError(
                    ("reference_helpers", helper), f"'{helper}' is not module.name (a function or class)"
                )
            if helper == self.call:
                raise LocatedError(
                    ("reference_helpers", helper),
                    f"'{helper}' is the function this test grades: it must run as the student wrote it",
                )
        return self

    @property
    def kind(self) -> Literal["call", "transcript", "interactive", "game"]:
        if self.transcript is not None:
            return "transcript"
        return "interactive" if self.interactive else "game" if self.game is not None else "call"


class Suite(Strict):
    exercise: Annotated[str, Field(pattern=NAME_PATTERN)]
    title: str = ""
    submit: list[str] = Field(min_length=1)
    given: list[str] = Field(default_factory=list)
    limits: LimitSpec = Field(default_factory=LimitSpec)
    normalize: Normalize = Field(default_factory=Normalize)
    sandbox: SandboxChoice | None = Field(
        None, description="how test processes are confined unless the command line says otherwise"
    )
    env: dict[str, str] = Field(
        default_factory=dict,
        description="environment variables the test processes get on top of "
        "a fixed minimal set (names: letters, digits and _, not starting with a digit)",
    )
    questions: list[Question] = Field(
        default_factory=list,
        description="the assignment's questions, in order; each test names its `question:`",
    )
    withheld_points: float = Field(0.0, ge=0, description="hidden tests' points left out (a handout's)")
    tests: list[TestSpec] = Field(min_length=1)

    @field_validator("env")
    @classmethod
    def _environment_names(cls, env: dict[str, str]) -> dict[str, str]:
        for name, value in env.items():
            if not ENV_NAME.match(name):
                raise LocatedError(
                    (name,),
                    f"{name!r} is not an environment variable name "
                    "(letters, digits and _, not starting with a digit)",
                )
            if "\0" in value:
                raise LocatedError((name,), "an environment variable cannot hold a NUL character")
        return env

    @model_validator(mode="after")
    def _wall_not_below_cpu(self) -> Suite:
        """An absolute wall_s never below an absolute cpu_s: the suite's, and each test's merged with it."""
        problem = self.limits.wall_problem()
        if problem is not None:
            raise LocatedError(("limits", "wall_s"), problem)
        for index, test in enumerate(self.tests):
            if test.limits is None or not (test.limits.sets("cpu_s") or test.limits.sets("wall_s")):
                continue
            merged = self.limits.merged(test.limits)
            if (
                not isinstance(merged.wall_s, float)
                or not isinstance(merged.cpu_s, float)
                or merged.wall_s >= merged.cpu_s
            ):
                continue
            if not test.limits.sets("wall_s"):
                key = "cpu_s"
                problem = f"{merged.cpu_s:g} s is above the suite's wall_s {merged.wall_s:g} s"
            else:
                key = "wall_s"
                whose = "" if test.limits.sets("cpu_s") else "the suite's "
                problem = f"{merged.wall_s:g} s is below {whose}cpu_s {merged.cpu_s:g} s"
            raise LocatedError(("tests", index, "limits", key), problem + WALL_NOTE)
        return self

    @model_validator(mode="after")
    def _unique_names(self) -> Suite:
        seen: dict[str, int] = {}
        for index, test in enumerate(self.tests):
            if test.name in seen:
                raise LocatedError(
                    ("tests", index, "name"),
                    f"two tests are named '{test.name}' (the first is tests.{seen[test.name]})",
                )
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
                    raise LocatedError(
                        where, f"'{helper}' is not in a submitted module ({', '.join(sorted(submitted))})"
                    )
                if grading not in names and grading not in questions:
                    raise LocatedError(where, f"no test or question named '{grading}' grades it")
                if grading in (test.name, test.question):
                    raise LocatedError(
                        where,
                        f"'{helper}' is graded by this very test or its "
                        "question: it must run as the student wrote it",
                    )
        return self

    @property
    def total_points(self) -> float:
        return sum(test.points for test in self.tests)
