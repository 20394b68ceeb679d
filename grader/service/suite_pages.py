"""The instructors' action on a suite changed on disk: regrade the assignment onto it."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from grader.service.api import course
from grader.service.form_again import REASON_MAX, Mistake, forgiving
from grader.service.instructor_pages import _instructor, assignment_or_404, audit, staff_only
from grader.service.pins import short
from grader.service.suite_changes import NotConfirmed, regrade_onto


@staff_only
@require_POST
@forgiving("suite_regrade", "regrade onto the suite on disk")
def regrade_onto_suite(request: HttpRequest, name: str) -> HttpResponse:
    """Pin the suite on disk (the one the page showed: `digest`) and grade every submission
    again with it; `confirm=yes` (the form's box) required."""
    assignment = assignment_or_404(name)
    if request.POST.get("confirm") != "yes":
        raise Mistake("confirm: tick the box to grade every submission again with the suite on disk")
    if len(request.POST.get("reason", "")) > REASON_MAX:
        raise Mistake(f"reason: at most {REASON_MAX} characters")
    try:
        change = regrade_onto(
            course(), assignment, request.POST.get("digest", "")[:64], _instructor(request).username
        )
    except NotConfirmed as error:
        raise Mistake(str(error)) from None
    audit(
        request,
        "regrade onto new suite",
        name,
        detail=f"suite {short(change.old_digest)} -> {short(change.new_digest)}: "
        f"{change.queued} submission(s)",
    )
    return redirect(f"/instructor/{name}?done=suite_regrading&count={change.queued}")
