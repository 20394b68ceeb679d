"""The instructors' action on a suite changed on disk: regrade the assignment onto it."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from grader.service.api import course
from grader.service.instructor_pages import (
    REASON_MAX,
    _instructor,
    assignment_or_404,
    audit,
    refusal_line,
    staff_only,
)
from grader.service.pins import short
from grader.service.suite_changes import NotConfirmed, regrade_onto


@staff_only
@require_POST
def regrade_onto_suite(request: HttpRequest, name: str) -> HttpResponse:
    """Pin the suite on disk (the one the page showed: `digest`) and grade every submission
    again with it; `confirm=yes` (the form's box) required."""
    assignment = assignment_or_404(name)
    if request.POST.get("confirm") != "yes":
        return refusal_line("confirm: tick the box to grade every submission again with the suite on disk")
    if len(request.POST.get("reason", "")) > REASON_MAX:
        return refusal_line(f"reason: at most {REASON_MAX} characters")
    try:
        change = regrade_onto(
            course(), assignment, request.POST.get("digest", "")[:64], _instructor(request).username
        )
    except NotConfirmed as error:
        return refusal_line(str(error))
    audit(
        request,
        "regrade onto new suite",
        name,
        detail=f"suite {short(change.old_digest)} -> {short(change.new_digest)}: "
        f"{change.queued} submission(s)",
    )
    return redirect(f"/instructor/{name}?done=suite_regrading&count={change.queued}")
