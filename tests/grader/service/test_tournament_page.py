"""The tournament page of an assignment that opts in (`tournament:` in the course file): an
instructor asks for it behind a confirmation page, the service's worker plays the students'
counted submissions with the pinned suite (a student's upload graded before the next game), the
standings, crosstable and records show escaped; students get 403 on it, and see the standings
(logins and results only) once released when the course file lets them."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.grader.service.conftest import WAIT_S, Service, csrf, grader, signed_in, tokens, write_course
from tests.grader.service.test_audit import form_again

ROOT = Path(__file__).resolve().parents[3]
ENGINE = (ROOT / "reference" / "ultimate" / "engine.py").read_bytes()
HTML = "<img src=x onerror=alert(1)>"
# Each sleeps 3 s of wall time before its (wrong) answer: a game with it lasts long enough for an
# upload to wait on it; each forfeits (WA) at its first move.
SLEEPY_HTML = (
    "import time\n\ndef build_tables():\n    return 0\n\n"
    f"def search(board, side, depth, tables):\n    time.sleep(3)\n    return {HTML!r}\n"
).encode()
SLEEPY_ILLEGAL = (
    b"import time\n\ndef build_tables():\n    return 0\n\n"
    b"def search(board, side, depth, tables):\n    time.sleep(3)\n    return 0, [81]\n"
)
COURSE = """\
title: Tournaments
timezone: Europe/Paris  # the browser check (test_browser.looks_right) expects it
roster: roster.csv
instructors: [alice]
assignments:
  - name: duel
    exercise: suite/suite.yaml
    due: 2020-01-01T00:00:00Z
    late: {per_minute: 0.01, max: 1}
    tournament: {games: 1, standings: students}
  - name: quiet
    exercise: suite/suite.yaml
    due: 2099-01-01T00:00:00Z
"""


def tiny_ultimate(folder: Path) -> None:
    """fixtures/ultimate as `folder/suite`, its referee and recorded expectations, with one
    cheap test (move-names) of its many: a grading takes a few seconds."""
    suite = folder / "suite"
    shutil.copytree(
        ROOT / "fixtures" / "ultimate", suite, ignore=shutil.ignore_patterns("mutants", "solutions")
    )
    whole = (suite / "suite.yaml").read_text()
    head, tests = whole.split("\ntests:\n", 1)
    start = tests.index("  - name: move-names\n")
    end = tests.index("  - name: ", start + 1)
    head = re.sub(
        r"questions:\n(  - .*\n)+", 'questions:\n  - {id: names, title: "Move names"}\n', head + "\n"
    )
    (suite / "suite.yaml").write_text(head + "tests:\n" + tests[start:end])


def confirmed(session: requests.Session, url: str, path: str, **fields: str) -> requests.Response:
    page = session.get(f"{url}/instructor/duel", timeout=60)
    return session.post(
        f"{url}{path}",
        data={"confirm": "yes", "csrfmiddlewaretoken": csrf(page.text), **fields},
        timeout=60,
        allow_redirects=False,
    )


def tournament_page(session: requests.Session, url: str) -> str:
    reply = session.get(f"{url}/instructor/duel/tournament", timeout=60)
    assert reply.status_code == 200, reply.text
    return reply.text


@pytest.mark.slow  # three gradings, three games (each a few seconds), two uploads waiting
def test_an_instructor_runs_a_tournament_and_students_see_the_released_standings(tmp_path: Path) -> None:
    tiny_ultimate(tmp_path)
    course = write_course(tmp_path, COURSE)
    keys = tokens(course)
    service = Service(course, workers=1).start()
    try:
        for login, source in (("bob", ENGINE), ("carol", SLEEPY_HTML), ("dave", SLEEPY_ILLEGAL)):
            graded = service.graded("duel", [("engine.py", source)], keys[login])
            assert graded["status"] == "graded", graded
        student = signed_in(service.url, keys["bob"])
        for path in ("/instructor/duel/tournament", "/instructor/duel/tournament/run"):
            assert student.get(f"{service.url}{path}", timeout=30).status_code == 403
        assert student.get(f"{service.url}/assignments/duel/tournament", timeout=30).status_code == 404

        alice = signed_in(service.url, keys["alice"])
        assert 'id="run-tournament"' in alice.get(f"{service.url}/instructor/duel", timeout=30).text
        assert 'id="run-tournament"' not in alice.get(f"{service.url}/instructor/quiet", timeout=30).text
        assert alice.get(f"{service.url}/instructor/quiet/tournament", timeout=30).status_code == 404
        unconfirmed = alice.post(
            f"{service.url}/instructor/duel/tournament/run",
            data={"csrfmiddlewaretoken": csrf(tournament_page(alice, service.url))},
            timeout=30,
        )
        assert "Confirm the tournament" in unconfirmed.text and "3 student(s)" in unconfirmed.text
        forged = requests.post(  # no CSRF token: refused
            f"{service.url}/instructor/duel/tournament/run",
            data={"confirm": "yes"},
            cookies=alice.cookies,
            timeout=30,
        )
        assert forged.status_code == 403
        asked = confirmed(alice, service.url, "/instructor/duel/tournament/run", reason="week 3")
        assert asked.status_code == 302 and asked.headers["Location"].endswith("tournament?done=asked")
        again = confirmed(alice, service.url, "/instructor/duel/tournament/run")
        form_again(again, "tournament-run-form", "already queued or being played", {"reason": ""})

        deadline = time.monotonic() + WAIT_S
        while "game 1 of 3" not in (page := tournament_page(alice, service.url)):
            assert time.monotonic() < deadline and 'id="played"' not in page, page
            time.sleep(0.1)
        # erin's upload, during the first game, is graded before the second game
        upload = service.graded("duel", [("engine.py", ENGINE)], keys["erin"])
        assert upload["status"] == "graded"
        assert 'id="played"' not in tournament_page(alice, service.url)

        while 'id="played"' not in (page := tournament_page(alice, service.url)):
            assert time.monotonic() < deadline, page
            time.sleep(0.2)
        standings = page[page.index('id="standings"') : page.index('id="crosstable"')]
        assert standings.index("bob") < min(standings.index("carol"), standings.index("dave"))
        assert "erin" not in standings  # she had no submission when the tournament was asked for
        assert HTML not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
        assert "81 is not a legal move" in page and page.count("verdict v-WA") >= 2
        audit = alice.get(f"{service.url}/instructor/duel/audit", timeout=30).text
        assert "tournament" in audit and "week 3" in audit

        assert confirmed(alice, service.url, "/instructor/duel/release").status_code == 302
        shown = student.get(f"{service.url}/assignments/duel/tournament", timeout=30)
        assert shown.status_code == 200 and 'id="standings"' in shown.text
        assert "carol" in shown.text and 'id="games"' not in shown.text
        assert "img" not in shown.text and "legal move" not in shown.text  # no game record
        if shutil.which("chromium") and shutil.which("chromedriver"):
            at_390_pixels(service, keys, tmp_path)
    finally:
        service.stop()


def at_390_pixels(service: Service, keys: dict[str, str], folder: Path) -> None:
    """The instructors' tournament page and the students' standings in Chromium at a phone's
    width: no sideways scrolling of the page (the tables scroll in their frame), no serious
    accessibility violation, an engine's markup shown as text."""
    from selenium.webdriver.common.by import By

    from tests.grader.service.test_browser import looks_right, sign_in, start_chromium

    browser = start_chromium(folder / "profile")
    try:
        sign_in(browser, service.url, keys["alice"])
        url = f"{service.url}/instructor/duel/tournament"
        text = looks_right(browser, url, 390, folder / "tournament-390.png", dated=False)
        assert HTML in text and not browser.find_elements(By.CSS_SELECTOR, "main img, main script")
        sign_in(browser, service.url, keys["bob"])
        url = f"{service.url}/assignments/duel/tournament"
        assert "carol" in looks_right(browser, url, 390, folder / "standings-390.png", dated=False)
    finally:
        browser.quit()


def test_serve_refuses_a_tournament_its_suite_has_no_referee_for(tmp_path: Path) -> None:
    course = write_course(
        tmp_path,
        "title: t\nroster: roster.csv\nassignments:\n  - name: grids\n    exercise: bitgrid\n"
        "    due: 2099-01-01T00:00:00Z\n    tournament: {games: 2}\n",
    )
    done = grader("serve", str(course), "--port", "0", "--sandbox", "process", timeout=60)
    assert done.returncode == 3, done.stdout + done.stderr
    error = done.stderr.strip().splitlines()
    assert len(error) == 1 and error[0].startswith(f"error: {course}:7: assignments.0.tournament: ")
    assert "bitgrid has no tournament" in error[0] and "/tmp/" not in error[0].split(": ", 2)[2]


HOSTILE = "<script>alert(1)</script>"


def hostile_tournament() -> dict[str, Any]:
    """tournament.json's data where every text a student controls is markup: a login (an LMS
    may create one), the moves an engine named, a forfeit's reason, a void game's reason."""
    standing = {
        "games": 2, "wins": 1, "draws": 0, "losses": 1, "forfeits": 1, "forfeit_verdicts": {"WA": 1},
        "points": 1.0, "rating": -1.5, "mu": 25.0, "sigma": 8.0,
    }  # fmt: skip
    seats = [HOSTILE, "bob"]
    return {
        "exercise": "ultimate",
        "call": "engine.search(board, side, 3, engine.build_tables())",
        "move_cpu_s": 10.0,
        "games_per_pair": 2,
        "sandbox": "process",
        "wall_s": 1.0,
        "standings": [{**standing, "student": HOSTILE}, {**standing, "student": "bob"}],
        "crosstable": {HOSTILE: {"bob": 1.0}, "bob": {HOSTILE: 1.0}},
        "games": [
            {
                "number": 0, "opening": 0, "seats": seats, "moves": [HOSTILE, "e5"], "cpu_s": [0.1, 0.2],
                "score": 0.0, "void": None,
                "forfeit": {"seat": 0, "verdict": "WA", "reason": HOSTILE, "ply": 2},
            },
            {
                "number": 1, "opening": 0, "seats": seats[::-1], "moves": [], "cpu_s": [0.0, 0.0],
                "score": None, "forfeit": None, "void": HOSTILE,
            },
        ],
    }  # fmt: skip


def test_whatever_a_student_controls_is_inert_on_the_pages() -> None:
    from django.template import Context, Engine

    from grader.service.setup import configure_without_course

    configure_without_course()
    from grader.service import tournament_pages

    data = hostile_tournament()
    templates = ROOT / "grader" / "service" / "templates"
    engine = Engine(dirs=[str(templates)], autoescape=True)
    context = {
        "data": data,
        "standings": tournament_pages.standings_rows(data),
        "crosstable": tournament_pages.crosstable_rows(data),
        "columns": [1, 2],
        "games": tournament_pages.game_rows(data),
    }
    for name in ("service/tournament_tables.html", "service/tournament_games.html"):
        page = engine.get_template(name).render(Context(context))
        assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page, page
