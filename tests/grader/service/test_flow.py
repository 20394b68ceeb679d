"""The whole flow on a real server: course file, tokens, submissions through the API and
`grader submit`, hidden tests, late penalties, attempts, extensions, release, regrade, grades."""

from __future__ import annotations

import csv
import io
import re
import sqlite3
from pathlib import Path

import pytest

from grader.judge.grade import grade
from grader.judge.mutants import applied, mutants_of
from grader.suite.load import load_suite
from tests.grader.service.conftest import (
    REFERENCE,
    STUB,
    Service,
    csrf,
    grader,
    running,
    signed_in,
    tokens,
    write_course,
)

pytestmark = pytest.mark.slow


def visible_and_hidden() -> tuple[set[str], set[str], float, float]:
    tests = load_suite("bitgrid").suite.tests
    visible = {t.name for t in tests if t.visibility == "visible"}
    return (
        visible,
        {t.name for t in tests} - visible,
        sum(t.points for t in tests if t.name in visible),
        sum(t.points for t in tests),
    )


def test_reference_full_marks_hidden_redacted_before_due(service: Service, keys: dict[str, str]) -> None:
    visible, hidden, visible_points, all_points = visible_and_hidden()
    assert hidden, "bitgrid has hidden tests"
    data = service.graded("open", [("grid.py", REFERENCE.read_bytes())], keys["bob"])
    assert data["status"] == "graded" and data["login"] == "bob" and data["assignment"] == "open"
    assert {t["name"] for t in data["results"]["tests"]} == visible
    assert data["score"] == data["max_score"] == visible_points
    assert data["results"]["score"] == visible_points
    assert data["late_minutes"] == 0 and data["penalty"] == 0 and data["final_score"] == visible_points
    assert data["counts"]  # the latest counts
    full = service.get(data["id"], keys["alice"]).json()  # the instructor sees every test
    assert {t["name"] for t in full["results"]["tests"]} == visible | hidden
    assert full["score"] == full["max_score"] == all_points


def test_points_per_question_before_release_count_visible_tests_only(
    service: Service, keys: dict[str, str]
) -> None:
    visible, hidden, visible_points, all_points = visible_and_hidden()
    o_never_wins = REFERENCE.read_text().replace(
        "            return first\n", "            return first if first == 1 else 0\n"
    )
    assert o_never_wins != REFERENCE.read_text()
    data = service.graded("open", [("grid.py", o_never_wins.encode())], keys["erin"])
    questions = data["results"]["extra_data"]["questions"]
    assert questions and sum(q["max_score"] for q in questions) == visible_points
    assert sum(q["score"] for q in questions) == data["score"] < visible_points
    named = {name for q in questions for name in q["lost"]}
    assert named and named <= visible and not named & hidden, named
    assert not [name for name in hidden if name in repr(data)]  # no hidden name anywhere
    full = service.get(data["id"], keys["alice"]).json()["results"]["extra_data"]["questions"]
    assert {name for q in full for name in q["lost"]} & hidden  # the instructor sees them
    page = (
        signed_in(service.url, keys["erin"]).get(f"{service.url}/submissions/{data['id']}", timeout=30).text
    )
    table = page.split('id="questions"', 1)[1].split("</table>", 1)[0]
    assert table.count("<tr>") == len(questions) + 1 and all(name in table for name in named)
    assert not [name for name in hidden if name in page]  # no hidden name on the page either
    assert f"{all_points - visible_points:g} more point(s) in hidden tests" in page


def test_a_submission_that_does_not_import_says_so_once_at_the_top(
    service: Service, keys: dict[str, str]
) -> None:
    data = service.graded("open", [("grid.py", b"def winner(:\n")], keys["dave"])
    page = (
        signed_in(service.url, keys["dave"]).get(f"{service.url}/submissions/{data['id']}", timeout=30).text
    )
    assert page.count("No test could run") == 1, page
    assert page.index("No test could run") < page.index('id="score"')
    assert "CE (see above)" not in page  # no test repeats it


def test_stubs_score_zero(service: Service, keys: dict[str, str]) -> None:
    data = service.graded("open", [("grid.py", STUB.read_bytes())], keys["carol"])
    assert data["score"] == 0
    assert {t["extra_data"]["verdict"] for t in data["results"]["tests"]} == {"NI"}


def test_a_mutant_gets_the_verdicts_the_engine_gives_it(service: Service, keys: dict[str, str]) -> None:
    loaded = load_suite("bitgrid")
    mutant = next(m for m in mutants_of(loaded.exercise) if m.verdict.value == "WA")
    with applied(mutant, loaded.exercise.reference) as folder:
        direct = grade(loaded, folder, sandbox="process")
        data = service.graded("open", [("grid.py", (folder / "grid.py").read_bytes())], keys["dave"])
    got = {
        t["name"]: t["extra_data"]["verdict"]
        for t in service.get(data["id"], keys["alice"]).json()["results"]["tests"]
    }
    assert got == {r.name: r.verdict.value for r in direct.results}
    assert "WA" in got.values()


def test_grader_submit_prints_the_report(service: Service, keys: dict[str, str], tmp_path: Path) -> None:
    copy = tmp_path / "grid.py"
    copy.write_bytes(REFERENCE.read_bytes())
    _, _, visible_points, all_points = visible_and_hidden()
    done = grader("submit", service.url, "open", str(copy), env={"GRADER_TOKEN": keys["erin"]})
    assert done.returncode == 0, done.stderr
    assert f"Score: {visible_points:g} / {visible_points:g} of the visible tests' points; " in done.stdout
    assert f"{all_points - visible_points:g} more point(s) in hidden tests" in done.stdout
    assert "hidden test(s)" in done.stdout
    assert done.stdout.index("Points per question") < done.stdout.index("Tests")
    copy.write_bytes(b"def winner(:\n")
    broken = grader("submit", service.url, "open", str(copy), env={"GRADER_TOKEN": keys["erin"]})
    assert broken.returncode == 0, broken.stderr
    assert broken.stdout.count("No test could run") == 1 and broken.stdout.count("SyntaxError") == 1
    assert broken.stdout.index("No test could run") < broken.stdout.index("Points per question")
    wrong = grader("submit", service.url, "open", str(copy), "--token", "nope", env={"GRADER_TOKEN": ""})
    assert wrong.returncode == 3 and "HTTP 401" in wrong.stderr
    assert len(wrong.stderr.strip().splitlines()) == 1
    missing = grader("submit", service.url, "open", str(tmp_path / "absent.py"), "--token", "x")
    assert missing.returncode == 3 and "absent.py: no such file" in missing.stderr
    unknown = grader("submit", service.url, "no-such", str(copy), "--token", keys["erin"])
    assert unknown.returncode == 3 and "no assignment named 'no-such'" in unknown.stderr


def test_late_submission_penalty_and_hidden_shown_after_due(service: Service, keys: dict[str, str]) -> None:
    _, hidden, _, all_points = visible_and_hidden()
    data = service.graded("past", [("grid.py", REFERENCE.read_bytes())], keys["bob"])
    assert data["late_minutes"] > 60 * 24 * 365  # due in 2020
    assert data["penalty"] == 5  # 1 point a minute, at most 5
    assert data["score"] == all_points and data["final_score"] == all_points - 5
    assert hidden <= {t["name"] for t in data["results"]["tests"]}


def test_the_attempt_limit_is_429(service: Service, keys: dict[str, str]) -> None:
    files = [("grid.py", REFERENCE.read_bytes())]
    ids = []
    for _ in range(2):
        reply = service.post("limited", files, keys["carol"])
        assert reply.status_code == 202
        ids.append(reply.json()["id"])
    refused = service.post("limited", files, keys["carol"])
    assert refused.status_code == 429
    assert "no attempt left" in refused.json()["error"]
    for ident in ids:  # two workers: the second may finish first, or after the first is read
        service.wait(ident, keys["carol"])
    first, second = (service.get(ident, keys["carol"]).json() for ident in ids)
    assert not first["counts"] and second["counts"] and first["counted_number"] == 2
    assert service.post("limited", files, keys["dave"]).status_code == 202  # per student


def test_not_open_yet_and_closed_are_403(service: Service, keys: dict[str, str]) -> None:
    files = [("grid.py", REFERENCE.read_bytes())]
    early = service.post("future", files, keys["bob"])
    assert early.status_code == 403 and "opens at Wed 1 Jan 2098, 00:00 UTC" in early.json()["error"]
    late = service.post("extended", files, keys["carol"])  # 10 %/day, refused after 1 day
    assert late.status_code == 403 and "no longer accepts" in late.json()["error"]


def test_an_extension_moves_the_due_date_of_one_student(service: Service, keys: dict[str, str]) -> None:
    instructor = signed_in(service.url, keys["alice"])
    page = instructor.get(f"{service.url}/instructor/extended", timeout=30)
    reply = instructor.post(
        f"{service.url}/instructor/extended/extension",
        data={"login": "bob", "due": "2099-01-01T00:00:00+00:00", "csrfmiddlewaretoken": csrf(page.text)},
        timeout=30,
    )
    assert reply.status_code == 200 and "extension saved" in reply.text
    data = service.graded("extended", [("grid.py", REFERENCE.read_bytes())], keys["bob"])
    assert data["late_minutes"] == 0 and data["penalty"] == 0
    visible, _, visible_points, _ = visible_and_hidden()
    assert {t["name"] for t in data["results"]["tests"]} == visible  # before his own due
    assert data["score"] == visible_points
    assert service.post("extended", [("grid.py", b"")], keys["carol"]).status_code == 403


# A course of `never` alone: hidden results come out only once no assignment of the same
# exercise earns credit any more, and the shared course's other bitgrid assignments never close.
NEVER_ONLY = """\
title: Released
roster: roster.csv
instructors: [alice]
assignments:
  - name: never
    exercise: bitgrid
    due: 2020-01-01T00:00:00Z
    late: {per_minute: 1, max: 5}
    hidden: never
"""


def test_hidden_never_until_released(tmp_path: Path) -> None:
    visible, hidden, _, all_points = visible_and_hidden()
    course = write_course(tmp_path, NEVER_ONLY)
    keys = tokens(course)
    with running(course) as service:
        data = service.graded("never", [("grid.py", REFERENCE.read_bytes())], keys["dave"])
        assert {t["name"] for t in data["results"]["tests"]} == visible
        instructor = signed_in(service.url, keys["alice"])
        page = instructor.get(f"{service.url}/instructor/never", timeout=30)
        reply = instructor.post(
            f"{service.url}/instructor/never/release",
            data={"confirm": "yes", "csrfmiddlewaretoken": csrf(page.text)},
            timeout=30,
        )
        assert reply.status_code == 200 and "released" in reply.text
        after = service.get(data["id"], keys["dave"]).json()
    assert {t["name"] for t in after["results"]["tests"]} == visible | hidden
    assert after["score"] == all_points


def test_regrade_of_one_test_adds_one_attempt_to_the_gradebook(
    service: Service, keys: dict[str, str], course_file: Path
) -> None:
    data = service.graded("past", [("grid.py", REFERENCE.read_bytes())], keys["erin"])
    before = service.get(data["id"], keys["alice"]).json()["results"]["tests"]
    book = course_file.parent / "course-service" / "gradebooks" / "past" / "gradebook.sqlite"
    with sqlite3.connect(book) as db:
        attempts_before = db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0]
    instructor = signed_in(service.url, keys["alice"])
    page = instructor.get(f"{service.url}/instructor/past", timeout=30)
    reply = instructor.post(
        f"{service.url}/instructor/past/regrade",
        data={"test": "winner", "confirm": "yes", "csrfmiddlewaretoken": csrf(page.text)},
        timeout=30,
    )
    assert reply.status_code == 200 and "regrading" in reply.text
    regraded = service.wait(data["id"], keys["alice"])
    after = regraded["results"]["tests"]
    assert [t["name"] for t in after] == [t["name"] for t in before]
    untouched = [(b, a) for b, a in zip(before, after, strict=True) if b["name"] != "winner"]
    assert all(b == a for b, a in untouched)  # the other tests' results are kept as they were
    with sqlite3.connect(book) as db:
        graded_subs = db.execute("SELECT COUNT(*) FROM keys").fetchone()[0]
        attempts_after = db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0]
    assert attempts_after > attempts_before and attempts_after == graded_subs
    listing = grader("gradebook", str(book.parent), "--changes")
    assert listing.returncode == 0, listing.stderr


def test_grades_csv_and_the_class_table_list_every_student(service: Service, keys: dict[str, str]) -> None:
    import requests

    # bob's own late submission, whichever worker ran the other tests of this module
    service.graded("past", [("grid.py", REFERENCE.read_bytes())], keys["bob"])
    reply = requests.get(
        f"{service.url}/api/assignments/past/grades.csv",
        headers={"Authorization": f"Bearer {keys['alice']}"},
        timeout=30,
    )
    assert reply.status_code == 200
    rows = {row["login"]: row for row in csv.DictReader(io.StringIO(reply.text))}
    assert set(rows) == {"bob", "carol", "dave", "erin"}  # instructors left out
    assert rows["carol"]["status"] == "missing" and rows["carol"]["final_score"] == "0"
    assert float(rows["bob"]["penalty"]) == 5
    assert float(rows["bob"]["final_score"]) == float(rows["bob"]["score"]) - 5
    table = signed_in(service.url, keys["alice"]).get(f"{service.url}/instructor/past", timeout=30)
    assert table.status_code == 200
    assert "&lt;b&gt;Erin&lt;/b&gt;" in table.text and "<b>Erin</b>" not in table.text
    for heading in ("login", "name", "status", "attempts", "late minutes", "score", "penalty", "final score"):
        assert f">{heading}</th>" in table.text


def test_the_web_flow_signs_in_uploads_and_shows_the_score(service: Service, keys: dict[str, str]) -> None:
    session = signed_in(service.url, keys["dave"])
    page = session.get(f"{service.url}/assignments/past", timeout=30)
    reply = session.post(
        f"{service.url}/assignments/past",
        data={"csrfmiddlewaretoken": csrf(page.text)},
        files=[("files", ("grid.py", REFERENCE.read_bytes()))],
        timeout=30,
    )
    assert reply.status_code == 200 and "/submissions/" in reply.url
    ident = reply.url.rsplit("/", 1)[1]
    service.wait(ident, keys["dave"])
    shown = session.get(reply.url, timeout=30).text
    _, _, _, all_points = visible_and_hidden()
    assert f"{all_points:g} / {all_points:g}" in shown


def test_tokens_are_stored_hashed(course_file: Path, keys: dict[str, str]) -> None:
    with sqlite3.connect(course_file.parent / "course.sqlite") as db:
        stored = [row[0] for row in db.execute("SELECT digest FROM service_token")]
    assert len(stored) == len(keys)
    assert not set(stored) & set(keys.values())


def test_the_database_and_the_service_folder_are_ours_only(service: Service, course_file: Path) -> None:
    import stat

    def mode(path: Path) -> int:
        return stat.S_IMODE(path.stat().st_mode)

    database = course_file.parent / "course.sqlite"
    for path in (database, database.with_name("course.sqlite-wal"), database.with_name("course.sqlite-shm")):
        assert mode(path) == 0o600, f"{path.name}: {oct(mode(path))}"
    assert mode(course_file.parent / "course-service") == 0o700


def test_a_regrade_after_fixing_the_suite_lists_what_changed(tmp_path: Path) -> None:
    """A course graded with its own copy of the suite: the instructor gives `winner` 3 points
    instead of 2; a regrade of that test still grades with the pinned suite, until the
    instructor regrades onto the new one; the class page lists the change."""
    import shutil

    from tests.grader.service.conftest import ROOT, tokens, write_course

    shutil.copytree(
        ROOT / "fixtures" / "bitgrid", tmp_path / "course" / "suite", ignore=shutil.ignore_patterns("mutants")
    )
    course = write_course(
        tmp_path / "course",
        """\
        title: own suite
        roster: roster.csv
        instructors: [alice]
        assignments:
          - name: own
            exercise: suite/suite.yaml
            due: 2020-01-01T00:00:00Z
            late: {per_minute: 1, max: 0}
        """,
    )
    keys = tokens(course)
    service = Service(course, workers=1).start()
    try:
        data = service.graded("own", [("grid.py", REFERENCE.read_bytes())], keys["bob"])
        assert data["score"] == data["max_score"] == 20
        suite = tmp_path / "course" / "suite" / "suite.yaml"
        text = suite.read_text()
        suite.write_text(
            re.sub(r"(  - name: winner\n(?:    .*\n)*?    points: )2\n", r"\g<1>3\n", text, count=1)
        )
        assert suite.read_text() != text
        instructor = signed_in(service.url, keys["alice"])
        page = instructor.get(f"{service.url}/instructor/own", timeout=30)
        assert "points changed: winner 2 -&gt; 3" in page.text and "max score 20 -&gt; 21" in page.text
        instructor.post(
            f"{service.url}/instructor/own/regrade",
            data={"test": "winner", "confirm": "yes", "csrfmiddlewaretoken": csrf(page.text)},
            timeout=30,
        )
        pinned = service.wait(data["id"], keys["bob"])
        assert pinned["score"] == pinned["max_score"] == 20  # the suite it was published with
        page = instructor.get(f"{service.url}/instructor/own", timeout=30)
        digest = re.search(r'name="digest" value="([0-9a-f]+)"', page.text)
        assert digest is not None, page.text
        instructor.post(
            f"{service.url}/instructor/own/suite/regrade",
            data={"digest": digest.group(1), "confirm": "yes", "csrfmiddlewaretoken": csrf(page.text)},
            timeout=30,
        )
        after = service.wait(data["id"], keys["bob"])
        assert after["score"] == after["max_score"] == 21
        table = instructor.get(f"{service.url}/instructor/own", timeout=30).text
        assert "bob (submission 1): 20/20 -&gt; 21/21" in table, table[table.find("<h3>") :][:600]
        assert "  winner: AC 2/2 -&gt; AC 3/3" in table
        suite.write_text("tests: [\n")  # broken while being edited: the pinned suite grades
        page = instructor.get(f"{service.url}/instructor/own", timeout=30)
        assert "the suite on disk cannot be loaded: " in page.text
        instructor.post(
            f"{service.url}/instructor/own/regrade",
            data={"confirm": "yes", "csrfmiddlewaretoken": csrf(page.text)},
            timeout=30,
        )
        again = service.wait(data["id"], keys["alice"])
        assert again["status"] == "graded" and again["score"] == 21
    finally:
        service.stop()
