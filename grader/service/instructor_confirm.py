"""Release and regrade, each behind a confirmation page, and the undo of a release (allowed
until a student has read a hidden test's failure text it showed)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from grader.service import jobs
from grader.service.api import course
from grader.service.classes import test_names
from grader.service.dates import human
from grader.service.form_again import REASON_MAX, Mistake, forgiving
from grader.service.instructor_pages import assignment_or_404, audit, release_status, staff_only
from grader.service.models import ERROR, GRADED, Extension, Release, Submission
from grader.service.policy import release_effect

# The confirmation page's button sends confirm=yes; a POST without it only shows that page.
CONFIRMED = "yes"


def confirm_page(
    request: HttpRequest, name: str, action: str, consequences: list[str], target: str = ""
) -> HttpResponse:
    """The page that asks an instructor to confirm `action`, POSTing to /instructor/NAME/`target`
    (default: /instructor/NAME/`action`) with confirm=yes."""
    return render(
        request,
        "service/confirm.html",
        {
            "a": assignment_or_404(name),
            "action": action,
            "consequences": consequences,
            "test": request.POST.get("test", request.GET.get("test", ""))[:200],
            "reason": request.POST.get("reason", request.GET.get("reason", ""))[:REASON_MAX],
            "target": target or action,
        },
    )


@staff_only
@require_http_methods(["GET", "POST"])
@forgiving("regrade", "regrade")
def regrade(request: HttpRequest, name: str) -> HttpResponse:
    """GET (or a POST without confirm=yes): what a regrade would do; confirmed: queue it."""
    assignment = assignment_or_404(name)
    test = request.POST.get("test", request.GET.get("test", ""))[:200]
    if test and test not in test_names(course(), assignment):
        raise Mistake(f"test: no test '{test}' in the suite")
    if request.method != "POST" or request.POST.get("confirm") != CONFIRMED:
        waiting = Submission.objects.filter(assignment=name, status__in=[GRADED, ERROR]).count()
        return confirm_page(
            request,
            name,
            "regrade",
            [
                f"{waiting} graded submission(s) of {name} are queued again, "
                f"{'test ' + test if test else 'every test'}; a changed score shows on the class page",
                "students' new uploads are graded before any regrade job",
            ],
        )
    count = jobs.regrade(name, [test] if test else None)
    audit(request, "regrade", name, detail=f"{test or 'every test'}: {count} submission(s)")
    return redirect(f"/instructor/{name}?done=regrading&count={count}")


@staff_only
@require_http_methods(["GET", "POST"])
def release(request: HttpRequest, name: str) -> HttpResponse:
    """GET (or a POST without confirm=yes): what a release would do; confirmed: release."""
    assignment = assignment_or_404(name)
    if request.method != "POST" or request.POST.get("confirm") != CONFIRMED:
        latest = Extension.objects.filter(assignment=name).order_by("-due").first()
        waits = max([assignment.due, *([latest.due] if latest else [])])
        zone = course().spec.zone
        return confirm_page(
            request,
            name,
            "release",
            [
                f"every student reads every hidden test in full once the due date and every "
                f"extension have passed (now: {release_status(assignment, jobs.now())})",
                f"from then on ({human(max(waits, jobs.now()), zone)} at the earliest) "
                f"{name} accepts no submission, late ones included",
                "it can be undone until a student has read a hidden test's failure text",
            ],
        )
    _, created = Release.objects.get_or_create(assignment=name, defaults={"released_at": jobs.now()})
    audit(request, "release", name, detail="" if created else "already asked for")
    effect = release_effect(assignment)
    done = "released" if effect is not None and jobs.now() >= effect.takes_effect else "scheduled"
    return redirect(f"/instructor/{name}?done={done}")


@staff_only
@require_POST
@forgiving("release_undo", "undo the release")
def undo_release(request: HttpRequest, name: str) -> HttpResponse:
    """Withdraw a release, unless a student already read a failure text it showed."""
    assignment_or_404(name)
    kept = Release.objects.filter(assignment=name).first()
    if kept is None:
        raise Mistake(f"{name} has no release to undo")
    if kept.first_seen_at is not None:
        raise Mistake(
            f"{name}'s release cannot be undone: {kept.first_seen_by} read a hidden test's "
            f"failure text at {kept.first_seen_at.isoformat()}"
        )
    # Only while still unseen: a student reading it meanwhile keeps it.
    if not Release.objects.filter(pk=kept.pk, first_seen_at__isnull=True).delete()[0]:
        raise Mistake(f"{name}'s release cannot be undone: a student has read a failure text")
    audit(request, "release undone", name, detail=f"asked for at {kept.released_at.isoformat()}")
    return redirect(f"/instructor/{name}?done=release_undone")
