"""What the instructors' class table and queue show: the table's rows as searched and filtered
(a GET form: it works without JavaScript), its per-question columns and statistics, the
extension form's choices; the queue in the order the workers serve it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth.models import User
from django.http import HttpRequest

from grader.report.grades import number
from grader.service import jobs
from grader.service.class_stats import class_stats
from grader.service.classes import LATE, MISSING, Row, class_rows, parts_of, suite_points
from grader.service.course import Assignment, Course
from grader.service.models import QUEUED, RUNNING, Submission

SEARCH_MAX = 100  # characters of a search or filter value read from the address
# Every status a row can have, in the order the filter offers them.
STATUSES = (
    "graded",
    LATE,
    "CE",
    "empty",
    "not-submitted-files",
    "corrupt",
    "JE",
    MISSING,
    QUEUED,
    RUNNING,
    "error",
)
QUEUE_SHOWN = 200  # jobs listed on the queue page


@dataclass(frozen=True)
class Filters:
    text: str  # a part of the login or name, any case
    section: str  # exactly
    status: str  # exactly

    def keep(self, row: Row) -> bool:
        wanted = self.text.casefold()
        return (
            (not wanted or wanted in row.login.casefold() or wanted in row.name.casefold())
            and (not self.section or row.section == self.section)
            and (not self.status or row.status == self.status)
        )

    @property
    def active(self) -> bool:
        return bool(self.text or self.section or self.status)


@dataclass(frozen=True)
class Line:
    """A row of the table with its per-question cells (points, or None: nothing counted)."""

    row: Row
    cells: list[float | None]


def filters_of(request: HttpRequest) -> Filters:
    def read(key: str) -> str:
        return str(request.GET.get(key, "")).strip()[:SEARCH_MAX]

    return Filters(read("q"), read("section"), read("status"))


def table_context(request: HttpRequest, course: Course, assignment: Assignment) -> dict[str, Any]:
    """The class page's table: the rows the filters keep, the columns, the statistics of the
    rows shown, and what the filter form offers."""
    parts = parts_of(course, assignment)
    rows = class_rows(course, assignment, parts)
    filters = filters_of(request)
    shown = [row for row in rows if filters.keep(row)]
    present = {row.status for row in rows}
    return {
        "parts": parts,
        "lines": [Line(row, [row.part_points.get(part.id) for part in parts]) for row in shown],
        "all_count": len(rows),
        "filters": filters,
        "sections": sorted({row.section for row in rows if row.section}),
        "statuses": [status for status in STATUSES if status in present or status == filters.status],
        "stats": class_stats(parts, shown),
        "max_score": number(suite_points(course, assignment)),
        **extension_form_context(course, assignment),
    }


def picker_value(moment: datetime, zone: ZoneInfo) -> str:
    """`moment` as a date picker (input type=datetime-local) shows it, in `zone`."""
    return moment.astimezone(zone).strftime("%Y-%m-%dT%H:%M")


def extension_form_context(course: Course, assignment: Assignment) -> dict[str, Any]:
    """What the extension form needs beside what was typed: the course's zone, the students'
    logins to choose from, the assignment's due date as the picker's first value."""
    return {
        "zone": course.spec.timezone,
        "logins": list(
            User.objects.filter(is_staff=False).order_by("username").values_list("username", flat=True)
        ),
        "suggested": picker_value(assignment.due, course.spec.zone),
    }


@dataclass(frozen=True)
class QueuedJob:
    position: int | None  # 1: the next to be claimed; None: running
    sub: Submission
    kind: str  # "upload" (a student waits) or "regrade"


def queue_context() -> dict[str, Any]:
    """The running jobs, then the queued ones in the order the workers will claim them."""
    running = list(Submission.objects.filter(status=RUNNING).select_related("user").order_by("heartbeat"))
    order = jobs.served_order()[:QUEUE_SHOWN]
    waiting = Submission.objects.select_related("user").in_bulk(order)
    queued = [waiting[pk] for pk in order if pk in waiting and waiting[pk].status == QUEUED]

    def kind(sub: Submission) -> str:
        return "upload" if sub.generation == jobs.FIRST_GRADING else "regrade"

    return {
        "jobs": [QueuedJob(None, sub, kind(sub)) for sub in running]
        + [QueuedJob(index + 1, sub, kind(sub)) for index, sub in enumerate(queued)],
        "queued": Submission.objects.filter(status=QUEUED).count(),
        "running": len(running),
    }
