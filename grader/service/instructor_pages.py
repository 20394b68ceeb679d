"""The instructors' pages: the class table, the queue, regrades and releases, extensions, attempts
given back, the audit log and the grades."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from grader.service import jobs
from grader.service.api import course, grades
from grader.service.class_pages import queue_context, table_context
from grader.service.classes import regrade_changes, test_names
from grader.service.course import Assignment
from grader.service.dates import human
from grader.service.form_again import REASON_MAX, Mistake, forgiving
from grader.service.models import (
    AuditEntry,
    Extension,
    Submission,
)
from grader.service.pages import signed_in
from grader.service.policy import (
    release_effect,
    reopening,
    texts_shown_after,
)
from grader.service.suite_changes import suite_state


def _instructor(request: HttpRequest) -> User:
    user = signed_in(request)
    if user is None or not user.is_staff:
        raise PermissionError
    return user


def staff_only(page: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if signed_in(request) is None:
            return redirect("/")
        try:
            _instructor(request)
        except PermissionError:
            return HttpResponse("instructors only", status=403, content_type="text/plain")
        return page(request, *args, **kwargs)

    return guarded


@staff_only
def instructor_home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "service/instructor.html",
        {
            "title": course().spec.title,
            "assignments": course().spec.assignments,
            **queue_context(),
            "lti": course().spec.lti is not None,
        },
    )


def assignment_or_404(name: str) -> Any:
    assignment = course().assignment(name)
    if assignment is None:
        raise Http404(name)
    return assignment


@staff_only
def instructor_assignment(request: HttpRequest, name: str) -> HttpResponse:
    assignment = assignment_or_404(name)
    return render(
        request,
        "service/class.html",
        {
            "a": assignment,
            **table_context(request, course(), assignment),
            "tests": test_names(course(), assignment),
            "changes": regrade_changes(course(), assignment),
            "release": release_status(assignment, jobs.now()),
            "extensions": Extension.objects.filter(assignment=name).select_related("user"),
            "message": done_message(request),
            "lti": course().spec.lti is not None,
            "suite": suite_state(course(), assignment),
        },
    )


# What an instructor's action reports on the class page (?done=CODE): the server's own words
# only, never text from the address (a link with ?done=ANY TEXT would be a phishing aid).
DONE_MESSAGES = {
    "released": "hidden results released",
    "extension": "extension saved",
    "scheduled": "release of hidden results scheduled: it waits for the due date "
    "and every extension (see when below)",
    "regrading": "regrading {count} submission(s)",
    "given_back": "attempt given back",
    "extension_deleted": "extension deleted",
    "release_undone": "release of hidden results undone",
    "chosen": "the submission that counts chosen",
    "unchosen": "the course's rule decides again which submission counts",
    "adjusted": "score adjusted",
    "unadjusted": "score adjustment removed",
    "suite_regrading": "regrading {count} submission(s) onto the suite on disk",
}


def release_status(assignment: Assignment, now: datetime) -> str:
    """One line for the class page: what students see of hidden results, and when that changes."""

    def shown(moment: datetime) -> str:
        return human(moment, course().spec.zone)

    effect = release_effect(assignment)
    if effect is not None:
        if now >= effect.takes_effect:
            return (
                f"released at {shown(effect.takes_effect)} (asked for at "
                f"{shown(effect.requested_at)}); submissions closed since then"
            )
        return (
            f"release scheduled for {shown(effect.takes_effect)}, when "
            f"{effect.waits_for}: until then no student reads a hidden test's failure "
            f"text; from then on no submission is accepted"
        )
    if assignment.hidden == "never":
        return "hidden: never; students see nothing of the hidden tests unless released"
    after = texts_shown_after(assignment)
    if after is None:
        return (
            f"hidden: {assignment.hidden}; failure texts withheld until a release (late "
            f"submissions never close)"
        )
    if now > after:
        return "shown in full: no submission can earn credit any more"
    return (
        f"hidden: {assignment.hidden}; failure texts shown after {shown(after)}, when "
        f"no submission can earn credit any more"
    )


def done_message(request: HttpRequest) -> str:
    """The message of `?done=CODE` (`&count=N` for `regrading`); an unknown code: none."""
    message = DONE_MESSAGES.get(request.GET.get("done", ""), "")
    if "{count}" in message:
        count = request.GET.get("count", "")
        if not (count.isascii() and count.isdigit() and len(count) <= 9):
            return ""
        message = message.format(count=int(count))
    return message


def audit(
    request: HttpRequest,
    action: str,
    assignment: str,
    *,
    student: str = "",
    submission: str = "",
    detail: str = "",
) -> None:
    """One line in the audit log: the signed-in instructor, now (UTC), what and why (the form's
    `reason`, capped)."""
    AuditEntry.objects.create(
        at=jobs.now(),
        actor=_instructor(request).username,
        action=action,
        assignment=assignment,
        student=student[:150],
        submission=submission[:32],
        detail=detail[:200],
        reason=request.POST.get("reason", "").strip()[:REASON_MAX],
    )


@staff_only
def audit_page(request: HttpRequest, name: str) -> HttpResponse:
    assignment = assignment_or_404(name)
    return render(
        request,
        "service/audit.html",
        {
            "a": assignment,
            "entries": AuditEntry.objects.filter(assignment=name).order_by("-at", "-id")[:1000],
        },
    )


def required_reason(request: HttpRequest, action: str) -> str:
    """The form's reason, required and at most REASON_MAX characters (else the `Mistake`)."""
    reason = str(request.POST.get("reason", "")).strip()
    if not reason:
        raise Mistake(f"reason: required to {action}")
    if len(reason) > REASON_MAX:
        raise Mistake(f"reason: at most {REASON_MAX} characters")
    return reason


def student(request: HttpRequest) -> User:
    """The student the form's `login` names (else the `Mistake`)."""
    login = request.POST.get("login", "").strip()[:150]
    user = User.objects.filter(username=login).first()
    if user is None:
        raise Mistake(f"login: no student '{login}' in the roster" if login else "login: required")
    return user


def student_submission(request: HttpRequest, name: str) -> tuple[User, Submission]:
    """The form's `login` and its submission (`submission`: its number or id) to `name`, else
    the `Mistake` saying which is wrong."""
    user = student(request)
    ident = request.POST.get("submission", "").strip().removeprefix("#")[:32]
    mine = Submission.objects.filter(user=user, assignment=name)
    sub = (
        mine.filter(number=int(ident))
        if ident.isascii() and ident.isdigit() and len(ident) <= 9
        else mine.filter(pk=ident)
    ).first()
    if sub is None:
        raise Mistake(f"submission: no such submission of {user.username} to {name}")
    return user, sub


@staff_only
@require_POST
@forgiving("giveback", "give an attempt back")
def give_back(request: HttpRequest, name: str) -> HttpResponse:
    """Give a student's submission back: it no longer counts toward the attempts limit nor as
    their score; it stays visible, marked with the reason (required)."""
    assignment_or_404(name)
    reason = required_reason(request, "give an attempt back")
    user, sub = student_submission(request, name)
    if sub.given_back:
        raise Mistake(f"submission {sub.number} of {user.username} was already given back")
    sub.given_back = reason
    sub.save(update_fields=["given_back"])
    audit(
        request,
        "attempt given back",
        name,
        student=user.username,
        submission=sub.id,
        detail=f"submission {sub.number}",
    )
    return redirect(f"/instructor/{name}?done=given_back")


@staff_only
@require_POST
@forgiving("extension_delete", "delete an extension")
def delete_extension(request: HttpRequest, name: str) -> HttpResponse:
    """Delete a student's extension: the assignment's due date is theirs again (refused when that
    would reopen credit after the hidden failure texts are shown)."""
    assignment = assignment_or_404(name)
    user = student(request)
    kept = Extension.objects.filter(user=user, assignment=name).first()
    if kept is None:
        raise Mistake(f"login: {user.username} has no extension for {name}")
    refused = reopening(assignment, user.username, assignment.due, "deleting the extension", jobs.now())
    if refused is not None:
        raise Mistake(refused)
    kept.delete()
    audit(
        request,
        "extension deleted",
        name,
        student=user.username,
        detail=f"due {kept.due.isoformat()} deleted; due {assignment.due.isoformat()} again",
    )
    return redirect(f"/instructor/{name}?done=extension_deleted")


@staff_only
def grades_page(request: HttpRequest, name: str) -> HttpResponse:
    return grades(request, name)
