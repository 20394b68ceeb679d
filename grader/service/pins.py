"""Suites pinned per assignment: an assignment grades with the snapshot of its suite taken when
the service first served it (`PinnedSuite`), whatever happens to the suite on disk since; a
difference is a warning for the instructors (`drift`), until they regrade the assignment onto
the suite on disk (`suite_changes.py`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.db import IntegrityError, transaction

from grader.cluster.bundle import ExerciseBundle
from grader.errors import UserError
from grader.service import snapshots
from grader.service.course import Assignment, Course, CourseError, suite_of
from grader.service.models import PinnedSuite
from grader.suite.load import line_of, load_suite, read_yaml_file
from grader.suite.schema import Suite

SHORT = 12  # a digest as the pages show it
LISTED = 8  # names listed in one line of a drift, then "and N more"


def disk_snapshot(course: Course, assignment: Assignment) -> ExerciseBundle:
    """The snapshot of the assignment's suite as it is on disk now (a UserError in one line
    when it cannot be loaded)."""
    return snapshots.snapshot_of(load_suite(suite_of(course, assignment)))


def pin_of(course: Course, assignment: Assignment) -> PinnedSuite:
    """The suite `assignment` grades with: its pin, or, the first time, the suite on disk
    now, stored and pinned (two processes pinning at once keep the first)."""
    found: PinnedSuite | None = PinnedSuite.objects.filter(assignment=assignment.name).first()
    if found is not None:
        return found
    snapshot = disk_snapshot(course, assignment)
    snapshots.store(course.state, snapshot)
    try:
        with transaction.atomic():
            created: PinnedSuite = PinnedSuite.objects.create(
                assignment=assignment.name,
                digest=snapshot.digest,
                suite_file=snapshot.suite,
                pinned_at=datetime.now(UTC),
            )
            return created
    except IntegrityError:
        kept: PinnedSuite = PinnedSuite.objects.get(assignment=assignment.name)
        return kept


def publish(course: Course) -> list[str]:
    """Pin every assignment that has no pin yet (`grader serve` starting); the names pinned. A
    suite that cannot be pinned is a CourseError naming the course file and the assignment."""
    fresh = []
    for index, assignment in enumerate(course.spec.assignments):
        if not PinnedSuite.objects.filter(assignment=assignment.name).exists():
            try:
                pin_of(course, assignment)
            except UserError as error:
                node, _ = read_yaml_file(course.path, "course file", CourseError)
                line = line_of(node, ("assignments", index, "exercise"))
                raise CourseError(f"{course.path}:{line}: assignments.{index}.exercise: {error}") from None
            fresh.append(assignment.name)
    return fresh


_suites: dict[tuple[str, str], Suite] = {}  # (digest, suite file) -> its suite, validated


def pinned_suite(course: Course, assignment: Assignment) -> Suite:
    """The suite `assignment` grades with, read from its snapshot (checked against its digest
    on every call: a SnapshotError when it was changed)."""
    pin = pin_of(course, assignment)
    files = snapshots.read_files(course.state, pin.digest)
    key = (pin.digest, pin.suite_file)
    if key not in _suites:
        _suites[key] = snapshots.suite_in(files, pin.suite_file)
    return _suites[key]


@dataclass
class Drift:
    """How the suite on disk differs from the pinned one: one line per kind of change. `digest`
    is the snapshot of the suite on disk (None when it cannot be used: `problem` says why)."""

    pinned: str
    digest: str | None
    lines: list[str] = field(default_factory=list)
    problem: str = ""


def drift(course: Course, assignment: Assignment) -> Drift | None:
    """What changed between the pinned suite and the suite on disk; None when nothing did."""
    pin = pin_of(course, assignment)
    try:
        old_files: dict[str, bytes] | None = snapshots.read_files(course.state, pin.digest)
        problem = ""
    except UserError as error:
        old_files, problem = None, str(error)
    try:
        now = disk_snapshot(course, assignment)
    except UserError as error:
        return Drift(pin.digest, None, problem=problem or f"the suite on disk cannot be loaded: {error}")
    if old_files is None:
        return Drift(pin.digest, now.digest, problem=problem)
    if now.digest == pin.digest:
        return None
    new_files = now.files()
    old = snapshots.suite_in(old_files, pin.suite_file)
    new = snapshots.suite_in(new_files, now.suite)
    lines = suite_differences(old, new)
    changed = sorted(
        name
        for name in set(old_files) | set(new_files)
        if old_files.get(name) != new_files.get(name) and name not in {pin.suite_file, now.suite}
    )
    if changed:
        lines.append(f"files changed: {listed(changed)}")
    return Drift(pin.digest, now.digest, lines or ["the suite file changed (comments or layout only)"])


def suite_differences(old: Suite, new: Suite) -> list[str]:
    """What changed between two suites, in lines an instructor reads: the maximum score, tests
    added and removed, points moved, tests otherwise changed, other settings."""
    lines = []
    if old.total_points != new.total_points:
        lines.append(f"max score {old.total_points:g} -> {new.total_points:g}")
    before = {test.name: test for test in old.tests}
    after = {test.name: test for test in new.tests}
    added = [name for name in after if name not in before]
    removed = [name for name in before if name not in after]
    if added:
        lines.append(f"tests added: {listed(added)}")
    if removed:
        lines.append(f"tests removed: {listed(removed)}")
    both = [name for name in after if name in before]
    moved = [
        f"{name} {before[name].points:g} -> {after[name].points:g}"
        for name in both
        if before[name].points != after[name].points
    ]
    if moved:
        lines.append(f"points changed: {listed(moved)}")
    otherwise = [
        name
        for name in both
        if before[name].model_dump(exclude={"points"}) != after[name].model_dump(exclude={"points"})
    ]
    if otherwise:
        lines.append(f"tests changed otherwise: {listed(otherwise)}")
    old_rest, new_rest = old.model_dump(exclude={"tests"}), new.model_dump(exclude={"tests"})
    settings = [key for key in new_rest if old_rest.get(key) != new_rest[key]]
    if settings:
        lines.append(f"settings changed: {listed(settings)}")
    return lines


def short(digest: str) -> str:
    return digest[:SHORT]


def listed(names: list[str]) -> str:
    """`names` joined, at most LISTED of them.

    >>> listed(["a", "b"])
    'a, b'
    >>> listed([str(n) for n in range(10)])
    '0, 1, 2, 3, 4, 5, 6, 7 and 2 more'
    """
    shown = ", ".join(names[:LISTED])
    return shown if len(names) <= LISTED else f"{shown} and {len(names) - LISTED} more"
