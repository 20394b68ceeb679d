"""The course file (YAML) of `grader serve` and `grader tokens`, and its roster (CSV).

Validated like a suite: every problem is one line naming the file, the line and the key. Nothing
here needs the web framework: the service's settings are built from a `Course`.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from importlib.util import find_spec
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from grader.errors import UserError
from grader.inert import inert_name, inert_text
from grader.report.roster import read_table
from grader.service.dates import zone_problem
from grader.service.lti_spec import LtiSpec, private_key_problem
from grader.service.tournament_spec import TournamentSpec, tournament_problem
from grader.suite.load import line_of, located_message, read_yaml_file
from grader.suite.model import LocatedError

NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
LOGIN_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,149}$")


class CourseError(UserError):
    """A course file or roster that cannot be used: one line naming the file (and line)."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PerMinute(Strict):
    """Points off per minute late, at most `max` points (the weighted course's rule)."""

    per_minute: Annotated[float, Field(gt=0)]
    max: Annotated[float, Field(ge=0)] = math.inf


class PerDay(Strict):
    """A percentage of the maximum score off per started day late; refused after `max_days`."""

    per_day_percent: Annotated[float, Field(gt=0, le=100)]
    max_days: Annotated[int, Field(ge=0)]


EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)  # the dates a course may name (far ones overflow
LATEST = datetime(2999, 12, 31, 23, 59, 59, tzinfo=UTC)  # once moved to UTC or by late days)


def in_utc(moment: datetime) -> datetime | None:
    """`moment` in UTC, or None when it lies outside EARLIEST..LATEST.

    >>> in_utc(datetime.fromisoformat("2026-12-03T23:59:00+01:00")).isoformat()
    '2026-12-03T22:59:00+00:00'
    >>> in_utc(datetime.fromisoformat("9999-12-31T23:59:59-14:00")) is None
    True
    """
    try:
        utc = moment.astimezone(UTC)
    except OverflowError:
        return None
    return utc if EARLIEST <= utc <= LATEST else None


class Assignment(Strict):
    name: Annotated[str, Field(pattern=NAME_PATTERN)]
    exercise: str
    opens: AwareDatetime | None = None
    due: AwareDatetime

    @field_validator("opens", "due")
    @classmethod
    def _in_range(cls, moment: datetime | None) -> datetime | None:
        if moment is not None and in_utc(moment) is None:
            raise ValueError(f"a date between {EARLIEST.year} and {LATEST.year}")
        return moment

    late: PerMinute | PerDay | Literal["none"] = "none"
    counts: Literal["latest", "best"] = "latest"
    attempts: Annotated[int, Field(ge=1)] | None = None
    hidden: Literal["after_due", "never", "always"] = "after_due"
    tournament: TournamentSpec | None = None

    @field_validator("tournament", mode="before")
    @classmethod
    def _unsaid_is_default(cls, tournament: object) -> object:
        """`tournament:` with no value opts in with the defaults."""
        return {} if tournament is None else tournament

    @field_validator("late", mode="before")
    @classmethod
    def _unsaid_is_none(cls, late: object) -> object:
        """`late:` with no value is `late: none`, as a missing `late:` is."""
        return "none" if late is None else late

    @model_validator(mode="after")
    def _opens_before_due(self) -> Assignment:
        if self.opens is not None and self.opens >= self.due:
            raise ValueError("opens must come before due")
        return self

    def penalty(self, late_minutes: int, max_score: float) -> float:
        """Points off for a submission `late_minutes` late (whole minutes, rounded up)."""
        if late_minutes <= 0 or self.late == "none":
            return 0.0
        if isinstance(self.late, PerMinute):
            return float(min(self.late.max, self.late.per_minute * late_minutes))
        days = math.ceil(late_minutes / (24 * 60))
        return max_score * min(100.0, self.late.per_day_percent * days) / 100

    def closed(self, late_minutes: int) -> bool:
        """Too late to submit at all: late under `late: none`, or a per-day rule past its
        `max_days`."""
        if self.late == "none":
            return late_minutes > 0
        return isinstance(self.late, PerDay) and late_minutes > self.late.max_days * 24 * 60

    def credit_ends(self, due: datetime) -> datetime | None:
        """The last moment a submission due at `due` is accepted (and can earn credit); None
        when there is none: points off per minute never close the assignment.

        >>> one = Assignment(name="a", exercise="e", due=datetime(2026, 1, 1, tzinfo=UTC),
        ...                  late=PerDay(per_day_percent=10, max_days=2))
        >>> one.credit_ends(one.due).isoformat()
        '2026-01-03T00:00:00+00:00'
        """
        if self.late == "none":
            return due
        if isinstance(self.late, PerDay):
            try:
                return due + timedelta(days=self.late.max_days)
            except OverflowError:
                return None
        return None

    def late_rule(self) -> str:
        if isinstance(self.late, PerMinute):
            cap = "" if math.isinf(self.late.max) else f", at most {self.late.max:g}"
            return f"{self.late.per_minute:g} point(s) off per minute late{cap}"
        if isinstance(self.late, PerDay):
            return (
                f"{self.late.per_day_percent:g}% off per day late, refused after {self.late.max_days} day(s)"
            )
        return "no late submissions: closed at the due date"


PUBLIC_URL_ENV = "GRADER_PUBLIC_URL"  # overrides the course file's public_url
HOST_PATTERN = re.compile(
    r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}"
    r"[a-z0-9])?)*$|^\[[0-9a-f:.]+\]$"
)


def public_origin(url: str) -> str:
    """The origin (`https://host[:port]`, lower case, no trailing /) of the address students
    use; a ValueError saying what is wrong with anything else.

    >>> public_origin("https://Grader.Example.edu/")
    'https://grader.example.edu'
    >>> public_origin("ftp://grader.example.edu")
    Traceback (most recent call last):
    ...
    ValueError: 'ftp://grader.example.edu' is not an origin like https://grader.example.edu (http:// or https://)
    """
    shown = inert_name(url)[:200]
    like = f"'{shown}' is not an origin like https://grader.example.edu"
    if any(character.isspace() or not character.isprintable() for character in url.strip()):
        raise ValueError(f"{like} (no spaces or control characters)")
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as error:
        raise ValueError(f"{like} ({error})") from None
    if parts.scheme.lower() not in {"http", "https"}:
        raise ValueError(f"{like} (http:// or https://)")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"{like} (no user or password)")
    if parts.path not in {"", "/"} or parts.query or parts.fragment or "?" in url or "#" in url:
        raise ValueError(f"{like} (no path, query or fragment: the service is served at /)")
    host = (parts.hostname or "").lower()
    if parts.netloc.startswith("[") or ":" in host:
        host = f"[{host}]"
    if not HOST_PATTERN.match(host):
        raise ValueError(f"{like} (no host name)" if not host else f"{like} (a bad host name)")
    return f"{parts.scheme.lower()}://{host}{'' if port is None else f':{port}'}"


class CourseSpec(Strict):
    title: str
    public_url: str | None = None
    database: str | None = None
    roster: str
    instructors: list[str] = Field(default_factory=list)
    timezone: str = "UTC"  # the pages show every date in it
    lti: LtiSpec | None = None  # the LMS this course is launched from (docs/service.md, "LTI 1.3")
    assignments: list[Assignment]

    @field_validator("public_url")
    @classmethod
    def _an_origin(cls, url: str | None) -> str | None:
        return None if url is None else public_origin(url)

    @field_validator("timezone")
    @classmethod
    def _a_zone(cls, name: str) -> str:
        problem = zone_problem(name)
        if problem is not None:
            raise ValueError(f"'{inert_name(name)[:100]}' is {problem}")
        return name

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    @model_validator(mode="after")
    def _unique_names(self) -> CourseSpec:
        names = [assignment.name for assignment in self.assignments]
        for index, name in enumerate(names):
            if name in names[:index]:
                raise LocatedError(("assignments", index, "name"), f"assignment '{name}' is named twice")
        return self


@dataclass
class Person:
    login: str
    name: str
    email: str
    instructor: bool
    section: str = ""  # the roster's optional `section` column (a lab group, a campus)


@dataclass
class Course:
    """A validated course file, its roster, and where the service keeps its files."""

    spec: CourseSpec
    path: Path
    people: dict[str, Person] = field(default_factory=dict)
    public_url: str | None = None  # the origin students use: $GRADER_PUBLIC_URL or public_url

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def database(self) -> str:
        """A SQLite path, or a database URL (postgresql://...)."""
        named = self.spec.database
        if named is None:
            return str(self.folder / f"{self.path.stem}.sqlite")
        if "://" in named:
            return named
        return str(self.folder / named)

    @property
    def state(self) -> Path:
        """The service's files: submissions (content-addressed), gradebooks, its secret key."""
        return self.folder / f"{self.path.stem}-service"

    def gradebook_folder(self, assignment: str) -> Path:
        """Where an assignment's gradebook lives (`grader gradebook FOLDER` reads it)."""
        return self.state / "gradebooks" / assignment

    def assignment(self, name: str) -> Assignment | None:
        return next((a for a in self.spec.assignments if a.name == name), None)

    @property
    def lti_private_key(self) -> Path:
        """The tool's RSA key (`lti.private_key`, or the one the service creates and keeps)."""
        named = self.spec.lti.private_key if self.spec.lti is not None else None
        return self.folder / named if named else self.state / "lti_private_key.pem"


def _suite_problem(course_dir: Path, exercise: str) -> str | None:
    from grader.suite.load import load_suite

    candidate = course_dir / exercise
    target = str(candidate) if exercise.endswith((".yaml", ".yml")) else exercise
    try:
        load_suite(target)
    except UserError as error:
        return str(error)
    return None


def suite_of(course: Course, assignment: Assignment) -> str:
    """What `load_suite` takes for the assignment's exercise (a path relative to the course)."""
    if assignment.exercise.endswith((".yaml", ".yml")):
        return str(course.folder / assignment.exercise)
    return assignment.exercise


def load_course(path: Path, check_suites: bool = True) -> Course:
    """Read and validate a course file and its roster; every problem is one CourseError line."""
    node, data = read_yaml_file(path, "course file", CourseError)
    if not isinstance(data, dict):
        raise CourseError(
            f"{path}: a course file is a mapping with keys title, roster, instructors, assignments"
        )
    try:
        spec = CourseSpec.model_validate(data)
    except ValidationError as error:
        raise CourseError(located_message(path, node, error)) from error
    course = Course(spec=spec, path=path.resolve(), public_url=public_url_for(path, spec))
    roster_path = course.folder / spec.roster
    course.people = read_people(roster_path, set(spec.instructors))
    for index, login in enumerate(spec.instructors):
        if login not in course.people:
            line = line_of(node, ("instructors", index))
            raise CourseError(
                f"{path}:{line}: instructors.{index}: '{inert_text(login)}' is not "
                f"a login of the roster {roster_path}"
            )
    if spec.lti is not None and find_spec("pylti1p3") is None:
        raise CourseError(f"{path}:{line_of(node, ('lti',))}: lti: needs pylti1p3: pip install '.[lti]'")
    if spec.lti is not None and spec.lti.private_key is not None:
        problem = private_key_problem(course.lti_private_key)
        if problem is not None:
            raise CourseError(f"{path}:{line_of(node, ('lti', 'private_key'))}: lti.private_key: {problem}")
    if check_suites:
        for index, assignment in enumerate(spec.assignments):
            problem = _suite_problem(course.folder, assignment.exercise)
            if problem is not None:
                line = line_of(node, ("assignments", index, "exercise"))
                raise CourseError(f"{path}:{line}: assignments.{index}.exercise: {problem}")
            if assignment.tournament is not None:
                problem = tournament_problem(course.folder, assignment.exercise)
                if problem is not None:
                    line = line_of(node, ("assignments", index, "tournament"))
                    raise CourseError(f"{path}:{line}: assignments.{index}.tournament: {problem}")
    return course


def public_url_for(path: Path, spec: CourseSpec) -> str | None:
    """The origin students use: $GRADER_PUBLIC_URL when set (not empty), else the course
    file's public_url (None: no TLS proxy, or none said)."""
    override = os.environ.get(PUBLIC_URL_ENV, "").strip()
    if not override:
        return spec.public_url
    try:
        return public_origin(override)
    except ValueError as error:
        raise CourseError(f"{path}: {PUBLIC_URL_ENV} (overrides public_url): {error}") from None


def read_people(path: Path, instructors: set[str]) -> dict[str, Person]:
    """The roster: a CSV with a `login` column (name, email, section and any others optional)."""
    header, records = read_table(path, "login", CourseError)
    people: dict[str, Person] = {}
    for line, row in records:
        cells: dict[str, Any] = dict(zip(header, (cell.strip() for cell in row), strict=True))
        login = cells["login"]
        if not LOGIN_PATTERN.match(login):
            raise CourseError(
                f"{path}:{line}: login '{inert_text(login)}' is not a plain login "
                f"(letters, digits and . _ @ + -)"
            )
        if login in people:
            raise CourseError(f"{path}:{line}: login '{login}' is listed twice")
        people[login] = Person(
            login=login,
            name=inert_text(cells.get("name", "")),
            email=inert_text(cells.get("email", "")),
            instructor=login in instructors,
            section=inert_text(cells.get("section", ""))[:100],
        )
    return people


def late_minutes(submitted: datetime, due: datetime) -> int:
    """Whole minutes after `due`, rounded up (0 when on time)."""
    seconds = (submitted - due).total_seconds()
    return math.ceil(seconds / 60) if seconds > 0 else 0
