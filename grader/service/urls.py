"""The service's addresses."""

from __future__ import annotations

from importlib.util import find_spec

from django.urls import path, re_path

from grader.service import (
    api,
    extension_pages,
    instructor_confirm,
    instructor_pages,
    instructor_scores,
    pages,
    suite_pages,
    tournament_pages,
)

handler400 = api.bad_request
handler500 = api.server_error

urlpatterns = [
    path("", pages.home),
    path("signout", pages.signout),
    path("static/<str:name>", pages.static),
    path("assignments/<str:name>", pages.assignment_page),
    path("assignments/<str:name>/tournament", tournament_pages.student_standings),
    path("submissions/<str:ident>", pages.submission_page),
    path("instructor/", instructor_pages.instructor_home),
    path("instructor/<str:name>", instructor_pages.instructor_assignment),
    path("instructor/<str:name>/regrade", instructor_confirm.regrade),
    path("instructor/<str:name>/release", instructor_confirm.release),
    path("instructor/<str:name>/release/undo", instructor_confirm.undo_release),
    path("instructor/<str:name>/choose", instructor_scores.choose),
    path("instructor/<str:name>/choose/undo", instructor_scores.unchoose),
    path("instructor/<str:name>/adjust", instructor_scores.adjust),
    path("instructor/<str:name>/adjust/undo", instructor_scores.unadjust),
    path("instructor/<str:name>/extension", extension_pages.extension),
    path("instructor/<str:name>/extension/delete", instructor_pages.delete_extension),
    path("instructor/<str:name>/audit", instructor_pages.audit_page),
    path("instructor/<str:name>/giveback", instructor_pages.give_back),
    path("instructor/<str:name>/suite/regrade", suite_pages.regrade_onto_suite),
    path("instructor/<str:name>/grades.csv", instructor_pages.grades_page),
    path("instructor/<str:name>/tournament", tournament_pages.instructor_tournament),
    path("instructor/<str:name>/tournament/run", tournament_pages.ask_tournament),
    path("api/submissions", api.submissions),
    path("api/submissions/<str:ident>", api.submission),
    path("api/assignments/<str:name>/grades.csv", api.grades),
    re_path(r"^api(?P<rest>/.*)?$", api.unknown),  # JSON 404, whatever the method
]

if find_spec("pylti1p3") is not None:  # the `lti` extra (docs/service.md, "LTI 1.3")
    from grader.service import lti_pages

    urlpatterns[-1:-1] = [
        path("lti/login", lti_pages.oidc_login),
        path("lti/launch", lti_pages.launch),
        path("lti/jwks", lti_pages.key_set),
        path("lti/registration", lti_pages.registration),
        path("lti/roster", lti_pages.roster_sync),
        path("lti/scores/<str:name>", lti_pages.send_scores),
    ]
