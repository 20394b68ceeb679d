"""Grade passback over LTI Assignment and Grade Services, against a platform built on
lti1p3platform: what is posted before the hidden tests' points are shown (the visible tests'
only, Pending), and an LMS that is down (the grading stands, one log line; the instructor sends
the scores again once it is back)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

pytest.importorskip("pylti1p3")
pytest.importorskip("lti1p3platform")

from grader.suite.load import load_suite
from tests.grader.service.conftest import COURSE, REFERENCE, WAIT_S, Service, write_course
from tests.grader.service.lti_platform import INSTRUCTOR, LEARNER, LmsUser, Platform

BITGRID_POINTS = load_suite("bitgrid").suite.total_points  # every test's, hidden ones too


pytestmark = pytest.mark.slow  # a service of its own, gradings


@pytest.fixture(scope="module")
def platform() -> Iterator[Platform]:
    lms = Platform(
        users={
            "lee": LmsUser("u-lee", "Lee Learner", [LEARNER]),
            "max": LmsUser("u-max", "Max Learner", [LEARNER]),
            "ada": LmsUser("u-ada", "Ada Instructor", [INSTRUCTOR], sourcedid="alice"),
        },
        links={"link-open": {"assignment": "open"}, "link-past": {"assignment": "past"}},
    ).start()
    yield lms
    lms.stop()


@pytest.fixture(scope="module")
def service(platform: Platform, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    course = write_course(tmp_path_factory.mktemp("lti"), platform.course_section() + COURSE)
    running = Service(course, workers=1).start()
    platform.tool_url = running.url
    yield running
    running.stop()


def launched(platform: Platform, user: str, link: str) -> requests.Session:
    browser = requests.Session()
    page = browser.get(f"{platform.url}/launch", params={"user": user, "link": link}, timeout=30)
    action, fields = platform.form_of(page.text)
    assert browser.post(action, data=fields, allow_redirects=False, timeout=30).status_code == 302
    return browser


def csrf(browser: requests.Session, url: str) -> str:
    page = browser.get(url, timeout=30)
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert found, page.text
    return found.group(1)


def submit(browser: requests.Session, service: Service, assignment: str) -> str:
    token = csrf(browser, f"{service.url}/assignments/{assignment}")
    reply = browser.post(
        f"{service.url}/assignments/{assignment}",
        data={"csrfmiddlewaretoken": token},
        files=[("files", ("grid.py", REFERENCE.read_bytes()))],
        timeout=60,
    )
    assert reply.status_code == 200 and "/submissions/" in reply.url, reply.text[:300]
    ident = reply.url.rsplit("/", 1)[1]
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        status = browser.get(f"{service.url}/api/submissions/{ident}", timeout=30).json()["status"]
        if status in ("graded", "error"):
            assert status == "graded"
            return ident
        time.sleep(0.2)
    raise AssertionError("not graded")


def received(platform: Platform, user: str, lineitem: str, count: int = 1) -> list[dict[str, Any]]:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        mine = [s for s in platform.scores if s["userId"] == user and s["lineitem"] == lineitem]
        if len(mine) >= count:
            return mine
        time.sleep(0.2)
    raise AssertionError(platform.scores)


def test_before_the_hidden_points_are_shown_only_the_visible_ones_are_posted(
    platform: Platform, service: Service
) -> None:
    submit(launched(platform, "lee", "link-open"), service, "open")
    score = received(platform, "u-lee", "link-open")[0]
    assert score["gradingProgress"] == "Pending" and "visible tests only" in score["comment"]
    assert 0 < score["scoreMaximum"] < BITGRID_POINTS and score["scoreGiven"] == score["scoreMaximum"]


def test_an_lms_that_is_down_costs_a_log_line_and_the_scores_are_sent_again(
    platform: Platform, service: Service
) -> None:
    platform.scores_down = True
    try:
        submit(launched(platform, "max", "link-past"), service, "past")
        deadline = time.monotonic() + 30
        while not any("grade passback of past for" in line for line in service.log):
            assert time.monotonic() < deadline, "".join(service.log)
            time.sleep(0.2)
    finally:
        platform.scores_down = False
    assert not [s for s in platform.scores if s["userId"] == "u-max"]
    failure = next(line for line in service.log if "grade passback of past" in line)
    assert "503" in failure and failure.count("\n") == 1

    instructor = launched(platform, "ada", "link-past")
    token = csrf(instructor, f"{service.url}/instructor/past")
    page = instructor.post(f"{service.url}/lti/scores/past", data={"csrfmiddlewaretoken": token}, timeout=60)
    assert page.status_code == 200 and '<p id="done">' in page.text and "0 failed" in page.text
    score = received(platform, "u-max", "link-past")[0]
    assert (score["scoreGiven"], score["scoreMaximum"], score["gradingProgress"]) == (
        BITGRID_POINTS - 5,
        BITGRID_POINTS,
        "FullyGraded",
    )
    audit = instructor.get(f"{service.url}/instructor/past/audit", timeout=30).text
    assert "scores sent to the LMS" in audit


def test_a_manual_adjustment_is_posted_again(platform: Platform, service: Service) -> None:
    def posted() -> int:
        return len([s for s in platform.scores if s["userId"] == "u-lee" and s["lineitem"] == "link-open"])

    learner = launched(platform, "lee", "link-open")
    known = posted()
    ident = submit(learner, service, "open")
    first = received(platform, "u-lee", "link-open", known + 1)[-1]
    login = learner.get(f"{service.url}/api/submissions/{ident}", timeout=30).json()["login"]
    instructor = launched(platform, "ada", "link-open")
    reply = instructor.post(
        f"{service.url}/instructor/open/adjust",
        data={
            "login": login,
            "submission": ident,
            "kind": "points",
            "points": "-2",
            "reason": "<b>copied</b>",
            "csrfmiddlewaretoken": csrf(instructor, f"{service.url}/instructor/open"),
        },
        allow_redirects=False,
        timeout=60,
    )
    assert reply.status_code == 302, reply.text
    second = received(platform, "u-lee", "link-open", known + 2)[-1]
    assert second["scoreGiven"] == first["scoreGiven"] - 2
    assert "adjusted by an instructor: <b>copied</b>" in second["comment"]  # JSON to the LMS, data
