"""Grade passback (LTI Assignment and Grade Services): a student's final score for an
assignment, late penalty applied, posted to the LMS's line item of the assignment's link.

`post_final_score` is the one way scores reach the LMS: the worker calls it when a submission is
graded (a regrade too); an instructor's manual score calls it the same way.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from django.contrib.auth.models import User
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem
from pylti1p3.service_connector import ServiceConnector

from grader.service.course import Course
from grader.service.jobs import now
from grader.service.lti_tool import LmsSession, tool_conf
from grader.service.models import LtiIdentity, LtiLink, Submission
from grader.service.policy import NOTHING, counted, final_score, hidden_seen

log = logging.getLogger("grader.service.lti")


def _visible_maximum(sub: Submission) -> float:
    tests = (sub.results or {}).get("tests", [])
    return sum(float(test.get("max_score", 0)) for test in tests if test.get("visibility") == "visible")


def post_final_score(course: Course, user: User, assignment_name: str) -> str:
    """Post `user`'s score for the assignment as the student may see it now (the submission
    that counts, late penalty applied; before the hidden tests' points are shown to them, the
    visible tests' only, marked Pending) and say in one line what was done, or why nothing: not
    an LMS course, user or link, or nothing graded that counts. The LMS's refusals raise
    (pylti1p3's LtiException, requests' errors)."""
    assignment = course.assignment(assignment_name)
    conf = tool_conf(course)
    if assignment is None or conf is None or course.spec.lti is None:
        return "no LMS for this assignment"
    identity = LtiIdentity.objects.filter(user=user, issuer=course.spec.lti.issuer).first()
    if identity is None:
        return f"{user.username} never came from the LMS"
    link = (
        LtiLink.objects.filter(assignment=assignment.name, issuer=identity.issuer, ags__isnull=False)
        .order_by("-launched_at")
        .first()
    )
    if link is None:
        return f"no LMS link of {assignment.name} offers grade passback yet"
    subs = list(Submission.objects.filter(user=user, assignment=assignment.name).order_by("number"))
    seen = hidden_seen(assignment, user, now())
    chosen = counted(subs, assignment.counts, seen)
    if chosen is None or chosen.results is None or chosen.max_score is None:
        return f"{user.username} has no graded submission that counts"
    if seen == NOTHING:
        given, maximum, progress = final_score(chosen, NOTHING) or 0.0, _visible_maximum(chosen), "Pending"
        comment = "visible tests only: the hidden tests' points come once they are shown"
    else:
        given, maximum, progress = final_score(chosen) or 0.0, chosen.max_score, "FullyGraded"
        comment = f"submission {chosen.number}"
    if chosen.penalty:
        comment += f", late penalty {chosen.penalty:g} point(s)"
    if chosen.adjusted_kind:
        comment += f", adjusted by an instructor: {chosen.adjusted_reason[:200]}"
    grade = (
        Grade()
        .set_score_given(round(given, 4))
        .set_score_maximum(round(maximum, 4) or 1)
        .set_timestamp(datetime.now(UTC).isoformat(timespec="milliseconds"))
        .set_activity_progress("Submitted")
        .set_grading_progress(progress)
        .set_user_id(identity.subject)
        .set_comment(comment)
    )
    registration = conf.find_registration(course.spec.lti.issuer)
    connector = ServiceConnector(registration, requests_session=LmsSession())
    service = AssignmentsGradesService(connector, link.ags)
    if link.ags.get("lineitem"):
        service.put_grade(grade)
    else:  # a link without its own line item: the assignment's, found or created by its tag
        service.put_grade(
            grade,
            LineItem()
            .set_tag(assignment.name)
            .set_label(assignment.name)
            .set_resource_id(assignment.name)
            .set_score_maximum(chosen.max_score),
        )
    return f"posted {given:g}/{maximum:g} ({progress}) for {user.username} to {assignment.name}"


def post_after_grading(course: Course, submission_id: str) -> None:
    """The worker's call once a submission is graded: post, and log one line if the LMS
    cannot be reached or refuses (the grading itself stands)."""
    if course.spec.lti is None:
        return
    sub = Submission.objects.select_related("user").filter(pk=submission_id).first()
    if sub is None:
        return
    try:
        post_final_score(course, sub.user, sub.assignment)
    except Exception as error:  # the LMS's failure, whatever it is, never the grading's
        log.warning(
            "grade passback of %s for %s failed: %s", sub.assignment, sub.user.username, str(error)[:200]
        )
