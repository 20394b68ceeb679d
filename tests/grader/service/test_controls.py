"""The instructor's corrections (issue 30): the submission that counts chosen, a manual score or
points adjustment, release and regrade behind a confirmation page, a release undone until a
student read what it showed; each with its audit line, each for instructors only, every reason
inert on every page and in the CSV exports."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.grader.service.conftest import (
    REFERENCE,
    STUB,
    Service,
    csrf,
    running,
    signed_in,
    tokens,
    write_course,
)
from tests.grader.service.test_audit import form_again, rows

pytestmark = pytest.mark.slow

COURSE = """\
title: instructor controls
roster: roster.csv
instructors: [alice]
assignments:
  - name: open
    exercise: bitgrid
    due: 2099-01-01T00:00:00Z
  - name: best
    exercise: bitgrid
    due: 2099-01-01T00:00:00Z
    counts: best
"""
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>,"=cmd|x'


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_course(tmp_path_factory.mktemp("controls"), COURSE)


@pytest.fixture(scope="module")
def keys(course: Path) -> dict[str, str]:
    return tokens(course)


@pytest.fixture(scope="module")
def service(course: Path, keys: dict[str, str]) -> Iterator[Service]:
    with running(course) as started:
        yield started


def act(session: requests.Session, url: str, assignment: str, path: str, **data: str) -> requests.Response:
    page = session.get(f"{url}/instructor/{assignment}", timeout=30)
    return session.post(
        f"{url}/instructor/{assignment}/{path}",
        data={**data, "csrfmiddlewaretoken": csrf(page.text)},
        timeout=30,
        allow_redirects=False,
    )


def audit_lines(session: requests.Session, url: str, assignment: str) -> list[list[str]]:
    return rows(session.get(f"{url}/instructor/{assignment}/audit", timeout=30).text)


def csv_row(
    session: requests.Session, url: str, assignment: str, login: str, lms: str = ""
) -> dict[str, str]:
    query = f"?format={lms}" if lms else ""
    text = session.get(f"{url}/instructor/{assignment}/grades.csv{query}", timeout=30).text
    key = "SIS Login ID" if lms == "canvas" else "Username" if lms == "moodle" else "login"
    return next(row for row in csv.DictReader(io.StringIO(text)) if row.get(key) == login)


def test_an_instructor_chooses_the_submission_that_counts_and_undoes_it(
    service: Service, keys: dict[str, str]
) -> None:
    full = service.graded("open", [("grid.py", REFERENCE.read_bytes())], keys["dave"])
    low = service.graded("open", [("grid.py", STUB.read_bytes())], keys["dave"])
    assert full["final_score"] > low["final_score"] and low["counts"]  # counts: latest
    instructor = signed_in(service.url, keys["alice"])
    reply = act(
        instructor, service.url, "open", "choose", login="dave", submission="1", reason="the CI ate #2"
    )
    assert reply.status_code == 302 and reply.headers["Location"] == "/instructor/open?done=chosen"
    assert audit_lines(instructor, service.url, "open")[0][1:] == [
        "alice",
        "counted submission chosen",
        "dave",
        full["id"],
        "submission 1 counts",
        "the CI ate #2",
    ]
    table = instructor.get(f"{service.url}/instructor/open", timeout=30).text
    assert f'href="/submissions/{full["id"]}">dave<' in table and "chosen to count: the CI ate #2" in table
    whole = service.get(full["id"], keys["alice"]).json()["final_score"]  # hidden points included
    assert float(csv_row(instructor, service.url, "open", "dave")["final_score"]) == whole
    assert float(csv_row(instructor, service.url, "open", "dave", "canvas")["open"]) == whole
    seen = service.get(full["id"], keys["dave"]).json()
    assert seen["counts"] and seen["chosen"] == "the CI ate #2" and seen["counted_number"] == 1
    page = signed_in(service.url, keys["dave"]).get(f"{service.url}/submissions/{full['id']}", timeout=30)
    assert "An instructor chose this submission to count: the CI ate #2" in page.text
    undone = act(instructor, service.url, "open", "choose/undo", login="dave", reason="fixed")
    assert undone.status_code == 302
    assert audit_lines(instructor, service.url, "open")[0][1:4] == ["alice", "counted choice removed", "dave"]
    assert service.get(low["id"], keys["dave"]).json()["counts"]
    again = act(instructor, service.url, "open", "choose/undo", login="dave", reason="twice")
    form_again(again, "choose-undo-form", "no submission of dave to open was chosen", {"login": "dave"})


def test_a_manual_score_and_a_points_adjustment_reach_the_student_and_the_exports(
    service: Service, keys: dict[str, str]
) -> None:
    graded = service.graded("open", [("grid.py", REFERENCE.read_bytes())], keys["bob"])
    full = service.get(graded["id"], keys["alice"]).json()["final_score"]  # hidden points included
    visible = graded["final_score"]  # what bob sees before the due date
    instructor = signed_in(service.url, keys["alice"])
    taken = act(
        instructor, service.url, "open", "adjust", login="bob", submission="1", kind="points", points="-2.5",
        reason="copied the helper from the slides",
    )  # fmt: skip
    assert taken.status_code == 302, taken.text
    line = audit_lines(instructor, service.url, "open")[0]
    assert line[1:5] == ["alice", "score adjusted", "bob", graded["id"]]
    assert line[5] == f"submission 1: points -2.5, final score {full:g} -> {full - 2.5:g}"
    assert line[6] == "copied the helper from the slides"
    seen = service.get(graded["id"], keys["bob"]).json()
    assert seen["final_score"] == visible - 2.5
    assert seen["adjustment"] == {
        "kind": "points",
        "points": -2.5,
        "reason": "copied the helper from the slides",
    }
    student = signed_in(service.url, keys["bob"])
    page = student.get(f"{service.url}/submissions/{graded['id']}", timeout=30).text
    assert "adjusted the final score by -2.50 point(s): copied the helper from the slides" in page
    assert (
        "score adjusted: copied the helper" in student.get(f"{service.url}/assignments/open", timeout=30).text
    )
    assert float(csv_row(instructor, service.url, "open", "bob")["final_score"]) == full - 2.5
    assert float(csv_row(instructor, service.url, "open", "bob", "moodle")["open"]) == full - 2.5
    most = service.get(graded["id"], keys["alice"]).json()["max_score"]  # hidden points included
    staff_view = instructor.get(f"{service.url}/submissions/{graded['id']}", timeout=30).text
    assert "<title>open: submission 1</title>" in staff_view  # its forms in the page, not the title
    assert staff_view.count('action="/instructor/open/adjust"') == 1
    above = {"login": "bob", "submission": "1", "kind": "score", "points": f"{most + 0.5:g}", "reason": "r"}
    form_again(
        act(instructor, service.url, "open", "adjust", **above),
        "adjust-form",
        f"points: a manual score is at most {most:g}, the most this submission's suite gives",
        above,
    )
    assert 'value="score" selected' in act(instructor, service.url, "open", "adjust", **above).text
    manual = act(
        instructor, service.url, "open", "adjust", login="bob", submission=graded["id"], kind="score",
        points="5", reason="oral exam",
    )  # fmt: skip
    assert manual.status_code == 302
    assert audit_lines(instructor, service.url, "open")[0][5] == (
        f"submission 1: manual score 5, final score {full - 2.5:g} -> 5"
    )
    assert service.get(graded["id"], keys["bob"]).json()["final_score"] == 5
    assert float(csv_row(instructor, service.url, "open", "bob", "canvas")["open"]) == 5
    removed = act(instructor, service.url, "open", "adjust/undo", login="bob", submission="1", reason="oops")
    assert removed.status_code == 302
    assert audit_lines(instructor, service.url, "open")[0][1:3] == ["alice", "adjustment removed"]
    back = service.get(graded["id"], keys["bob"]).json()
    assert back["final_score"] == visible and back["adjustment"] is None


def test_counts_best_weighs_the_adjusted_scores(service: Service, keys: dict[str, str]) -> None:
    full = service.graded("best", [("grid.py", REFERENCE.read_bytes())], keys["carol"])
    low = service.graded("best", [("grid.py", STUB.read_bytes())], keys["carol"])
    assert service.get(full["id"], keys["carol"]).json()["counts"]
    instructor = signed_in(service.url, keys["alice"])
    most = service.get(low["id"], keys["alice"]).json()["max_score"]
    taken = act(
        instructor, service.url, "best", "adjust", login="carol", submission="1", kind="points",
        points="-1", reason="copied",
    )  # fmt: skip
    assert taken.status_code == 302
    reply = act(
        instructor, service.url, "best", "adjust", login="carol", submission="2", kind="score",
        points=f"{most:g}", reason="regraded by hand",
    )  # fmt: skip
    assert reply.status_code == 302
    assert service.get(low["id"], keys["carol"]).json()["counts"]


@pytest.mark.parametrize(
    ("path", "data", "said"),
    [
        (
            "adjust",
            {"login": "dave", "submission": "1", "kind": "points", "points": "2", "reason": " "},
            "reason: required",
        ),
        (
            "adjust",
            {"login": "dave", "submission": "1", "kind": "bonus", "points": "2", "reason": "r"},
            "kind: ",
        ),
        (
            "adjust",
            {"login": "dave", "submission": "1", "kind": "points", "points": "nan", "reason": "r"},
            "points: a number",
        ),
        (
            "adjust",
            {"login": "dave", "submission": "1", "kind": "points", "points": "1e99", "reason": "r"},
            "points: a number",
        ),
        (
            "adjust",
            {"login": "dave", "submission": "1", "kind": "score", "points": "-1", "reason": "r"},
            "points: a manual score is 0 or more",
        ),
        (
            "adjust",
            {"login": "dave", "submission": "7", "kind": "points", "points": "1", "reason": "r"},
            "no such submission of dave",
        ),
        (
            "adjust",
            {"login": "nobody", "submission": "1", "kind": "points", "points": "1", "reason": "<b>r</b>"},
            "login: no student 'nobody'",
        ),
        ("adjust/undo", {"login": "erin", "submission": "1"}, "no such submission of erin"),
        ("choose", {"login": "dave", "submission": "1", "reason": ""}, "reason: required"),
        ("choose", {"login": "dave", "submission": "<b>", "reason": "r"}, "no such submission of dave"),
        ("choose", {"login": "dave", "submission": "1", "reason": "x" * 2001}, "reason: at most 2000"),
        ("choose/undo", {"login": "<script>"}, "login: no student '<script>'"),
        ("choose/undo", {"login": "dave", "reason": "r"}, "no submission of dave to open was chosen"),
        ("release/undo", {"reason": "nothing released"}, "open has no release to undo"),
        ("regrade", {"test": "<script>", "reason": "<b>r</b>"}, "test: no test '<script>' in the suite"),
        ("suite/regrade", {"digest": "<b>", "reason": "r"}, "confirm: tick the box"),
    ],
)
def test_a_wrong_correction_shows_the_form_again_and_writes_nothing(
    service: Service, keys: dict[str, str], path: str, data: dict[str, str], said: str
) -> None:
    instructor = signed_in(service.url, keys["alice"])
    before = audit_lines(instructor, service.url, "open")
    reply = act(instructor, service.url, "open", path, **data)
    form_again(reply, path.replace("/", "-") + "-form", said, data)
    assert audit_lines(instructor, service.url, "open") == before


def test_regrade_and_release_wait_for_a_confirmation(service: Service, keys: dict[str, str]) -> None:
    instructor = signed_in(service.url, keys["alice"])
    before = audit_lines(instructor, service.url, "open")
    for action in ("regrade", "release"):
        bare = act(instructor, service.url, "open", action, reason="no confirm")
        assert bare.status_code == 200 and f"Confirm the {action}" in bare.text
        assert 'name="confirm" value="yes"' in bare.text and 'value="no confirm"' in bare.text
        shown = instructor.get(f"{service.url}/instructor/open/{action}", timeout=30)
        assert shown.status_code == 200 and 'id="consequences"' in shown.text
    assert audit_lines(instructor, service.url, "open") == before
    page = instructor.get(f"{service.url}/instructor/open", timeout=30).text
    assert "release scheduled" not in page
    done = act(instructor, service.url, "open", "regrade", confirm="yes", reason="suite fixed")
    assert done.status_code == 302 and "done=regrading" in done.headers["Location"]
    assert audit_lines(instructor, service.url, "open")[0][1:3] == ["alice", "regrade"]


ALONE = """\
title: one assignment of its exercise, hidden until released
roster: roster.csv
instructors: [alice]
assignments:
  - name: never
    exercise: bitgrid
    due: 2020-01-01T00:00:00Z
    late: {per_minute: 1, max: 5}
    hidden: never
"""


def test_a_release_is_undone_until_a_student_reads_what_it_showed(tmp_path: Path) -> None:
    course = write_course(tmp_path, ALONE)
    keys = tokens(course)
    with running(course) as service:
        sub = service.graded("never", [("grid.py", STUB.read_bytes())], keys["erin"])
        instructor = signed_in(service.url, keys["alice"])
        released = act(instructor, service.url, "never", "release", confirm="yes", reason="exam over")
        assert released.headers["Location"] == "/instructor/never?done=released"
        assert service.get(sub["id"], keys["alice"]).json()["hidden_shown"] == "everything"  # staff
        undone = act(instructor, service.url, "never", "release/undo", reason="too early")
        assert undone.status_code == 302
        assert undone.headers["Location"] == "/instructor/never?done=release_undone"
        assert audit_lines(instructor, service.url, "never")[0][1:3] == ["alice", "release undone"]
        assert service.get(sub["id"], keys["erin"]).json()["hidden_shown"] == "nothing"
        again = service.graded("never", [("grid.py", STUB.read_bytes())], keys["erin"])  # open again
        assert act(instructor, service.url, "never", "release", confirm="yes").status_code == 302
        page = signed_in(service.url, keys["erin"]).get(
            f"{service.url}/submissions/{again['id']}", timeout=30
        )
        assert "(hidden)" in page.text  # erin reads the hidden tests
        refused = act(instructor, service.url, "never", "release/undo", reason="too late")
        form_again(
            refused, "release-undo-form", "erin read a hidden test's failure text", {"reason": "too late"}
        )
        assert audit_lines(instructor, service.url, "never")[0][1:3] == ["alice", "release"]


FORMS: list[tuple[str, dict[str, str]]] = [
    ("choose", {"login": "carol", "submission": "1", "reason": "mine"}),
    ("choose/undo", {"login": "carol"}),
    ("adjust", {"login": "carol", "submission": "1", "kind": "score", "points": "99", "reason": "r"}),
    ("adjust/undo", {"login": "carol", "submission": "1"}),
    ("release", {"confirm": "yes"}),
    ("release/undo", {}),
    ("regrade", {"confirm": "yes"}),
]


@pytest.mark.parametrize(("path", "data"), FORMS)
def test_a_student_posting_an_instructor_form_gets_a_403(
    service: Service, keys: dict[str, str], path: str, data: dict[str, str]
) -> None:
    student = signed_in(service.url, keys["carol"])
    page = student.get(f"{service.url}/", timeout=30)
    url = f"{service.url}/instructor/best/{path}"
    reply = student.post(
        url, data={**data, "csrfmiddlewaretoken": csrf(page.text)}, timeout=30, allow_redirects=False
    )
    assert reply.status_code == 403 and reply.text == "instructors only"
    if path in ("release", "regrade"):  # the confirmation pages too
        assert student.get(url, timeout=30).status_code == 403
    assert requests.post(url, data=data, timeout=30, allow_redirects=False).status_code in (302, 403)
    instructor = signed_in(service.url, keys["alice"])
    assert instructor.post(url, data=data, timeout=30).status_code == 403  # no CSRF token
    assert all(line[1] != "carol" for line in audit_lines(instructor, service.url, "best"))


def test_a_reason_with_html_or_script_is_inert_everywhere(service: Service, keys: dict[str, str]) -> None:
    graded = service.graded("open", [("grid.py", REFERENCE.read_bytes())], keys["erin"])
    instructor = signed_in(service.url, keys["alice"])
    for path, data in (
        ("choose", {"login": "erin", "submission": "1", "reason": HOSTILE}),
        ("adjust", {"login": "erin", "submission": "1", "kind": "points", "points": "1", "reason": HOSTILE}),
    ):
        assert act(instructor, service.url, "open", path, **data).status_code == 302
    student = signed_in(service.url, keys["erin"])
    pages: list[Any] = [
        instructor.get(f"{service.url}/instructor/open", timeout=30),
        instructor.get(f"{service.url}/instructor/open/audit", timeout=30),
        instructor.get(f"{service.url}/submissions/{graded['id']}", timeout=30),
        student.get(f"{service.url}/submissions/{graded['id']}", timeout=30),
        student.get(f"{service.url}/assignments/open", timeout=30),
        student.get(f"{service.url}/", timeout=30),
    ]
    for page in pages:
        assert page.status_code == 200
        assert "<script>alert" not in page.text and "<img src=x" not in page.text, page.url
        assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x" in page.text, page.url
    assert [line[6] for line in audit_lines(instructor, service.url, "open")[:2]] == [HOSTILE, HOSTILE]
    for lms in ("", "canvas", "moodle"):
        text = instructor.get(f"{service.url}/instructor/open/grades.csv?format={lms}", timeout=30).text
        assert "<script>" not in text and "=cmd" not in text, lms
    whole = service.get(graded["id"], keys["alice"]).json()["final_score"]
    assert float(csv_row(instructor, service.url, "open", "erin")["final_score"]) == whole
