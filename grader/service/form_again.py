"""A mistake in an instructor's form: the form once more, the message beside it and what was
typed in it, a 400 (grader/service/extension_pages.py shows the extension form the same way)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from grader.service.api import course
from grader.service.classes import test_names

REASON_MAX = 2000  # characters of a reason
TYPED_MAX = 200  # characters of any other field shown again
# The fields of the instructors' forms a mistake shows again.
FIELDS = ("login", "submission", "kind", "points", "test", "digest")
View = Callable[..., HttpResponse]


class Mistake(ValueError):
    """A form the service cannot act on: the message names the field and what it takes."""


def field_named(problem: str) -> str:
    """The field a mistake's message starts with (`login: no student ...`), else "".

    >>> field_named("login: no student 'x' in the roster"), field_named("open has no release")
    ('login', '')
    """
    field = problem.split(":", 1)[0]
    return field if ":" in problem and field.isidentifier() and " " not in field else ""


def typed(request: HttpRequest) -> dict[str, str]:
    """What the form held, capped (the template escapes it)."""
    kept = {field: str(request.POST.get(field, ""))[:TYPED_MAX] for field in FIELDS}
    return {**kept, "reason": str(request.POST.get("reason", ""))[:REASON_MAX]}


def forgiving(form: str, heading: str) -> Callable[[View], View]:
    """A view of `/instructor/NAME/...` whose `Mistake` shows the form `form`
    (templates/service/forms/FORM.html) again under the title `heading`."""

    def wrap(view: View) -> View:
        @wraps(view)
        def page(request: HttpRequest, name: str) -> HttpResponse:
            try:
                return view(request, name)
            except Mistake as mistake:
                assignment = course().assignment(name)
                if assignment is None:
                    raise Http404(name) from None
                return render(
                    request,
                    "service/form_again.html",
                    {
                        "a": assignment,
                        "heading": heading,
                        "form": f"service/forms/{form}.html",
                        "problem": str(mistake),
                        "invalid": field_named(str(mistake)),
                        "entered": typed(request),
                        "tests": test_names(course(), assignment) if form == "regrade" else [],
                    },
                    status=400,
                )

        return page

    return wrap
