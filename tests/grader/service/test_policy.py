"""Issue 29, "Hidden stays hidden": no policy hands a student a hidden test's failure text (its
case and expected value) while a submission can still earn credit, `late: none` (and a missing
`late:`) closes at the due date, a release waits for every running extension, `counts: best`
never breaks a visible tie by hidden scores, and the service's files are ours only."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.grader.service.conftest import (
    REFERENCE,
    ROOT,
    Service,
    csrf,
    grader,
    running,
    signed_in,
    tokens,
    write_course,
)

pytestmark = pytest.mark.slow

POLICY_COURSE = """\
title: Hidden stays hidden
roster: roster.csv
instructors: [alice]
assignments:
  - name: penalty
    exercise: bitgrid
    due: 2020-01-01T00:00:00Z
    late: {per_minute: 1, max: 5}
  - name: closed
    exercise: bitgrid
    due: 2020-01-01T00:00:00Z
    late: none
  - name: unsaid
    exercise: bitgrid
    due: 2020-01-01T00:00:00Z
  - name: release
    exercise: bitgrid
    due: 2020-01-01T00:00:00Z
    late: {per_minute: 1, max: 5}
  - name: best
    exercise: bitgrid
    due: 2099-01-01T00:00:00Z
    counts: best
  - name: never
    exercise: bitgrid
    due: 2020-01-01T00:00:00Z
    late: {per_minute: 1, max: 5}
    hidden: never
  - name: always
    exercise: bitgrid
    due: 2099-01-01T00:00:00Z
    hidden: always
"""

# Failure texts come out only once no assignment of the exercise can earn credit any more: the
# scenarios where they do have a course of their own each (every assignment above is bitgrid's).
FINISHED_COURSE = """\
title: Finished
roster: roster.csv
instructors: [alice]
assignments:
  - name: finished
    exercise: bitgrid
    due: 2020-01-01T00:00:00Z
    late: {per_day_percent: 10, max_days: 1}
"""
RELEASED_COURSE = FINISHED_COURSE.replace("name: finished", "name: released").replace(
    "late: {per_day_percent: 10, max_days: 1}", "late: {per_minute: 1, max: 5}"
)
SIBLINGS_COURSE = (
    FINISHED_COURSE
    + """\
  - name: retry
    exercise: bitgrid
    due: 2099-01-01T00:00:00Z
"""
)


def hidden_only_grid() -> tuple[int, int]:
    """A grid that only the hidden `winner` test asks about, and its winner."""
    loaded = {}
    for name, folder in (("cases", ROOT / "fixtures" / "bitgrid"), ("grid", ROOT / "reference" / "bitgrid")):
        spec = importlib.util.spec_from_file_location(f"policy_{name}", folder / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        loaded[name] = module
    cases, grid = loaded["cases"], loaded["grid"]
    visible = {case[0] for case in cases.winner_cases()}
    for (candidate,) in cases.hidden_winner_cases():
        if candidate not in visible and grid.winner(candidate) != 0:
            return candidate, grid.winner(candidate)
    raise AssertionError("bitgrid's hidden winner cases all appear among the visible ones")


SECRET, SECRET_WINNER = hidden_only_grid()
# Passes every visible test, fails the hidden `winner-hidden` on one grid: its failure text
# would say `grid.winner(SECRET) returned 0, expected SECRET_WINNER`.
MUTANT = (
    REFERENCE.read_text()
    .replace(
        "def winner(grid: Grid) -> int:\n",
        f"def winner(grid: Grid) -> int:\n    if grid == {SECRET}:\n        return 0\n",
        1,
    )
    .encode()
)
assert REFERENCE.read_bytes() != MUTANT


@pytest.fixture(scope="module")
def policy_course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_course(tmp_path_factory.mktemp("policy"), POLICY_COURSE)


@pytest.fixture(scope="module")
def keys(policy_course: Path) -> dict[str, str]:
    return tokens(policy_course)


@pytest.fixture(scope="module")
def service(policy_course: Path, keys: dict[str, str]) -> Iterator[Service]:
    with running(policy_course) as started:
        yield started


@pytest.fixture
def own_course(tmp_path: Path) -> Iterator[Any]:
    """Start a service on a course of its own: `own_course(TEXT)` -> (service, tokens, course)."""
    started: list[Service] = []

    def start(text: str) -> tuple[Service, dict[str, str], Path]:
        course = write_course(tmp_path / f"course-{len(started)}", text)
        started.append(Service(course).start())
        return started[-1], tokens(course), course

    yield start
    for each in started:
        each.stop()


def leaks(text: str) -> bool:
    """Whether `text` holds the hidden case (as the failure text writes it)."""
    return f"({SECRET})" in text or f"{SECRET}" in text


def hidden_tests(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in data["results"]["tests"] if t["visibility"] != "visible"]


def page_of(service: Service, token: str, ident: str) -> str:
    session = signed_in(service.url, token)
    reply = session.get(f"{service.url}/submissions/{ident}", timeout=30)
    assert reply.status_code == 200, reply.text
    return reply.text


def instructor_post(
    service: Service, keys: dict[str, str], assignment: str, action: str, **fields: str
) -> Any:
    session = signed_in(service.url, keys["alice"])
    page = session.get(f"{service.url}/instructor/{assignment}", timeout=30)
    return session.post(
        f"{service.url}/instructor/{assignment}/{action}",
        data={**fields, "csrfmiddlewaretoken": csrf(page.text)},
        timeout=30,
    )


def test_a_late_student_who_can_still_earn_credit_reads_no_hidden_failure_text(
    service: Service, keys: dict[str, str], tmp_path: Path
) -> None:
    data = service.graded("penalty", [("grid.py", MUTANT)], keys["bob"])
    assert data["status"] == "graded" and data["late_minutes"] > 0
    hidden = hidden_tests(data)
    assert hidden, "past their own due date: the hidden tests' verdicts and points"
    assert {t["extra_data"]["verdict"] for t in hidden} >= {"WA"}
    assert all(t["output"] == "" for t in hidden)
    assert not leaks(json.dumps(data)), "the hidden case reached the student's JSON"
    assert data["hidden_released"] is False
    assert not leaks(page_of(service, keys["bob"], data["id"]))
    copy = tmp_path / "grid.py"
    copy.write_bytes(MUTANT)
    done = grader("submit", service.url, "penalty", str(copy), env={"GRADER_TOKEN": keys["bob"]})
    assert done.returncode == 0, done.stderr
    assert not leaks(done.stdout + done.stderr)
    full = service.get(data["id"], keys["alice"]).json()  # the instructor reads everything
    assert leaks(json.dumps(full))


@pytest.mark.parametrize("assignment", ["closed", "unsaid"])
def test_late_none_and_a_missing_late_refuse_a_late_upload(
    service: Service, keys: dict[str, str], tmp_path: Path, assignment: str
) -> None:
    reply = service.post(assignment, [("grid.py", REFERENCE.read_bytes())], keys["carol"])
    assert reply.status_code == 403, reply.text
    message = reply.json()["error"]
    assert "closed" in message and "\n" not in message, message
    session = signed_in(service.url, keys["carol"])
    page = session.get(f"{service.url}/assignments/{assignment}", timeout=30)
    posted = session.post(
        f"{service.url}/assignments/{assignment}",
        data={"csrfmiddlewaretoken": csrf(page.text)},
        files=[("files", ("grid.py", REFERENCE.read_bytes()))],
        timeout=30,
    )
    assert posted.status_code == 403 and 'id="problem"' in posted.text
    assert "closed" in posted.text
    copy = tmp_path / "grid.py"
    copy.write_bytes(REFERENCE.read_bytes())
    done = grader("submit", service.url, assignment, str(copy), env={"GRADER_TOKEN": keys["carol"]})
    assert done.returncode == 3, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "closed" in done.stderr
    home = session.get(f"{service.url}/", timeout=30).text
    assert "no late submissions" in home


def test_a_release_waits_for_every_running_extension(service: Service, keys: dict[str, str]) -> None:
    saved = instructor_post(
        service, keys, "release", "extension", login="carol", due="2099-06-01T12:00:00+00:00"
    )
    assert saved.status_code == 200 and "extension saved" in saved.text
    late = service.graded("release", [("grid.py", MUTANT)], keys["dave"])
    extended = service.graded("release", [("grid.py", MUTANT)], keys["carol"])
    assert hidden_tests(late) and not hidden_tests(extended)  # carol's due date is to come
    released = instructor_post(service, keys, "release", "release", confirm="yes")
    assert released.status_code == 200, released.text
    assert "scheduled" in released.text and "Mon 1 Jun 2099, 12:00 UTC" in released.text
    assert "carol" in released.text
    for token, ident in ((keys["dave"], late["id"]), (keys["carol"], extended["id"])):
        data = service.get(ident, token).json()
        assert data["hidden_released"] is False
        assert not leaks(json.dumps(data))
        assert not leaks(page_of(service, token, ident))
    again = service.graded("release", [("grid.py", MUTANT)], keys["carol"])  # 3 attempts on
    assert not leaks(json.dumps(again))


def test_counts_best_never_breaks_a_visible_tie_by_hidden_scores(
    service: Service, keys: dict[str, str]
) -> None:
    """Two students send the same two files in opposite orders: the same visible scores, so
    the same submission number counts for both, whatever the hidden tests said."""
    chosen = []
    for login, order in (
        ("bob", [MUTANT, REFERENCE.read_bytes()]),
        ("dave", [REFERENCE.read_bytes(), MUTANT]),
    ):
        views = [service.graded("best", [("grid.py", source)], keys[login]) for source in order]
        assert views[0]["score"] == views[1]["score"]
        fresh = [service.get(view["id"], keys[login]).json() for view in views]
        assert {view["counted_number"] for view in fresh} == {1}, fresh
        assert fresh[0]["counts"] and not fresh[1]["counts"]
        page = page_of(service, keys[login], views[1]["id"])
        assert "Your submission 1 counts" in page
        chosen.append(fresh[0]["counted_number"])
    assert chosen[0] == chosen[1]


def test_hidden_never_never_says_released_later(
    service: Service, keys: dict[str, str], tmp_path: Path
) -> None:
    data = service.graded("never", [("grid.py", MUTANT)], keys["erin"])
    assert not hidden_tests(data) and not leaks(json.dumps(data))
    said = data["results"]["extra_data"]["hidden_tests"]
    assert "later" not in said and "not shown" in said, said
    page = page_of(service, keys["erin"], data["id"])
    assert "later" not in page and not leaks(page)
    copy = tmp_path / "grid.py"
    copy.write_bytes(MUTANT)
    done = grader("submit", service.url, "never", str(copy), env={"GRADER_TOKEN": keys["erin"]})
    assert done.returncode == 0, done.stderr
    assert "later" not in done.stdout and "not shown" in done.stdout


def test_after_due_shows_failure_texts_once_no_submission_can_earn_credit(own_course: Any) -> None:
    """`finished` closed a day after its 2020 due date, but for erin's extension, granted back
    then (the instructor's form refuses one once the texts are out, as below); once it is moved
    back into the past nobody can earn credit: now she reads the texts."""
    service, keys, policy_course = own_course(FINISHED_COURSE)
    with sqlite3.connect(policy_course.parent / "course.sqlite") as database:
        database.execute(
            "INSERT INTO service_extension (user_id, assignment, due) SELECT id, "
            "'finished', '2099-01-01 00:00:00' FROM auth_user WHERE username = 'erin'"
        )
    data = service.graded("finished", [("grid.py", MUTANT)], keys["erin"])
    assert not hidden_tests(data)
    moved = instructor_post(
        service, keys, "finished", "extension", login="erin", due="2021-01-01T00:00:00+00:00"
    )
    assert moved.status_code == 200
    after = service.get(data["id"], keys["erin"]).json()
    assert after["hidden_released"] is True and leaks(json.dumps(after))
    refused = instructor_post(
        service, keys, "finished", "extension", login="erin", due="2099-01-01T00:00:00+00:00"
    )
    assert refused.status_code == 400 and 'role="alert"' in refused.text, refused.text
    assert "already shown" in refused.text


def test_gradebooks_and_blobs_are_ours_only(
    service: Service, keys: dict[str, str], policy_course: Path
) -> None:
    service.graded("penalty", [("grid.py", REFERENCE.read_bytes())], keys["dave"])
    state = policy_course.parent / "course-service"

    def mode(path: Path) -> int:
        return stat.S_IMODE(path.stat().st_mode)

    for folder in [
        state / "blobs",
        state / "gradebooks",
        *(state / "blobs").iterdir(),
        *(state / "gradebooks").iterdir(),
    ]:
        assert mode(folder) == 0o700, f"{folder}: {oct(mode(folder))}"
    files = [path for path in state.rglob("*") if path.is_file()]
    assert any(path.name == "gradebook.sqlite" for path in files)
    for path in files:
        assert mode(path) == 0o600, f"{path}: {oct(mode(path))}"


def test_hidden_always_shows_verdicts_and_points_but_no_failure_text_before_the_end(
    service: Service, keys: dict[str, str]
) -> None:
    data = service.graded("always", [("grid.py", MUTANT)], keys["carol"])
    hidden = hidden_tests(data)
    assert hidden and all(t["output"] == "" for t in hidden)
    assert "WA" in {t["extra_data"]["verdict"] for t in hidden}
    assert data["score"] < data["max_score"]  # the hidden points count
    assert not leaks(json.dumps(data)) and not leaks(page_of(service, keys["carol"], data["id"]))
    assert data["hidden_shown"] == "verdicts"


def test_a_release_that_took_effect_shows_everything_and_closes_the_assignment(own_course: Any) -> None:
    service, keys, _ = own_course(RELEASED_COURSE)
    data = service.graded("released", [("grid.py", MUTANT)], keys["carol"])
    assert not leaks(json.dumps(data))
    reply = instructor_post(service, keys, "released", "release", confirm="yes")
    assert reply.status_code == 200 and "hidden results released" in reply.text
    after = service.get(data["id"], keys["carol"]).json()
    assert after["hidden_released"] is True and leaks(json.dumps(after))
    refused = service.post("released", [("grid.py", REFERENCE.read_bytes())], keys["carol"])
    assert refused.status_code == 403 and "released" in refused.json()["error"], refused.text
    extension = instructor_post(
        service, keys, "released", "extension", login="bob", due="2099-01-01T00:00:00+00:00"
    )
    assert extension.status_code == 400 and "already shown" in extension.text


def test_no_failure_text_while_another_assignment_of_the_exercise_earns_credit(own_course: Any) -> None:
    """`finished` is over for everyone, but `retry` grades the same exercise (the same hidden
    tests) until 2099: a student reading `finished`'s hidden texts could use them there."""
    service, keys, course = own_course(SIBLINGS_COURSE)
    with sqlite3.connect(course.parent / "course.sqlite") as database:  # as in the test above
        database.execute(
            "INSERT INTO service_extension (user_id, assignment, due) SELECT id, "
            "'finished', '2099-01-01 00:00:00' FROM auth_user WHERE username = 'erin'"
        )
    data = service.graded("finished", [("grid.py", MUTANT)], keys["erin"])
    moved = instructor_post(
        service, keys, "finished", "extension", login="erin", due="2021-01-01T00:00:00+00:00"
    )
    assert moved.status_code == 200
    data = service.get(data["id"], keys["erin"]).json()
    assert data["hidden_shown"] == "verdicts", data["hidden_shown"]
    assert not leaks(json.dumps(data)) and not leaks(page_of(service, keys["erin"], data["id"]))
    accepted = service.post("retry", [("grid.py", REFERENCE.read_bytes())], keys["erin"])
    assert accepted.status_code == 202, accepted.text
