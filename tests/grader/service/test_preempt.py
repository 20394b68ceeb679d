"""A regrade job gives way to a student's upload (issue 30): the worker regrading drops the job
at its next test, grades the upload, and grades the job again afterwards; nothing is stored twice
in the gradebook."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from tests.grader.service.conftest import (
    REFERENCE,
    SLOW,
    WAIT_S,
    Service,
    csrf,
    signed_in,
    tokens,
    write_course,
)

pytestmark = pytest.mark.slow


def test_an_upload_preempts_a_running_regrade_job(tmp_path: Path) -> None:
    course = write_course(tmp_path)
    keys = tokens(course)
    service = Service(course, workers=1).start()
    try:
        slow = service.graded("open", [("grid.py", SLOW.encode())], keys["bob"])
        assert slow["status"] == "graded" and slow["score"] == slow["max_score"]
        instructor = signed_in(service.url, keys["alice"])
        page = instructor.get(f"{service.url}/instructor/open", timeout=30)
        reply = instructor.post(
            f"{service.url}/instructor/open/regrade",
            data={"confirm": "yes", "csrfmiddlewaretoken": csrf(page.text)},
            timeout=30,
            allow_redirects=False,
        )
        assert reply.status_code == 302
        deadline = time.monotonic() + WAIT_S
        while True:  # until the regrade job is under way, past its first test
            state = service.get(slow["id"], keys["alice"]).json()
            if state["status"] == "running" and state["progress"] not in ("", "test 1 of 14"):
                break
            assert time.monotonic() < deadline and state["status"] != "graded", state
            time.sleep(0.1)
        upload = service.graded("open", [("grid.py", REFERENCE.read_bytes())], keys["carol"])
        assert upload["status"] == "graded"
        # the one worker dropped the regrade job for the upload: it is not graded yet
        assert service.get(slow["id"], keys["alice"]).json()["status"] in ("queued", "running")
        again = service.wait(slow["id"], keys["alice"])
        assert again["status"] == "graded" and again["score"] == again["max_score"]
    finally:
        service.stop()
    book = course.parent / "course-service" / "gradebooks" / "open" / "gradebook.sqlite"
    with sqlite3.connect(book) as db:
        (attempts,) = db.execute("SELECT COUNT(*) FROM attempts WHERE student = 'bob'").fetchone()
    assert attempts == 2  # the first grading and the regrade, once each
