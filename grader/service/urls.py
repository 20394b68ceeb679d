"""The service's addresses."""

from __future__ import annotations

from django.urls import path, re_path

from grader.service import api, instructor_confirm, instructor_pages, instructor_scores, pages

handler400 = api.bad_request
handler500 = api.server_error

urlpatterns = [
    path("", pages.home),
    path("signout", pages.signout),
    path("static/<str:name>", pages.static),
    path("assignments/<str:name>", pages.assignment_page),
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
    path("instructor/<str:name>/extension", instructor_pages.extension),
    path("instructor/<str:name>/extension/delete", instructor_pages.delete_extension),
    path("instructor/<str:name>/audit", instructor_pages.audit_page),
    path("instructor/<str:name>/giveback", instructor_pages.give_back),
    path("instructor/<str:name>/grades.csv", instructor_pages.grades_page),
    path("api/submissions", api.submissions),
    path("api/submissions/<str:ident>", api.submission),
    path("api/assignments/<str:name>/grades.csv", api.grades),
    re_path(r"^api(?P<rest>/.*)?$", api.unknown),  # JSON 404, whatever the method
]
