"""The service's addresses."""

from __future__ import annotations

from django.urls import path, re_path

from grader.service import api, pages

handler400 = api.bad_request
handler500 = api.server_error

urlpatterns = [
    path("", pages.home),
    path("signout", pages.signout),
    path("static/<str:name>", pages.static),
    path("assignments/<str:name>", pages.assignment_page),
    path("submissions/<str:ident>", pages.submission_page),
    path("instructor/", pages.instructor_home),
    path("instructor/<str:name>", pages.instructor_assignment),
    path("instructor/<str:name>/regrade", pages.regrade),
    path("instructor/<str:name>/release", pages.release),
    path("instructor/<str:name>/extension", pages.extension),
    path("instructor/<str:name>/extension/delete", pages.delete_extension),
    path("instructor/<str:name>/audit", pages.audit_page),
    path("instructor/<str:name>/giveback", pages.give_back),
    path("instructor/<str:name>/grades.csv", pages.grades_page),
    path("api/submissions", api.submissions),
    path("api/submissions/<str:ident>", api.submission),
    path("api/assignments/<str:name>/grades.csv", api.grades),
    re_path(r"^api(?P<rest>/.*)?$", api.unknown),  # JSON 404, whatever the method
]
