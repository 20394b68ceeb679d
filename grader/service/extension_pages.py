"""An extension: a student's own due date, given with a date picker in the course's time zone; a
mistake shows the form again, with its message and what was typed."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from grader.service import jobs
from grader.service.api import course
from grader.service.class_pages import extension_form_context
from grader.service.course import EARLIEST, LATEST, in_utc
from grader.service.form_again import REASON_MAX, field_named
from grader.service.instructor_pages import assignment_or_404, audit, staff_only
from grader.service.models import Extension
from grader.service.policy import reopening

DUE_MAX = 64  # characters of a due date read from the form


class BadDue(ValueError):
    """A due date the form cannot take: the message says what it takes."""


def due_date(text: str, zone: ZoneInfo) -> datetime:
    """An extension's due date in UTC: the date picker's `2026-12-03T23:59` in the course's
    `zone`, or ISO 8601 with its own offset (scripts), between EARLIEST and LATEST once in UTC.

    >>> paris = ZoneInfo("Europe/Paris")
    >>> due_date("2026-12-03T23:59", paris).isoformat()
    '2026-12-03T22:59:00+00:00'
    >>> due_date("2026-12-03T23:59:00+00:00", paris).isoformat()
    '2026-12-03T23:59:00+00:00'
    >>> try:
    ...     due_date("2027-03-28T02:30", paris)
    ... except BadDue as bad:
    ...     print(bad)
    due: 2027-03-28T02:30 does not exist in Europe/Paris (the clocks skip it)
    """
    said = text.strip()
    if not said:
        raise BadDue("due: required (a date and a time)")
    shape = (
        f"due: a date and a time (in {zone.key}), e.g. 2026-12-03T23:59, or ISO 8601 with its "
        f"offset, between {EARLIEST.year} and {LATEST.year}"
    )
    if len(said) > DUE_MAX:
        raise BadDue(shape)
    try:
        parsed = datetime.fromisoformat(said)
    except ValueError:
        raise BadDue(shape) from None
    if parsed.tzinfo is None:
        local = parsed.replace(tzinfo=zone)
        utc = in_utc(local)
        if utc is not None and utc.astimezone(zone).replace(tzinfo=None) != parsed:
            raise BadDue(f"due: {said} does not exist in {zone.key} (the clocks skip it)")
        parsed = local
    moved = in_utc(parsed)
    if moved is None:
        raise BadDue(shape)
    return moved


@staff_only
@require_POST
def extension(request: HttpRequest, name: str) -> HttpResponse:
    assignment = assignment_or_404(name)
    login = request.POST.get("login", "").strip()[:150]
    typed = request.POST.get("due", "")[: DUE_MAX * 2]
    reason = request.POST.get("reason", "")[:REASON_MAX]

    def again(problem: str) -> HttpResponse:
        """The form once more, with the problem and what was typed (a 400)."""
        return render(
            request,
            "service/extension.html",
            {
                "a": assignment,
                "problem": problem,
                "invalid": field_named(problem),
                "entered": {"login": login, "due": typed, "reason": reason},
                **extension_form_context(course(), assignment),
            },
            status=400,
        )

    try:
        due = due_date(typed, course().spec.zone)
    except BadDue as bad:
        return again(str(bad))
    user = User.objects.filter(username=login).first()
    if user is None:
        return again(f"login: no student '{login}' in the roster" if login else "login: required")
    refused = reopening(assignment, user.username, due, "an extension", jobs.now())
    if refused is not None:
        return again(refused)
    _, created = Extension.objects.update_or_create(user=user, assignment=name, defaults={"due": due})
    audit(
        request,
        "extension granted" if created else "extension changed",
        name,
        student=user.username,
        detail=f"due {due.isoformat()}",
    )
    return redirect(f"/instructor/{name}?done=extension")
