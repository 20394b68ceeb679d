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

from tests.grader.service.conftest import COURSE, REFERENCE, SLOW, WAIT_S, Service, write_course
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

    # winner() waits 1.5 s in the tests that ask about the empty grid: the page is seen before it is graded.
    slow = tmp_path / "grid.py"
    slow.write_text(SLOW)
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
    browser.set_window_size(1280, 1000)  # the header in view: simple.css scrolls smoothly
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


def looks_right(browser: Any, url: str, width: int, shot: Path, dated: bool = True, load: bool = True) -> str:
    """Load `url` (unless not `load`: the page shown) at `width` CSS pixels, save a screenshot,
    check what every page must be; the page's text."""
    from selenium.webdriver.common.by import By

    browser.set_window_size(width, 900)
    if load:
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
        shown = time.get_attribute("textContent")  # also inside a folded <details>
        assert shown.endswith((" CET", " CEST")), shown
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
        assert re.search(r"Due in \d+ years \(\w{3} \d+ \w{3} 2099, \d\d:\d\d CES?T\)", home), home
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
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    shots = tmp_path_factory.mktemp("screenshots")
    for width in (1280, 390):
        looks_right(browser, f"{service.url}/", width, shots / f"signin-{width}.png", dated=False)
    sign_in(browser, service.url, keys["alice"])
    for width in WIDTHS:
        looks_right(browser, f"{service.url}/instructor/", width, shots / f"queue-{width}.png")
        looks_right(
            browser, f"{service.url}/instructor/past", width, shots / f"class-{width}.png", dated=False
        )
    # a mistake in a form (the class page just shown): the form again, the message, what was typed
    browser.find_element(By.CSS_SELECTOR, "#giveback-form [name=login]").send_keys("nobody")
    browser.find_element(By.CSS_SELECTOR, "#giveback-form [name=submission]").send_keys("1")
    browser.find_element(By.CSS_SELECTOR, "#giveback-form [name=reason]").send_keys("<b>ill</b>")
    browser.find_element(By.CSS_SELECTOR, "#giveback-form button[type=submit]").send_keys(Keys.ENTER)
    arrived(browser, lambda b: b.find_elements(By.ID, "problem"))
    for width in (1280, 390):
        looks_right(browser, "", width, shots / f"giveback-mistake-{width}.png", dated=False, load=False)
    assert "login: no student 'nobody' in the roster" in browser.find_element(By.ID, "problem").text
    reason = browser.find_element(By.CSS_SELECTOR, "#giveback-form [name=reason]")
    assert reason.get_attribute("value") == "<b>ill</b>"
    for width in (1280, 390):  # the confirmation pages and the audit log
        for action in ("regrade", "release"):
            text = looks_right(
                browser,
                f"{service.url}/instructor/past/{action}?reason=exam",
                width,
                shots / f"confirm-{action}-{width}.png",
                dated=False,
            )
            assert f"Confirm the {action}" in text
        text = looks_right(
            browser, f"{service.url}/instructor/past/audit", width, shots / f"audit-{width}.png", dated=False
        )
        assert "audit log" in text


RAISING_HTML = (
    REFERENCE.read_text().replace("def winner(", "def winner_fast(", 1)
    + "\n\ndef winner(grid):\n    raise ValueError('<img src=x onerror=alert(1)><script>alert(2)</script>')\n"
)


def test_the_class_table_its_statistics_and_the_extension_form_in_a_browser(
    service: Service, keys: dict[str, str], browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The class table of a class with a wrong, a hostile and a CE submission at a desktop's and
    a phone's width: attempts unfold, the filter form works without a script, the histogram's
    bars take the theme's colour under the CSP, nothing a student wrote runs; the extension
    form's mistake comes back as a form, and the date picker saves a due date in the zone."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    service.graded("never", [("grid.py", RAISING_HTML.encode())], keys["carol"])
    service.graded("never", [("grid.py", REFERENCE.read_bytes())], keys["carol"])
    service.graded("never", [("grid.py", b"def winner(:\n")], keys["dave"])
    service.graded("never", [("grid.py", RAISING_HTML.encode())], keys["erin"])
    shots = tmp_path_factory.mktemp("screenshots")
    sign_in(browser, service.url, keys["alice"])
    for width in (1280, 390):
        text = looks_right(
            browser, f"{service.url}/instructor/never", width, shots / f"class-table-{width}.png"
        )
        assert "Per question" in text and "Most common failure texts" in text
        heads = browser.execute_script(
            "return Array.from(document.querySelectorAll('#students th.part')).map(th => ["
            "th.querySelector('abbr').title, th.querySelector('abbr').getBoundingClientRect().top,"
            "th.querySelector('.muted').getBoundingClientRect().top]);"
        )
        assert heads and all(abbr == points for _, abbr, points in heads), heads  # one line each
        assert all(title in text for title, _, _ in heads)  # spelled out in the legend
        assert not browser.find_elements(By.CSS_SELECTOR, "main img, main script")
        assert "<img src=x onerror=alert(1)><script>alert(2)</script>" in text  # shown, as text
        bar = browser.find_element(By.CSS_SELECTOR, "svg.histogram rect.bar")
        assert bar.value_of_css_property("fill") in ("rgb(13, 71, 161)", "rgba(13, 71, 161, 1)")  # --accent
        carol = browser.find_element(By.ID, "row-carol")
        details = carol.find_element(By.TAG_NAME, "details")
        assert not details.find_element(By.CSS_SELECTOR, "ol.attempts").is_displayed()
        browser.set_window_size(width, 900)
        details.find_element(By.TAG_NAME, "summary").send_keys(Keys.ENTER)  # the keyboard unfolds it
        items = details.find_elements(By.CSS_SELECTOR, "ol.attempts li")
        assert len(items) == 2 and items[0].is_displayed() and "counts" in items[0].text
        assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth;")
    browser.set_window_size(1280, 900)
    search = browser.find_element(By.NAME, "q")
    search.send_keys("car")
    search.submit()
    arrived(browser, lambda b: "q=car" in b.current_url)
    assert [
        row.get_attribute("id") for row in browser.find_elements(By.CSS_SELECTOR, "#students tbody tr")
    ] == ["row-carol"]
    browser.set_window_size(1280, 900)
    browser.get(f"{service.url}/instructor/never")
    browser.find_element(By.CSS_SELECTOR, "#extension-form [name=login]").send_keys("nobody")
    picker = browser.find_element(By.CSS_SELECTOR, "#extension-form input[type=datetime-local][name=due]")
    browser.execute_script("arguments[0].value = '2099-06-01T12:00';", picker)
    browser.find_element(By.CSS_SELECTOR, "#extension-form [name=reason]").send_keys("ill")
    browser.find_element(By.CSS_SELECTOR, "#extension-form button[type=submit]").send_keys(Keys.ENTER)
    arrived(browser, lambda b: b.find_elements(By.ID, "problem"))
    for width in (1280, 390):
        looks_right(browser, "", width, shots / f"extension-mistake-{width}.png", dated=False, load=False)
    assert "no student 'nobody'" in browser.find_element(By.ID, "problem").text
    again = browser.find_element(By.CSS_SELECTOR, "input[type=datetime-local][name=due]")
    assert again.get_attribute("value") == "2099-06-01T12:00"
    assert (
        browser.find_element(By.CSS_SELECTOR, "#extension-form [name=reason]").get_attribute("value") == "ill"
    )
    login = browser.find_element(By.CSS_SELECTOR, "#extension-form [name=login]")
    login.clear()
    login.send_keys("dave")
    browser.find_element(By.CSS_SELECTOR, "#extension-form button[type=submit]").send_keys(Keys.ENTER)
    arrived(browser, lambda b: "done=extension" in b.current_url)
    assert "dave: Mon 1 Jun 2099, 12:00 CEST" in browser.find_element(By.TAG_NAME, "body").text


def test_the_queue_page_refreshes_itself(
    service: Service, keys: dict[str, str], browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    shots = tmp_path_factory.mktemp("screenshots")
    sign_in(browser, service.url, keys["alice"])
    for width in (1280, 390):
        looks_right(browser, f"{service.url}/instructor/", width, shots / f"queue-{width}.png")
    heads = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#queue-table th")]
    assert heads[0] == "position" and "kind" in heads
    browser.execute_script("window.notReloaded = true; document.getElementById('queue').dataset.old = '1';")
    assert browser.find_element(By.ID, "queue-refreshing").is_displayed()
    WebDriverWait(browser, 30, poll_frequency=0.5).until(
        lambda b: not b.find_elements(By.CSS_SELECTOR, "#queue[data-old]")
    )
    assert browser.execute_script("return window.notReloaded === true;")
    assert browser.find_element(By.ID, "queue-refreshing").is_displayed()
