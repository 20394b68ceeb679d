"""A wrong or missing file name is refused at upload, before it costs an attempt, naming the
files the assignment's suite expects (`submit:`): the API's 400 in one line, the page's message,
`grader submit`'s exit 3 (a `Grid.py` for `grid.py` was once accepted, graded 0 and took the
last attempt)."""

from __future__ import annotations

import html
from pathlib import Path

from tests.grader.service.conftest import REFERENCE, Service, csrf, grader, signed_in
from tests.grader.service.test_hostile import zipped

CASE_DIFFERENT = (
    "Grid.py is not a file of {name}, which expects grid.py (names are case-sensitive: grid.py, not Grid.py)"
)


def test_a_case_different_name_is_400_and_costs_no_attempt(service: Service, keys: dict[str, str]) -> None:
    for _ in range(3):  # `limited` allows 2 attempts: none of these takes one
        reply = service.post("limited", [("Grid.py", REFERENCE.read_bytes())], keys["erin"])
        assert reply.status_code == 400, reply.text
        assert reply.json() == {"error": CASE_DIFFERENT.format(name="limited")}
    for _ in range(2):
        assert service.post("limited", [("grid.py", REFERENCE.read_bytes())], keys["erin"]).status_code == 202
    assert service.post("limited", [("grid.py", b"")], keys["erin"]).status_code == 429


def test_a_wrong_or_missing_name_names_the_expected_files(service: Service, keys: dict[str, str]) -> None:
    refusals = [
        (
            "notes.txt is not a file of open, which expects grid.py",
            [("grid.py", REFERENCE.read_bytes()), ("notes.txt", b"mine")],
        ),
        (
            "grid.py missing from the .zip: open expects grid.py",
            [("mine.zip", zipped({"notes.txt": b"", "solution.py": b"x = 1\n"}))],
        ),
        (
            "grid.py missing from the .zip: open expects grid.py (names are case-sensitive: "
            "grid.py, not GRID.PY)",
            [("mine.zip", zipped({"src/GRID.PY": b"x = 1\n"}))],
        ),
        (
            "grid.py is in more than one folder of the .zip (a/grid.py, b/grid.py): open expects "
            "grid.py, each once",
            [("two.zip", zipped({"a/grid.py": b"x = 1\n", "b/grid.py": b"x = 2\n"}))],
        ),
    ]
    for said, files in refusals:
        reply = service.post("open", files, keys["dave"])
        assert (reply.status_code, reply.json()) == (400, {"error": said}), files
    # What grading finds is accepted: a .zip with it in one folder, extra files beside it;
    # the suite's given file (play.py, provided by the grader) is harmless.
    for files in (
        [("mine.zip", zipped({"work/grid.py": REFERENCE.read_bytes(), "work/README": b""}))],
        [("grid.py", REFERENCE.read_bytes()), ("play.py", b"")],
    ):
        reply = service.post("open", files, keys["dave"])
        assert reply.status_code == 202, reply.text
        assert service.wait(reply.json()["id"], keys["dave"])["status"] == "graded"


def test_the_page_says_it_and_grader_submit_exits_3_with_that_line(
    service: Service, keys: dict[str, str], tmp_path: Path
) -> None:
    session = signed_in(service.url, keys["carol"])
    page = session.get(f"{service.url}/assignments/open", timeout=30)
    reply = session.post(
        f"{service.url}/assignments/open",
        data={"csrfmiddlewaretoken": csrf(page.text)},
        files=[("files", ("Grid.py", REFERENCE.read_bytes()))],
        timeout=30,
    )
    assert reply.status_code == 400
    assert html.escape(CASE_DIFFERENT.format(name="open")) in reply.text
    wrong = tmp_path / "Grid.py"
    wrong.write_bytes(REFERENCE.read_bytes())
    done = grader("submit", service.url, "open", str(wrong), env={"GRADER_TOKEN": keys["carol"]})
    assert done.returncode == 3
    assert done.stderr.strip().splitlines() == [
        f"error: {service.url}: {CASE_DIFFERENT.format(name='open')} (HTTP 400)"
    ]
    assert done.stdout == ""
