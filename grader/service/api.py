"""The JSON API: `POST /api/submissions`, `GET /api/submissions/ID`,
`GET /api/assignments/NAME/grades.csv`. Token (Bearer) or session authentication; every refusal
is a 4xx with `{"error": "one line"}`: a wrong method 405 (with `Allow`), an unknown address 404.

No view here needs Django's CSRF check: `POST /api/submissions` authenticates by token only (a
cross-site form cannot send an Authorization header), and the views that also accept the pages'
session cookie answer GET and HEAD only (every other method is a 405 before anything is read)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation, TooManyFilesSent
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.views.decorators.csrf import csrf_exempt

from grader.inert import inert_name
from grader.report.grades import LMS_FORMATS
from grader.service import jobs
from grader.service.course import Course
from grader.service.models import Submission
from grader.service.people import user_of_token
from grader.service.policy import view
from grader.service.queue_place import place_of
from grader.service.release_seen import note_texts_read
from grader.service.setup import MAX_UPLOAD_BYTES, MAX_UPLOAD_FILES
from grader.service.storage import UploadError, UploadTooLarge
from grader.service.uploads import NOT_UTF8


def course() -> Course:
    found: Course = settings.GRADER_COURSE
    return found


def error(message: str, status: int) -> JsonResponse:
    response = JsonResponse({"error": message}, status=status)
    if status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="grader"'
    return response


def methods(*allowed: str) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """The view answers `allowed` methods only, any other with a 405 naming them in `Allow`;
    CSRF-exempt (see above: nothing unsafe is ever done on a session cookie's word)."""

    def decorate(answer: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @functools.wraps(answer)
        def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method not in allowed:
                response = error(
                    f"{str(request.method)[:16]} is not allowed here: {', '.join(allowed)} only", 405
                )
                response["Allow"] = ", ".join(allowed)
                return response
            return answer(request, *args, **kwargs)

        exempt: Callable[..., HttpResponse] = csrf_exempt(guarded)
        return exempt

    return decorate


@csrf_exempt
def unknown(request: HttpRequest, rest: str = "") -> HttpResponse:
    """Any other address under /api/."""
    return error(
        "no such API address: POST /api/submissions, GET /api/submissions/ID, "
        "GET /api/assignments/NAME/grades.csv",
        404,
    )


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's 400 (a suspicious request): JSON under /api/, one plain line elsewhere."""
    if request.path.startswith("/api"):
        return error("a malformed request", 400)
    return HttpResponse("a malformed request", status=400, content_type="text/plain")


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's 500 (a bug: its traceback goes to the log): JSON under /api/, else one line."""
    if request.path.startswith("/api"):
        return error("internal error: the service's log has the details", 500)
    return HttpResponse(
        "internal error: the service's log has the details", status=500, content_type="text/plain"
    )


def caller(request: HttpRequest, session: bool = True) -> User | None:
    """The user of a Bearer token, else (pages' scripts) the signed-in session's user."""
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _, token = header.partition(" ")
        return user_of_token(token.strip()) if scheme.lower() == "bearer" else None
    if session and request.user.is_authenticated and request.user.is_active:
        user: User = request.user
        return user
    return None


def upload_files(request: HttpRequest) -> tuple[str, list[tuple[str, bytes]]]:
    """The form's `assignment` and `files`; an oversized or malformed body is an UploadError."""
    length = request.META.get("CONTENT_LENGTH") or "0"
    if not (length.isascii() and length.isdigit()) or int(length) > MAX_UPLOAD_BYTES:
        raise UploadTooLarge(f"the upload is larger than {MAX_UPLOAD_BYTES // 2**20} MB")
    try:
        name = request.POST.get("assignment", "")
        uploads = request.FILES.getlist("files")
    except TooManyFilesSent as failure:
        raise UploadError(f"too many files: at most {MAX_UPLOAD_FILES}") from failure
    except RequestDataTooBig as failure:
        raise UploadTooLarge(f"the upload is larger than {MAX_UPLOAD_BYTES // 2**20} MB") from failure
    except (MultiPartParserError, SuspiciousOperation) as failure:
        raise UploadError("not a readable multipart form (fields 'assignment' and 'files')") from failure
    if getattr(request, NOT_UTF8, False):
        raise UploadError(
            "a file name (or a part's header) is not UTF-8: name the files in "
            "UTF-8, with letters, digits, '_', '-' and '.'"
        )
    files = [(upload.name or "", upload.read()) for upload in uploads]
    return name, files


def submit(request: HttpRequest, user: User, name: str, files: list[tuple[str, bytes]]) -> Submission:
    """Accept a submission (raises Refused or UploadError)."""
    assignment = course().assignment(name)
    if assignment is None:
        raise jobs.Refused(
            f"no assignment named '{name[:64]}'" if name else "the form needs an 'assignment' field",
            404 if name else 400,
        )
    return jobs.accept(course(), user, assignment, files)


@methods("POST")  # token authentication only: a cross-site form cannot send that header
def submissions(request: HttpRequest) -> HttpResponse:
    user = caller(request, session=False)
    if user is None:
        return error("no or wrong token: send Authorization: Bearer TOKEN", 401)
    try:
        name, files = upload_files(request)
        sub = submit(request, user, name, files)
    except jobs.Refused as refused:
        return error(str(refused), refused.status)
    except UploadError as bad:
        return error(str(bad), bad.status)
    return JsonResponse({"id": sub.id, "status": sub.status}, status=202)


@methods("GET", "HEAD")
def submission(request: HttpRequest, ident: str) -> HttpResponse:
    user = caller(request)
    if user is None:
        return error("no or wrong token: send Authorization: Bearer TOKEN", 401)
    sub = Submission.objects.select_related("user").filter(pk=ident[:32]).first()
    if sub is None or (sub.user_id != user.pk and not user.is_staff):
        return error("no such submission", 404)
    assignment = course().assignment(sub.assignment)
    if assignment is None:
        return error("no such submission", 404)
    note_texts_read(assignment, user, sub, jobs.now())
    body: dict[str, Any] = view(sub, assignment, user, jobs.now())
    body["queue"] = place_of(sub, jobs.now())
    return JsonResponse(body)


@methods("GET", "HEAD")
def grades(request: HttpRequest, name: str) -> HttpResponse:
    from grader.service.classes import grades_csv, lms_grades_csv

    user = caller(request)
    if user is None:
        return error("no or wrong token: send Authorization: Bearer TOKEN", 401)
    if not user.is_staff:
        return error("instructors only", 403)
    assignment = course().assignment(name)
    if assignment is None:
        return error(f"no assignment named '{name[:64]}'", 404)
    lms = request.GET.get("format", "")
    if lms and lms not in LMS_FORMATS:
        return error(
            f"no format '{inert_name(lms)[:32]}': format={' or format='.join(LMS_FORMATS)}"
            f", or none for the grader's own columns",
            400,
        )
    text = lms_grades_csv(course(), assignment, lms) if lms else grades_csv(course(), assignment)
    response = HttpResponse(text, content_type="text/csv")
    suffix = f"-{lms}" if lms else ""
    response["Content-Disposition"] = f'attachment; filename="{assignment.name}-grades{suffix}.csv"'
    return response
