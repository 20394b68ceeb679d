"""A real browser (headless Chromium driven by Selenium) against the service: sign in with a
token, upload a file, watch the submission page turn into its feedback without reloading; the
instructor's class table sorts and links."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.grader.service.conftest import REFERENCE, WAIT_S, Service

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
if CHROMIUM is None or DRIVER is None:
    pytest.skip("no Chromium or chromedriver (Debian: apt-get install chromium chromium-driver; "
                "`make` installs them where it can)", allow_module_level=True)


def start_chromium(profile: Path, *flags: str) -> Any:
    """Headless Chromium under chromedriver, its profile in `profile`, with `flags` added."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service as DriverService

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 f"--user-data-dir={profile}", *flags):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=DriverService(str(DRIVER)))


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
        service: Service, keys: dict[str, str], browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    # winner() waits 1.5 s in each test that calls it: the page is seen before it is graded.
    slow = tmp_path / "grid.py"
    slow.write_text(REFERENCE.read_text().replace("def winner(", "def winner_fast(", 1) + (
        "\n\n_slept = []\n\n\ndef winner(grid):\n    import time\n"
        "    if not _slept:\n        _slept.append(1)\n        time.sleep(1.5)\n"
        "    return winner_fast(grid)\n"))
    sign_in(browser, service.url, keys["bob"])
    browser.get(f"{service.url}/assignments/past")
    browser.find_element(By.NAME, "files").send_keys(str(slow))
    browser.find_element(By.CSS_SELECTOR, "form[enctype] button[type=submit]").click()
    arrived(browser, lambda b: "/submissions/" in b.current_url and b.find_elements(By.ID, "status"))
    first = browser.find_element(By.ID, "status").text
    assert first in ("queued", "running"), first
    browser.execute_script("window.notReloaded = true;")
    WebDriverWait(browser, WAIT_S, poll_frequency=0.2).until(
        lambda b: b.find_elements(By.ID, "score"))
    assert browser.execute_script("return window.notReloaded === true;")
    assert browser.find_element(By.ID, "score").text == "19 / 19"
    assert browser.find_element(By.ID, "status").text == "graded"
    logs = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"
            and "favicon.ico" not in entry["message"]]
    assert not logs, logs  # no script refused by the Content-Security-Policy, no error


def test_the_instructor_table_sorts_and_links(service: Service, keys: dict[str, str],
                                              browser: Any) -> None:
    from selenium.webdriver.common.by import By

    for login in ("carol", "dave"):
        service.graded("past", [("grid.py", REFERENCE.read_bytes())], keys[login])
    sign_in(browser, service.url, keys["alice"])
    browser.get(f"{service.url}/instructor/past")

    def logins() -> list[str]:
        return [row.find_elements(By.TAG_NAME, "td")[0].text
                for row in browser.find_elements(By.CSS_SELECTOR, "#students tbody tr")]

    assert logins() == sorted(logins())
    attempts = browser.find_element(By.CSS_SELECTOR, "#students th[data-column='3']")
    attempts.click()
    ascending = browser.find_element(By.ID, "students").get_attribute("data-sorted")
    attempts.click()
    assert (ascending, browser.find_element(By.ID, "students").get_attribute("data-sorted")) == \
        ("3-asc", "3-desc")
    counts = [int(row.find_elements(By.TAG_NAME, "td")[3].text)
              for row in browser.find_elements(By.CSS_SELECTOR, "#students tbody tr")]
    assert counts == sorted(counts, reverse=True) and counts[-1] == 0  # erin never submitted
    browser.find_element(By.LINK_TEXT, "carol").click()
    arrived(browser, lambda b: "/submissions/" in b.current_url)
    assert "submission 1 of carol" in browser.page_source
