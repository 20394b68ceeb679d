"""The course's rules applied to submissions: due dates and extensions, late penalties, which
submission counts, and what a student may see of hidden tests."""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User

from grader.service.course import Assignment
from grader.service.models import GRADED, Extension, Release, Submission


def due_for(assignment: Assignment, user: User) -> datetime:
    """The student's due date: their extension's, else the assignment's."""
    extension = Extension.objects.filter(user=user, assignment=assignment.name).first()
    due: datetime = extension.due if extension is not None else assignment.due
    return due


def released(assignment: Assignment, user: User, now: datetime) -> bool:
    """Whether `user` sees the hidden tests' results: always, after their own due date
    (`after_due`), or once an instructor released them."""
    if user.is_staff or assignment.hidden == "always":
        return True
    if Release.objects.filter(assignment=assignment.name).exists():
        return True
    return assignment.hidden == "after_due" and now >= due_for(assignment, user)


def redact(results: dict[str, Any], shown: bool) -> dict[str, Any]:
    """results.json as a student may see it: before release, the visible tests only, the score
    and maximum counting them only."""
    data = copy.deepcopy(results)
    if shown:
        return data
    tests = [test for test in data.get("tests", []) if test.get("visibility") == "visible"]
    hidden = len(data.get("tests", [])) - len(tests)
    data["tests"] = tests
    data["score"] = sum(float(test["score"]) for test in tests)
    extra = data.setdefault("extra_data", {})
    extra["max_score"] = sum(float(test["max_score"]) for test in tests)
    if "questions" in extra:
        extra["questions"] = visible_questions(extra["questions"], tests)
    if hidden:
        extra["hidden_tests"] = f"{hidden} hidden test(s): their results are released later"
    return data


def visible_questions(questions: list[dict[str, Any]],
                      tests: list[dict[str, Any]]) -> list[dict[str, Any]]:
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
            shown.append({"id": question["id"], "title": question["title"],
                          "score": sum(float(t["score"]) for t in own),
                          "max_score": sum(float(t["max_score"]) for t in own),
                          "lost": [name for name in question["lost"] if name in names]})
    return shown


def view(sub: Submission, assignment: Assignment, viewer: User, now: datetime) -> dict[str, Any]:
    """The API's view of a submission for `viewer` (the student's, redacted; or an instructor's)."""
    shown = released(assignment, viewer, now) if viewer.pk == sub.user_id or not viewer.is_staff \
        else True
    results = redact(sub.results, shown) if sub.results is not None else None
    score = max_score = final = None
    if results is not None:
        score = float(results["score"])
        max_score = float(results["extra_data"]["max_score"])
        final = max(0.0, score - (sub.penalty or 0.0))
    chosen = counted(list(Submission.objects.filter(user_id=sub.user_id,
                                                    assignment=sub.assignment)),
                     assignment.counts)
    return {"id": sub.id, "assignment": sub.assignment, "login": sub.user.username,
            "status": sub.status, "progress": sub.progress, "number": sub.number,
            "submitted_at": sub.submitted_at.isoformat(), "late_minutes": sub.late_minutes,
            "score": score, "max_score": max_score, "penalty": sub.penalty,
            "final_score": final, "results": results, "hidden_released": shown,
            "counts": chosen is not None and chosen.id == sub.id,
            "counted_number": chosen.number if chosen is not None else None}


def counted(subs: list[Submission], counts: str) -> Submission | None:
    """The submission that counts: the latest graded, or the best final score (earliest on a tie)."""
    graded = [sub for sub in subs if sub.status == GRADED]
    if not graded:
        return None
    if counts == "best":
        return max(sorted(graded, key=lambda s: s.number), key=lambda s: s.final_score or 0.0)
    return max(graded, key=lambda s: s.number)
