"""The web pages: sign in with a token, assignments and uploads, a submission's page (it follows
its grading, then shows the student-safe feedback). The instructors' are in instructor_pages."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from django.contrib.auth import login, logout
from django.contrib.auth.models import User
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_POST

from grader.service import jobs
from grader.service.api import course, submit, upload_files
from grader.service.models import (
    Submission,
)
from grader.service.people import user_of_token
from grader.service.policy import (
    due_for,
)
from grader.service.release_seen import note_texts_read
from grader.service.shown import home_rows, statement_html, submission_view
from grader.service.storage import UploadError

STATIC = Path(__file__).resolve().parent / "static"
SHARED = Path(__file__).resolve().parent.parent / "report"
# name -> (the file, its content type); sortable.js and verdicts.css are the reports' own (the
# batch summary's sorting script, the verdicts' colours).
STATIC_FILES = {
    "grader.js": (STATIC / "grader.js", "text/javascript"),
    "grader.css": (STATIC / "grader.css", "text/css"),
    "simple.css": (STATIC / "simple.css", "text/css"),
    "sortable.js": (SHARED / "sortable.js", "text/javascript"),
    "verdicts.css": (SHARED / "verdicts.css", "text/css"),
}
# No inline script or style anywhere: what a submission printed can never run in a page.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)


def content_security_policy(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[[HttpRequest], HttpResponse]:
    """Middleware: every response carries the Content-Security-Policy."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        response["Content-Security-Policy"] = CSP
        return response

    return middleware


def never_cached(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[[HttpRequest], HttpResponse]:
    """Middleware: every answer but the static files is `Cache-Control: no-store` (with
    `private`...): a student's page or scores never stay in a shared or browser cache."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        if not request.path.startswith("/static/"):
            add_never_cache_headers(response)
        return response

    return middleware


def static(request: HttpRequest, name: str) -> HttpResponse:
    if name not in STATIC_FILES:
        raise Http404(name)
    path, content_type = STATIC_FILES[name]
    return FileResponse(path.open("rb"), content_type=content_type)


def signed_in(request: HttpRequest) -> User | None:
    if request.user.is_authenticated and request.user.is_active:
        user: User = request.user
        return user
    return None


def home(request: HttpRequest) -> HttpResponse:
    problem = ""
    if request.method == "POST":  # CSRF-checked by the middleware
        user = user_of_token(request.POST.get("token", "").strip())
        if user is not None:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect("/")
        problem = "That token signs nobody in."
    user = signed_in(request)
    if user is None:
        return render(
            request,
            "service/signin.html",
            {"title": course().spec.title, "problem": problem},
            status=401 if problem else 200,
        )
    return render(
        request,
        "service/home.html",
        {"title": course().spec.title, "user": user, "assignments": home_rows(course(), user, jobs.now())},
    )


@require_POST
def signout(request: HttpRequest) -> HttpResponse:
    logout(request)
    return redirect("/")


def assignment_page(request: HttpRequest, name: str) -> HttpResponse:
    user = signed_in(request)
    if user is None:
        return redirect("/")
    assignment = course().assignment(name)
    if assignment is None:
        raise Http404(name)
    problem, status = "", 200
    if request.method == "POST":
        try:
            _, files = upload_files(request)
            sub = submit(request, user, name, files)
            return redirect(f"/submissions/{sub.id}")
        except jobs.Refused as refused:
            problem, status = str(refused), refused.status
        except UploadError as bad:
            problem, status = str(bad), bad.status
    used = jobs.attempts_used(user, name)
    return render(
        request,
        "service/assignment.html",
        {
            "a": assignment,
            "due": due_for(assignment, user),
            "problem": problem,
            "left": None if assignment.attempts is None else assignment.attempts - used,
            "mine": Submission.objects.filter(user=user, assignment=name).order_by("-number"),
            "statement": statement_html(course(), assignment),
        },
        status=status,
    )


def submission_page(request: HttpRequest, ident: str) -> HttpResponse:
    user = signed_in(request)
    if user is None:
        return redirect("/")
    sub = Submission.objects.select_related("user").filter(pk=ident[:32]).first()
    if sub is None or (sub.user_id != user.pk and not user.is_staff):
        raise Http404("no such submission")
    assignment = course().assignment(sub.assignment)
    if assignment is None:
        raise Http404("no such submission")
    note_texts_read(assignment, user, sub, jobs.now())
    data = submission_view(course(), sub, assignment, user, jobs.now())
    return render(request, "service/submission.html", {"s": data, "sub": sub, "a": assignment})
