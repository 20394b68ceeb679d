"""An instructor's corrections of a student's grade, each with a reason, each reversible: the
submission that counts (over the course's `counts:` rule) and a manual score or points
adjustment (`policy.final_score` applies it)."""

from __future__ import annotations

import math

from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from grader.service.api import course
from grader.service.classes import adjustment_text
from grader.service.form_again import Mistake, forgiving
from grader.service.instructor_pages import (
    assignment_or_404,
    audit,
    required_reason,
    staff_only,
    student,
    student_submission,
)
from grader.service.models import GRADED, Submission
from grader.service.policy import ADD_POINTS, SET_SCORE, final_score

ADJUSTMENTS = {SET_SCORE: "manual score", ADD_POINTS: "points adjustment"}


def pass_back(submission_id: str) -> None:
    """The student's score to the LMS again (an LTI course: `lti_grades.post_after_grading`,
    which logs the LMS's failure and never raises)."""
    if course().spec.lti is not None:
        from grader.service.lti_grades import post_after_grading  # pylti1p3: the `lti` extra

        post_after_grading(course(), submission_id)


@staff_only
@require_POST
@forgiving("choose", "choose the submission that counts")
def choose(request: HttpRequest, name: str) -> HttpResponse:
    """This submission counts for its student, whatever the course's `counts:` rule says."""
    assignment_or_404(name)
    reason = required_reason(request, "choose the submission that counts")
    user, sub = student_submission(request, name)
    if sub.given_back:
        raise Mistake(f"submission {sub.number} of {user.username} was given back: it cannot count")
    if sub.status != GRADED:
        raise Mistake(f"submission {sub.number} of {user.username} is {sub.status}: not graded")
    with transaction.atomic():
        Submission.objects.filter(user=user, assignment=name).exclude(pk=sub.pk).update(chosen="")
        Submission.objects.filter(pk=sub.pk).update(chosen=reason)
    audit(
        request,
        "counted submission chosen",
        name,
        student=user.username,
        submission=sub.id,
        detail=f"submission {sub.number} counts",
    )
    pass_back(sub.id)
    return redirect(f"/instructor/{name}?done=chosen")


@staff_only
@require_POST
@forgiving("choose_undo", "let the rule decide which submission counts")
def unchoose(request: HttpRequest, name: str) -> HttpResponse:
    """The course's `counts:` rule decides again which of the student's submissions counts."""
    assignment_or_404(name)
    user = student(request)
    chosen = Submission.objects.filter(user=user, assignment=name).exclude(chosen="").first()
    if chosen is None:
        raise Mistake(f"no submission of {user.username} to {name} was chosen to count")
    Submission.objects.filter(user=user, assignment=name).update(chosen="")
    audit(
        request,
        "counted choice removed",
        name,
        student=user.username,
        submission=chosen.id,
        detail=f"submission {chosen.number} no longer chosen",
    )
    pass_back(chosen.id)
    return redirect(f"/instructor/{name}?done=unchosen")


def points_of(text: str) -> float | None:
    """A number of points written in the form (at most 1e6 either way), else None.

    >>> points_of("2.5"), points_of("-1"), points_of("nan"), points_of("1e9"), points_of("x")
    (2.5, -1.0, None, None, None)
    """
    try:
        value = float(text.strip()[:32])
    except ValueError:
        return None
    return value if math.isfinite(value) and abs(value) <= 1e6 else None


@staff_only
@require_POST
@forgiving("adjust", "adjust a score")
def adjust(request: HttpRequest, name: str) -> HttpResponse:
    """A manual score (`kind=score`: the final score is `points`) or a points adjustment
    (`kind=points`: added to the final score) on one submission, with a reason."""
    assignment_or_404(name)
    kind = request.POST.get("kind", "")
    if kind not in ADJUSTMENTS:
        raise Mistake(f"kind: {SET_SCORE} (a manual score) or {ADD_POINTS} (points added or taken)")
    points = points_of(request.POST.get("points", ""))
    if points is None:
        raise Mistake("points: a number, e.g. 17 or -2.5")
    if kind == SET_SCORE and points < 0:
        raise Mistake("points: a manual score is 0 or more")
    reason = required_reason(request, "adjust a score")
    user, sub = student_submission(request, name)
    if sub.status != GRADED:
        raise Mistake(f"submission {sub.number} of {user.username} is {sub.status}: not graded")
    most = sub.max_score or 0.0
    if kind == SET_SCORE and points > most:
        raise Mistake(f"points: a manual score is at most {most:g}, the most this submission's suite gives")
    before = final_score(sub)
    sub.adjusted_kind, sub.adjusted_points, sub.adjusted_reason = kind, points, reason
    sub.save(update_fields=["adjusted_kind", "adjusted_points", "adjusted_reason"])
    audit(
        request,
        "score adjusted",
        name,
        student=user.username,
        submission=sub.id,
        detail=f"submission {sub.number}: {adjustment_text(kind, points)}, final score "
        f"{before or 0.0:g} -> {final_score(sub) or 0.0:g}",
    )
    pass_back(sub.id)
    return redirect(f"/instructor/{name}?done=adjusted")


@staff_only
@require_POST
@forgiving("adjust_undo", "remove a score adjustment")
def unadjust(request: HttpRequest, name: str) -> HttpResponse:
    """Remove a submission's manual score or points adjustment."""
    assignment_or_404(name)
    user, sub = student_submission(request, name)
    if not sub.adjusted_kind:
        raise Mistake(f"submission {sub.number} of {user.username} has no adjustment")
    before = final_score(sub)
    sub.adjusted_kind, sub.adjusted_points, sub.adjusted_reason = "", None, ""
    sub.save(update_fields=["adjusted_kind", "adjusted_points", "adjusted_reason"])
    audit(
        request,
        "adjustment removed",
        name,
        student=user.username,
        submission=sub.id,
        detail=f"submission {sub.number}: final score {before or 0.0:g} -> {final_score(sub) or 0.0:g}",
    )
    pass_back(sub.id)
    return redirect(f"/instructor/{name}?done=unadjusted")
