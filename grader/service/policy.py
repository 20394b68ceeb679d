"""The course's rules applied to submissions: due dates and extensions, late penalties, when an
assignment closes, which submission counts, and what a student may see of hidden tests.

The rule behind every hidden-test decision: a hidden test's failure text (its case and expected
value) reaches a student only once no submission to the assignment, anyone's, can still earn
credit. Before that a student sees at most the hidden tests' verdicts and points.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from django.conf import settings
from django.contrib.auth.models import User

from grader.service.course import Assignment, late_minutes
from grader.service.models import GRADED, Extension, Release, Submission

# What a student sees of the hidden tests: nothing (not even their names or points), their
# verdicts and points (as a batch's feedback.html), or everything (failure texts included).
Seen = Literal["nothing", "verdicts", "everything"]
NOTHING: Seen = "nothing"
VERDICTS: Seen = "verdicts"
EVERYTHING: Seen = "everything"
# The fields of a hidden test a student sees before its failure text may be shown.
VERDICT_FIELDS = ("name", "score", "max_score", "status", "visibility")
# An instructor's adjustment of a final score: a manual score, or points added (or taken).
SET_SCORE, ADD_POINTS = "score", "points"
VERDICT_EXTRA_FIELDS = ("question", "verdict", "kind", "cpu_s", "wall_s", "peak_mb", "resident_mb")


def due_for(assignment: Assignment, user: User) -> datetime:
    """The student's due date: their extension's, else the assignment's."""
    extension = Extension.objects.filter(user=user, assignment=assignment.name).first()
    due: datetime = extension.due if extension is not None else assignment.due
    return due


@dataclass(frozen=True)
class ReleaseEffect:
    """When an instructor's release of hidden results takes effect, and what it waits for."""

    requested_at: datetime
    takes_effect: datetime
    waits_for: str  # "" when it took effect as asked, "the due date passes", "LOGIN's extension ends"


def release_effect(assignment: Assignment) -> ReleaseEffect | None:
    """The assignment's release, if an instructor asked for one: it takes effect once the due
    date and every extension have passed (a later extension moves it), and from then on no
    submission is accepted (`refusal`), so no one can use what it shows."""
    release = Release.objects.filter(assignment=assignment.name).first()
    if release is None:
        return None
    moment: datetime = release.released_at
    waits_for = ""
    if assignment.due > moment:
        moment, waits_for = assignment.due, "the due date passes"
    for extension in (
        Extension.objects.filter(assignment=assignment.name).select_related("user").order_by("due")
    ):
        if extension.due > moment:
            moment, waits_for = extension.due, f"{extension.user.username}'s extension ends"
    return ReleaseEffect(release.released_at, moment, waits_for)


def credit_ends_for_everyone(assignment: Assignment) -> datetime | None:
    """The last moment anyone's submission is accepted under the late rule (the due date's and
    every extension's late window); None when late submissions never close."""
    dues = [
        assignment.due,
        *Extension.objects.filter(assignment=assignment.name).values_list("due", flat=True),
    ]
    ends = [assignment.credit_ends(due) for due in dues]
    known = [end for end in ends if end is not None]
    return max(known) if len(known) == len(ends) else None


def credit_closed_after(assignment: Assignment) -> datetime | None:
    """After this moment no submission to `assignment` earns credit: its late rule closed it for
    everyone, or a release took effect (None: not foreseeable)."""
    effect = release_effect(assignment)
    released = effect.takes_effect if effect is not None else None
    closed = credit_ends_for_everyone(assignment)
    known = [moment for moment in (released, closed) if moment is not None]
    return min(known) if known else None


def sharing_hidden_tests(assignment: Assignment) -> list[Assignment]:
    """The course's other assignments of the same exercise: the same hidden tests, which a
    student could still earn credit with there."""
    course = getattr(settings, "GRADER_COURSE", None)
    if course is None:
        return []
    return [
        other
        for other in course.spec.assignments
        if other.exercise == assignment.exercise and other.name != assignment.name
    ]


def texts_shown_after(assignment: Assignment) -> datetime | None:
    """After this moment students read hidden tests' failure texts: no submission can earn credit
    any more, to this assignment (its late rule closed it for everyone, or a release took effect)
    nor to any other of the same exercise. None: not foreseeable (`hidden: never` without a
    release, or a late rule that never closes, here or in such another assignment)."""
    if assignment.hidden == "never":
        effect = release_effect(assignment)
        own = effect.takes_effect if effect is not None else None
    else:
        own = credit_closed_after(assignment)
    moments = [own, *(credit_closed_after(other) for other in sharing_hidden_tests(assignment))]
    known = [moment for moment in moments if moment is not None]
    return max(known) if len(known) == len(moments) else None


def texts_out(assignment: Assignment, now: datetime) -> bool:
    after = texts_shown_after(assignment)
    return after is not None and now > after


def hidden_seen(assignment: Assignment, user: User, now: datetime) -> Seen:
    """What `user` sees of the hidden tests now: instructors everything; a student the failure
    texts once no submission can earn credit (`texts_out`), before that the verdicts and points
    under `hidden: always`, or under `after_due` after their own due date, else nothing."""
    return students_seen(assignment, [user], now)[user.pk]


def students_seen(assignment: Assignment, students: list[User], now: datetime) -> dict[int, Seen]:
    """`hidden_seen` of each of `students` (by primary key), in a few queries for a class."""
    if texts_out(assignment, now):
        return {student.pk: EVERYTHING for student in students}
    extended = dict(Extension.objects.filter(assignment=assignment.name).values_list("user_id", "due"))
    seen: dict[int, Seen] = {}
    for student in students:
        past_own_due = now > extended.get(student.pk, assignment.due)
        if student.is_staff:
            seen[student.pk] = EVERYTHING
        elif assignment.hidden == "always" or (assignment.hidden == "after_due" and past_own_due):
            seen[student.pk] = VERDICTS
        else:
            seen[student.pk] = NOTHING
    return seen


def reopening(assignment: Assignment, login: str, due: datetime, change: str, now: datetime) -> str | None:
    """Why moving `login`'s due date to `due` is refused (None: it is not): it would let them earn
    credit after the hidden failure texts are shown (here or in an assignment sharing its tests)."""
    reopens = assignment.credit_ends(due)
    shown = [other.name for other in [assignment, *sharing_hidden_tests(assignment)] if texts_out(other, now)]
    if shown and (reopens is None or reopens >= now):
        return (
            f"{shown[0]}'s hidden failure texts are already shown: {change} now would "
            f"let {login} submit after reading them"
        )
    return None


def iso(moment: datetime) -> str:
    return moment.isoformat()


def refusal(
    assignment: Assignment, user: User, now: datetime, shown: Callable[[datetime], str] = iso
) -> str | None:
    """Why a submission of `user` is refused now (one line), or None: not open yet, past the
    late rule's end of their own due date, or after a release took effect; `shown` writes a
    date."""
    if assignment.opens is not None and now < assignment.opens:
        return f"{assignment.name} opens at {shown(assignment.opens)}"
    due = due_for(assignment, user)
    if assignment.closed(late_minutes(now, due)):
        ends = assignment.credit_ends(due)
        since = f" since {shown(ends)}" if ends is not None else ""
        return (
            f"{assignment.name} is closed{since}: it no longer accepts submissions ({assignment.late_rule()})"
        )
    effect = release_effect(assignment)
    if effect is not None and now >= effect.takes_effect:
        return (
            f"{assignment.name} is closed since {shown(effect.takes_effect)}: its "
            f"hidden results were released, it no longer accepts submissions"
        )
    return None


def hidden_note(
    assignment: Assignment, seen: Seen, hidden: int, due: datetime, shown: Callable[[datetime], str] = iso
) -> str:
    """What a student is told about the `hidden` tests they do not see in full (never a promise
    the policy does not keep: `hidden: never` is never "shown later"); `shown` writes a date."""
    if seen == VERDICTS:
        after = texts_shown_after(assignment)
        when = (
            f"they are shown after {shown(after)}, when no submission can earn credit any more"
            if after is not None
            else "they are withheld while late submissions can still earn credit"
        )
        return f"{hidden} hidden test(s): verdict and points only; their failure texts: {when}"
    effect = release_effect(assignment)
    if effect is not None:
        return (
            f"{hidden} hidden test(s): an instructor released their results; they are "
            f"shown after {shown(effect.takes_effect)}"
        )
    if assignment.hidden == "never":
        return f"{hidden} hidden test(s): their results are not shown to students"
    return f"{hidden} hidden test(s): their verdicts and points are shown after your due date ({shown(due)})"


def redact(results: dict[str, Any], seen: Seen, note: str = "") -> dict[str, Any]:
    """results.json as a student may see it: everything; or the hidden tests' verdicts and points
    without their failure texts; or, before that, the visible tests only, the score and maximum
    counting them only. `note` says what is withheld."""
    data = copy.deepcopy(results)
    if seen == EVERYTHING:
        return data
    all_tests = data.get("tests", [])
    hidden = sum(1 for test in all_tests if test.get("visibility") != "visible")
    extra = data.setdefault("extra_data", {})
    if seen == VERDICTS:
        data["tests"] = [
            test if test.get("visibility") == "visible" else verdict_only(test) for test in all_tests
        ]
    else:
        tests = [test for test in all_tests if test.get("visibility") == "visible"]
        data["tests"] = tests
        data["score"] = sum(float(test["score"]) for test in tests)
        extra["max_score"] = sum(float(test["max_score"]) for test in tests)
        if "questions" in extra:
            extra["questions"] = visible_questions(extra["questions"], tests)
    if hidden and note:
        extra["hidden_tests"] = note
    return data


def verdict_only(test: dict[str, Any]) -> dict[str, Any]:
    """A hidden test as a student sees it before its failure text may be shown.

    >>> verdict_only({"name": "h", "score": 0, "max_score": 1, "status": "failed",
    ...               "visibility": "hidden", "output": "f(3) returned 0, expected 1",
    ...               "extra_data": {"verdict": "WA", "calibration": "x"}})
    {'name': 'h', 'score': 0, 'max_score': 1, 'status': 'failed', 'visibility': 'hidden', \
'output': '', 'extra_data': {'verdict': 'WA'}}
    """
    kept = {key: test[key] for key in VERDICT_FIELDS if key in test}
    kept["output"] = ""
    extra = test.get("extra_data", {})
    kept["extra_data"] = {key: extra[key] for key in VERDICT_EXTRA_FIELDS if key in extra}
    return kept


def visible_questions(questions: list[dict[str, Any]], tests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Points per question counting `tests` (the visible ones) only: no hidden test's name,
    points or result; a question without a visible test is left out.

    >>> visible_questions(
    ...     [{"id": "q1", "title": "Q1", "score": 1.0, "max_score": 3.0, "lost": ["b-hidden"]}],
    ...     [{"name": "a", "score": 1.0, "max_score": 1.0, "extra_data": {"question": "q1"}}])
    [{'id': 'q1', 'title': 'Q1', 'score': 1.0, 'max_score': 1.0, 'lost': []}]
    """
    shown = []
    for question in questions:
        own = [t for t in tests if t.get("extra_data", {}).get("question") == question["id"]]
        if own:
            names = {t["name"] for t in own}
            shown.append(
                {
                    "id": question["id"],
                    "title": question["title"],
                    "score": sum(float(t["score"]) for t in own),
                    "max_score": sum(float(t["max_score"]) for t in own),
                    "lost": [name for name in question["lost"] if name in names],
                }
            )
    return shown


def view(
    sub: Submission,
    assignment: Assignment,
    viewer: User,
    now: datetime,
    shown: Callable[[datetime], str] = iso,
) -> dict[str, Any]:
    """The API's view of a submission for `viewer` (the student's, redacted; or an instructor's);
    `shown` writes the dates of its notes."""
    seen = hidden_seen(assignment, viewer, now)
    results = None
    if sub.results is not None:
        hidden = sum(1 for test in sub.results.get("tests", []) if test.get("visibility") != "visible")
        note = (
            hidden_note(assignment, seen, hidden, due_for(assignment, sub.user), shown)
            if seen != EVERYTHING
            else ""
        )
        results = redact(sub.results, seen, note)
    score = max_score = final = None
    hidden_max = 0.0  # the hidden tests' points a student is not shown yet
    if results is not None:
        score = float(results["score"])
        max_score = float(results["extra_data"]["max_score"])
        final = final_score(sub, seen)
        if seen == NOTHING and sub.results is not None:
            hidden_max = float(sub.results["extra_data"]["max_score"]) - max_score
    chosen = counted(
        list(Submission.objects.filter(user_id=sub.user_id, assignment=sub.assignment)),
        assignment.counts,
        seen,
    )
    return {
        "id": sub.id,
        "assignment": sub.assignment,
        "login": sub.user.username,
        "status": sub.status,
        "progress": sub.progress,
        "number": sub.number,
        "submitted_at": sub.submitted_at.isoformat(),
        "late_minutes": sub.late_minutes,
        "score": score,
        "max_score": max_score,
        "hidden_max_score": hidden_max,
        "penalty": sub.penalty,
        "final_score": final,
        "results": results,
        "hidden_released": seen == EVERYTHING,
        "hidden_shown": seen,
        "counts": chosen is not None and chosen.id == sub.id,
        "counted_number": chosen.number if chosen is not None else None,
        "chosen": sub.chosen,
        "adjustment": (
            {"kind": sub.adjusted_kind, "points": sub.adjusted_points, "reason": sub.adjusted_reason}
            if sub.adjusted_kind
            else None
        ),
        "suite": sub.suite,  # the digest of the pinned suite its last grading used
    }


def final_score(sub: Submission, seen: Seen = EVERYTHING) -> float | None:
    """The submission's final score as `seen` shows it (None: not graded): its score (the
    visible tests' only while the student sees nothing of the hidden ones) less the late
    penalty, then the instructor's manual score or points adjustment, never below 0. The one
    place a final score is worked out: pages, grades.csv, the LMS exports and grade passback."""
    if sub.results is None:
        return None
    tests = sub.results.get("tests", [])
    if seen == NOTHING:
        score = sum(float(test["score"]) for test in tests if test.get("visibility") == "visible")
    else:
        score = float(sub.score if sub.score is not None else sub.results.get("score", 0.0))
    final = max(0.0, score - (sub.penalty or 0.0))
    if sub.adjusted_kind == SET_SCORE and sub.adjusted_points is not None:
        return max(0.0, float(sub.adjusted_points))
    if sub.adjusted_kind == ADD_POINTS and sub.adjusted_points is not None:
        return max(0.0, final + float(sub.adjusted_points))
    return final


def counted(subs: list[Submission], counts: str, seen: Seen = EVERYTHING) -> Submission | None:
    """The submission that counts: the latest graded, or the best final score (earliest on a
    tie). The best is judged by what `seen` shows: while the hidden tests' points are not shown,
    by the visible tests only, so which one counts never tells anything of the hidden tests.
    A submission given back by an instructor never counts; one an instructor chose counts,
    whatever the rule."""
    graded = [sub for sub in subs if sub.status == GRADED and not sub.given_back]
    if not graded:
        return None
    chosen = [sub for sub in graded if sub.chosen]
    if chosen:
        return max(chosen, key=lambda s: s.number)
    if counts == "best":

        def worth(sub: Submission) -> float:
            return final_score(sub, seen) or 0.0

        return max(sorted(graded, key=lambda s: s.number), key=worth)
    return max(graded, key=lambda s: s.number)
