"""A real browser (headless Chromium driven by Selenium) against the service: sign in with a
token, upload a file, watch the submission page turn into its feedback without reloading; the
instructor's class table sorts and links; the students' pages at a desktop's and a phone's width
(no sideways scroll, dates in the course's zone, no serious axe-core violation, screenshots kept
in the pytest tmp folder)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.grader.service.conftest import COURSE, REFERENCE, WAIT_S, Service, write_course
from tests.grader.service.test_flow import visible_and_hidden

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
if CHROMIUM is None or DRIVER is None:
    pytest.skip(
        "no Chromium or chromedriver (Debian: apt-get install chromium chromium-driver; "
        "`make` installs them where it can)",
        allow_module_level=True,
    )


def start_chromium(profile: Path, *flags: str) -> Any:
    """Headless Chromium under chromedriver, its profile in `profile`, with `flags` added."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service as DriverService

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        *flags,
    ):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=DriverService(str(DRIVER)))


ZONE = "Europe/Paris"  # the pages' dates: CET (+01:00) or CEST (+02:00)
AXE = Path(__file__).parent / "data" / "axe.min.js"  # axe-core, for the tests only (never served)
WIDTHS = (1280, 390, 360)


@pytest.fixture(scope="module")
def course_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_course(tmp_path_factory.mktemp("course"), f"timezone: {ZONE}\n{COURSE}")


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    driver = start_chromium(tmp_path / "profile")
    try:
        yield driver
    finally:
        driver.quit()


def sign_in(browser: Any, url: str, token: str) -> None:
    from selenium.webdriver.common.by import By

    browser.delete_all_cookies()
    browser.get(f"{url}/")
    browser.find_element(By.NAME, "token").send_keys(token)
    browser.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    arrived(browser, lambda b: "Signed in as" in b.page_source)


def arrived(browser: Any, condition: Any) -> None:
    """Wait for a navigation a click started (a click returns before the next page is there)."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, WAIT_S, poll_frequency=0.1).until(condition)


def test_a_student_uploads_and_the_page_turns_into_feedback(
    service: Service, keys: dict[str, str], browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    # winner() waits 1.5 s in each test that calls it: the page is seen before it is graded.
    slow = tmp_path / "grid.py"
    slow.write_text(
        REFERENCE.read_text().replace("def winner(", "def winner_fast(", 1)
        + (
            "\n\n_slept = []\n\n\ndef winner(grid):\n    import time\n"
            "    if not _slept:\n        _slept.append(1)\n        time.sleep(1.5)\n"
            "    return winner_fast(grid)\n"
        )
    )
    sign_in(browser, service.url, keys["bob"])
    browser.get(f"{service.url}/assignments/past")
    browser.find_element(By.NAME, "files").send_keys(str(slow))
    browser.find_element(By.CSS_SELECTOR, "form[enctype] button[type=submit]").click()
    arrived(browser, lambda b: "/submissions/" in b.current_url and b.find_elements(By.ID, "status"))
    first = browser.find_element(By.ID, "status").text
    assert first in ("queued", "running"), first
    browser.execute_script("window.notReloaded = true;")
    WebDriverWait(browser, WAIT_S, poll_frequency=0.2).until(lambda b: b.find_elements(By.ID, "score"))
    assert browser.execute_script("return window.notReloaded === true;")
    assert browser.find_element(By.ID, "score").text == "20 / 20"
    assert browser.find_element(By.ID, "status").text == "graded"
    logs = [
        entry
        for entry in browser.get_log("browser")
        if entry["level"] == "SEVERE" and "favicon.ico" not in entry["message"]
    ]
    assert not logs, logs  # no script refused by the Content-Security-Policy, no error


def test_the_instructor_table_sorts_and_links(service: Service, keys: dict[str, str], browser: Any) -> None:
    from selenium.webdriver.common.by import By

    for login in ("carol", "dave"):
        service.graded("past", [("grid.py", REFERENCE.read_bytes())], keys[login])
    sign_in(browser, service.url, keys["alice"])
    browser.get(f"{service.url}/instructor/past")

    def logins() -> list[str]:
        return [
            row.find_elements(By.TAG_NAME, "td")[0].text
            for row in browser.find_elements(By.CSS_SELECTOR, "#students tbody tr")
        ]

    assert logins() == sorted(logins())
    attempts = browser.find_element(By.CSS_SELECTOR, "#students th[data-column='3']")
    attempts.click()
    ascending = browser.find_element(By.ID, "students").get_attribute("data-sorted")
    attempts.click()
    assert (ascending, browser.find_element(By.ID, "students").get_attribute("data-sorted")) == (
        "3-asc",
        "3-desc",
    )
    counts = [
        int(row.find_elements(By.TAG_NAME, "td")[3].text)
        for row in browser.find_elements(By.CSS_SELECTOR, "#students tbody tr")
    ]
    assert counts == sorted(counts, reverse=True) and counts[-1] == 0  # erin never submitted
    browser.find_element(By.LINK_TEXT, "carol").click()
    arrived(browser, lambda b: "/submissions/" in b.current_url)
    assert "submission 1 of carol" in browser.page_source


def axe_violations(browser: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page (its id, impact, elements)."""
    browser.execute_script(AXE.read_text(encoding="utf-8"))
    browser.set_script_timeout(120)
    found: list[dict[str, Any]] = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations.map("
        "v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' '))}))));"
    )
    return [v for v in found if v["impact"] in ("serious", "critical")]


def looks_right(browser: Any, url: str, width: int, shot: Path, dated: bool = True) -> str:
    """Load `url` at `width` CSS pixels, save a screenshot, check what every page must be; the
    page's text."""
    from selenium.webdriver.common.by import By

    browser.set_window_size(width, 900)
    browser.get(url)
    assert browser.execute_script("return window.innerWidth;") <= width
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth;"), (
        url,
        width,
    )
    assert browser.execute_script("return getComputedStyle(document.body).display;") == "grid"
    meta = browser.find_element(By.CSS_SELECTOR, "meta[name=viewport]")
    assert meta.get_attribute("content") == "width=device-width, initial-scale=1"
    times = browser.find_elements(By.TAG_NAME, "time")
    assert times or not dated, url
    for time in times:
        exact = time.get_attribute("title")
        assert exact.endswith(("+01:00", "+02:00")) and "." not in exact, exact
        assert time.text.endswith((" CET", " CEST")), time.text
    assert not axe_violations(browser), (url, width, axe_violations(browser))
    browser.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}
    )  # simple.css's dark theme
    try:
        assert not axe_violations(browser), (url, width, "dark", axe_violations(browser))
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    text: str = browser.find_element(By.TAG_NAME, "body").text
    height = browser.execute_script("return document.documentElement.scrollHeight;")
    browser.set_window_size(width, min(int(height) + 100, 6000))  # the whole page in the shot
    browser.save_screenshot(str(shot))
    return text


def test_the_students_pages_at_a_desktop_and_a_phone_width(
    service: Service, keys: dict[str, str], browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from selenium.webdriver.common.by import By

    visible, hidden, visible_points, all_points = visible_and_hidden()
    o_never_wins = REFERENCE.read_text().replace(
        "            return first\n", "            return first if first == 1 else 0\n"
    )
    data = service.graded("open", [("grid.py", o_never_wins.encode())], keys["bob"])
    shots = tmp_path_factory.mktemp("screenshots")
    sign_in(browser, service.url, keys["bob"])
    for width in WIDTHS:
        home = looks_right(browser, f"{service.url}/", width, shots / f"home-{width}.png")
        assert re.search(r"\(in \d+ years\)", home), home  # the due date, 2099, relative
        counted = browser.find_element(By.CSS_SELECTOR, "#assignment-open tr.counted")
        assert f"{data['score']:g} / {visible_points:g}" in counted.text and "counts" in counted.text
        looks_right(browser, f"{service.url}/assignments/open", width, shots / f"assignment-{width}.png")
        assert browser.find_elements(By.CSS_SELECTOR, "#statement h1, #statement h2")
        page = looks_right(
            browser, f"{service.url}/submissions/{data['id']}", width, shots / f"submission-{width}.png"
        )
        passed = browser.find_elements(By.CSS_SELECTOR, "#tests .verdict.v-AC")
        assert passed and passed[0].value_of_css_property("background-color") in (
            "rgba(27, 94, 32, 1)",
            "rgb(27, 94, 32)",
        )  # grader.css's badge, under the CSP
        lines = browser.find_elements(By.CSS_SELECTOR, "#questions tbody tr")
        assert lines, page
        failed = {
            name for line in lines for name in line.find_elements(By.TAG_NAME, "td")[2].text.split(", ")
        }
        assert failed - {"none"} and failed - {"none"} <= visible, failed
        assert not [name for name in hidden if name in browser.page_source]
        assert f"{all_points - visible_points:g} more point(s) in hidden tests" in page
    assert len(list(shots.glob("*.png"))) == 3 * len(WIDTHS)


def test_the_sign_in_and_instructor_pages_at_a_phone_width(
    service: Service, keys: dict[str, str], browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    shots = tmp_path_factory.mktemp("screenshots")
    browser.get(f"{service.url}/")
    looks_right(browser, f"{service.url}/", 390, shots / "signin-390.png", dated=False)
    sign_in(browser, service.url, keys["alice"])
    for width in WIDTHS:
        looks_right(browser, f"{service.url}/instructor/", width, shots / f"queue-{width}.png")
        looks_right(
            browser, f"{service.url}/instructor/past", width, shots / f"class-{width}.png", dated=False
        )
