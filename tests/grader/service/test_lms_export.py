"""The service's grades.csv for a learning management system: `?format=canvas` and
`?format=moodle` give every roster student's final score (late penalty included, 0 for none) in
the columns each system imports as they are; anything else is a 400 in one line."""

from __future__ import annotations

import requests

from tests.grader.service.conftest import REFERENCE, Service, signed_in


def test_canvas_and_moodle_files_hold_every_student_s_final_score(
    service: Service, keys: dict[str, str]
) -> None:
    graded = service.graded("past", [("grid.py", REFERENCE.read_bytes())], keys["bob"])
    assert (graded["final_score"], graded["max_score"]) == (15, 20)  # 5 points off: late
    address = f"{service.url}/api/assignments/past/grades.csv"
    alice = {"Authorization": f"Bearer {keys['alice']}"}
    canvas = requests.get(address, params={"format": "canvas"}, headers=alice, timeout=30)
    assert canvas.status_code == 200, canvas.text
    assert canvas.headers["Content-Disposition"] == 'attachment; filename="past-grades-canvas.csv"'
    assert canvas.text.splitlines() == [
        "Student,ID,SIS User ID,SIS Login ID,Section,past",
        "Points Possible,,,,,20",
        "Bob,,,bob,,15",
        "Carol,,,carol,,0",
        "Dave,,,dave,,0",
        "<b>Erin</b>,,,erin,,0",
    ]
    moodle = requests.get(address, params={"format": "moodle"}, headers=alice, timeout=30)
    assert moodle.status_code == 200, moodle.text
    assert moodle.text.splitlines() == [
        "Username,Email address,past",
        "bob,bob@example.org,15",
        "carol,c@example.org,0",
        "dave,d@example.org,0",
        "erin,e@example.org,0",
    ]
    nobody = requests.get(
        f"{service.url}/api/assignments/future/grades.csv",
        params={"format": "canvas"},
        headers=alice,
        timeout=30,
    )
    assert nobody.text.splitlines()[1:3] == ["Points Possible,,,,,20", "Bob,,,bob,,0"]  # the suite's
    page = signed_in(service.url, keys["alice"]).get(
        f"{service.url}/instructor/past/grades.csv?format=canvas", timeout=30
    )
    assert page.status_code == 200 and page.text == canvas.text


def test_an_unknown_format_is_400_in_one_line_and_students_get_403(
    service: Service, keys: dict[str, str]
) -> None:
    address = f"{service.url}/api/assignments/past/grades.csv"
    alice = {"Authorization": f"Bearer {keys['alice']}"}
    for asked, shown in (("blackboard", "blackboard"), ("x\r\nSet-Cookie: a=1", "x\\r\\nSet-Cookie: a=1")):
        reply = requests.get(address, params={"format": asked}, headers=alice, timeout=30)
        assert (reply.status_code, reply.json()) == (
            400,
            {
                "error": f"no format '{shown}': format=canvas or format=moodle, or none for the "
                f"grader's own columns"
            },
        )
    student = requests.get(
        address, params={"format": "canvas"}, headers={"Authorization": f"Bearer {keys['bob']}"}, timeout=30
    )
    assert student.status_code == 403
