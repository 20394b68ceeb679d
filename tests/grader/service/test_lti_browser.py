"""LTI 1.3 end to end in Chromium, against a platform built on lti1p3platform
(tests/grader/service/lti_platform.py): a learner launches from the LMS, submits and the LMS
receives the final score (late penalty applied); an instructor launches into the class table,
regrades (the score is posted again) and syncs the roster (Names and Role Provisioning)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pylti1p3")
pytest.importorskip("lti1p3platform")

from grader.suite.load import load_suite
from tests.grader.service.conftest import COURSE, REFERENCE, WAIT_S, Service, write_course
from tests.grader.service.lti_platform import INSTRUCTOR, LEARNER, LmsUser, Platform
from tests.grader.service.test_browser import arrived, looks_right, start_chromium

BITGRID_POINTS = load_suite("bitgrid").suite.total_points  # every test's, hidden ones too


pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def platform() -> Iterator[Platform]:
    lms = Platform(
        users={
            "lee": LmsUser("u-lee", "Lee Learner", [LEARNER]),
            "ada": LmsUser("u-ada", "Ada Instructor", [INSTRUCTOR], sourcedid="alice"),
            "kim": LmsUser("u-kim", "Kim Newcomer", [LEARNER]),
        },
        links={"link-past": {"assignment": "past"}},
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


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    driver = start_chromium(tmp_path / "profile")
    try:
        yield driver
    finally:
        driver.quit()


def scores_received(platform: Platform, count: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + WAIT_S
    while len(platform.scores) < count and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(platform.scores) >= count, platform.scores
    return platform.scores


def test_learner_and_instructor_launch_submit_and_the_lms_gets_the_score(
    platform: Platform, service: Service, browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{platform.url}/launch?user=lee&link=link-past")
    arrived(browser, lambda b: b.current_url == f"{service.url}/assignments/past")
    browser.find_element(By.NAME, "files").send_keys(str(REFERENCE))
    browser.find_element(By.CSS_SELECTOR, "form[enctype] button[type=submit]").click()
    WebDriverWait(browser, WAIT_S, poll_frequency=0.2).until(lambda b: b.find_elements(By.ID, "score"))
    assert browser.find_element(By.ID, "score").text == f"{BITGRID_POINTS:g} / {BITGRID_POINTS:g}"

    # `past` is 1 point off per minute late, at most 5: the LMS gets all but 5, fully graded.
    first = scores_received(platform, 1)[0]
    assert first["lineitem"] == "link-past" and first["userId"] == "u-lee"
    assert (first["scoreGiven"], first["scoreMaximum"]) == (BITGRID_POINTS - 5, BITGRID_POINTS)
    assert first["gradingProgress"] == "FullyGraded" and "late penalty 5" in first["comment"]

    browser.delete_all_cookies()
    browser.get(f"{platform.url}/launch?user=ada&link=link-past")
    arrived(browser, lambda b: b.current_url == f"{service.url}/instructor/past")
    table = browser.find_element(By.TAG_NAME, "table").text
    assert "Lee Learner" in table and f"{BITGRID_POINTS - 5:g}" in table

    regrade = browser.find_element(By.CSS_SELECTOR, "form[action='/instructor/past/regrade'] button")
    browser.execute_script("arguments[0].form.requestSubmit(arguments[0]);", regrade)  # the page's form
    arrived(browser, lambda b: b.find_elements(By.ID, "consequences"))  # the confirmation page
    confirm = browser.find_element(By.CSS_SELECTOR, "form[action='/instructor/past/regrade'] button")
    browser.execute_script("arguments[0].form.requestSubmit(arguments[0]);", confirm)
    again = scores_received(platform, 2)[1]
    assert again["userId"] == "u-lee" and again["scoreGiven"] == BITGRID_POINTS - 5
    assert again["timestamp"] > first["timestamp"]

    browser.get(f"{service.url}/instructor/")
    sync = browser.find_element(By.ID, "roster-sync")
    browser.execute_script("arguments[0].form.requestSubmit(arguments[0]);", sync)
    arrived(browser, lambda b: b.find_elements(By.ID, "done"))
    assert browser.find_element(By.ID, "done").text == "1 added, 2 known, 0 deactivated."
    for width in (1280, 390):  # the LMS actions' result page
        looks_right(browser, "", width, tmp_path / f"lti-result-{width}.png", dated=False, load=False)
    browser.get(f"{service.url}/instructor/past")
    assert "Kim Newcomer" in browser.find_element(By.TAG_NAME, "table").text
