"""Suites pinned per assignment (issue 30): a suite edited under a live assignment changes nothing
(new submissions are graded with the pinned suite, with the same maximum) until an instructor
regrades the assignment onto it, after which the class page lists exactly whose score changed;
a pinned snapshot changed on disk is refused, never used."""

from __future__ import annotations

import io
import re
import shutil
import time
import zipfile
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import pytest
import requests

from grader.suite.load import load_suite
from tests.grader.service.conftest import (
    REFERENCE,
    STUB,
    WAIT_S,
    csrf,
    grader,
    running,
    signed_in,
    tokens,
    write_course,
)
from tests.grader.service.test_audit import form_again

ROOT = Path(__file__).resolve().parents[3]
COURSE = """\
title: Pinned suites
roster: roster.csv
instructors: [alice]
assignments:
  - name: pinned
    exercise: suite/suite.yaml
    due: 2099-01-01T00:00:00Z
    hidden: always
"""
ADDED_TEST = "count-games"  # 3 points, absent from the suite the assignment is published with


def copy_suite(folder: Path) -> tuple[str, str]:
    """fixtures/bitgrid as `folder/suite` (expectations recorded from the reference), published
    without ADDED_TEST; (the suite as published, the suite as it is in the project)."""
    shutil.copytree(
        ROOT / "fixtures" / "bitgrid", folder / "suite", ignore=shutil.ignore_patterns("mutants", "solutions")
    )
    whole = (folder / "suite" / "suite.yaml").read_text()
    start = whole.index(f"  - name: {ADDED_TEST}\n")
    end = whole.index("  - name: ", start + 1)
    published = whole[:start] + whole[end:]
    (folder / "suite" / "suite.yaml").write_text(published)
    return published, whole


def endless_count() -> bytes:
    """The reference with count_games never ending (mutants/TLE/endless_count.diff)."""
    source = REFERENCE.read_text()
    assert "    return games_from(0, X)\n" in source
    return source.replace("    return games_from(0, X)\n", "    while True:\n        pass\n").encode()


def class_page(url: str, session: requests.Session) -> str:
    reply = session.get(f"{url}/instructor/pinned", timeout=60)
    assert reply.status_code == 200, reply.text
    return reply.text


def regrade_onto(url: str, session: requests.Session, **fields: str) -> requests.Response:
    page = session.get(f"{url}/instructor/pinned", timeout=60).text
    return session.post(
        f"{url}/instructor/pinned/suite/regrade",
        data={"csrfmiddlewaretoken": csrf(page), **fields},
        headers={"Referer": f"{url}/instructor/pinned"},
        allow_redirects=False,
        timeout=60,
    )


def graded_everyone(url: str, session: requests.Session) -> str:
    """The class page once the regrade onto the new suite is done."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        page = class_page(url, session)
        if 'id="suite-changes"' in page:
            return page
        time.sleep(0.5)
    raise AssertionError("the regrade onto the new suite did not end")


def grades_max(url: str, session: requests.Session) -> dict[str, str]:
    lines = session.get(f"{url}/instructor/pinned/grades.csv", timeout=60).text.splitlines()
    header = lines[0].split(",")
    return {
        row[0]: row[header.index("max_score")] for row in (line.split(",") for line in lines[1:]) if row[6]
    }


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, str]]:
    folder = tmp_path_factory.mktemp("pinned")
    published, whole = copy_suite(folder)
    yield write_course(folder, COURSE), published, whole


@pytest.mark.slow
def test_an_edited_suite_changes_nothing_until_the_regrade_lists_whose_score_changed(
    course: tuple[Path, str, str],
) -> None:
    path, _, whole = course
    suite = load_suite("bitgrid").suite  # the suite as it is in the project, `whole`
    new = suite.total_points
    old = new - next(test.points for test in suite.tests if test.name == ADDED_TEST)
    keys = tokens(path)
    with running(path) as service:
        bob = service.graded("pinned", [("grid.py", REFERENCE.read_bytes())], keys["bob"])
        carol = service.graded("pinned", [("grid.py", STUB.read_bytes())], keys["carol"])
        dave = service.graded("pinned", [("grid.py", endless_count())], keys["dave"])
        assert (bob["score"], bob["max_score"]) == (old, old)
        assert (carol["score"], dave["score"]) == (0.0, old)  # count-games is not graded yet
        pinned = bob["suite"]
        assert pinned and carol["suite"] == dave["suite"] == pinned
        alice = signed_in(service.url, keys["alice"])
        assert 'id="suite-drift"' not in class_page(service.url, alice)

        (path.parent / "suite" / "suite.yaml").write_text(whole)  # the suite edited on disk
        page = unescape(class_page(service.url, alice))
        assert "the suite on disk differs from the pinned one" in page
        assert f"max score {old:g} -> {new:g}" in page and f"tests added: {ADDED_TEST}" in page
        erin = service.graded("pinned", [("grid.py", REFERENCE.read_bytes())], keys["erin"])
        assert (erin["score"], erin["max_score"], erin["suite"]) == (old, old, pinned)
        assert set(grades_max(service.url, alice).values()) == {f"{old:g}"}

        digest = re.search(r'name="digest" value="([0-9a-f]{64})"', page)
        assert digest is not None
        unconfirmed = regrade_onto(service.url, alice, digest=digest.group(1))
        form_again(unconfirmed, "suite-regrade-form", "confirm: tick the box", {"digest": digest.group(1)})
        wrong = regrade_onto(service.url, alice, digest="0" * 64, confirm="yes")
        form_again(wrong, "suite-regrade-form", "not the one you confirmed", {"digest": "0" * 64})
        assert "regrade onto new suite" not in alice.get(f"{service.url}/instructor/pinned/audit").text

        done = regrade_onto(service.url, alice, digest=digest.group(1), confirm="yes", reason="count-games")
        assert done.status_code == 302, done.text
        page = unescape(graded_everyone(service.url, alice))
        changes = re.search(r'<pre id="suite-changes">(.*?)</pre>', page, re.S)
        assert changes is not None, page
        # dave's count_games never ends: old/old -> old/new, his score did not change.
        assert changes.group(1).splitlines() == [
            f"{who}: {old:g}/{old:g} -> {new:g}/{new:g}" for who in ("bob", "erin")
        ]
        assert 'id="suite-drift"' not in page
        assert set(grades_max(service.url, alice).values()) == {f"{new:g}"}
        again = service.get(bob["id"], keys["bob"]).json()
        assert again["suite"] == digest.group(1) != pinned
        audit = unescape(alice.get(f"{service.url}/instructor/pinned/audit").text)
        assert "regrade onto new suite" in audit
        assert f"suite {pinned[:12]} -> {digest.group(1)[:12]}: 4 submission(s)" in audit


def tampered(snapshot: Path) -> None:
    """Rewrite a stored snapshot with one recorded expectation changed (still a valid .zip)."""
    with zipfile.ZipFile(snapshot) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    name = next(name for name in files if name.endswith("expected/position.json"))
    files[name] = files[name].replace(b'"value": 0', b'"value": 1', 1)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for member, data in files.items():
            archive.writestr(member, data)
    snapshot.write_bytes(buffer.getvalue())


@pytest.mark.slow
def test_a_tampered_snapshot_is_refused_not_used(tmp_path: Path) -> None:
    copy_suite(tmp_path)
    path = write_course(tmp_path, COURSE)
    keys = tokens(path)
    with running(path) as service:
        first = service.graded("pinned", [("grid.py", REFERENCE.read_bytes())], keys["bob"])
        assert first["status"] == "graded"
        (snapshot,) = (path.parent / "course-service" / "suites").glob("*/*.zip")
        assert snapshot.name == f"{first['suite']}.zip"
        tampered(snapshot)
        refused = service.graded("pinned", [("grid.py", REFERENCE.read_bytes())], keys["carol"])
        assert refused["status"] == "error" and refused["results"] is None
        assert "does not match its fingerprint: it was changed on disk" in refused["progress"]
        page = unescape(class_page(service.url, signed_in(service.url, keys["alice"])))
        assert "does not match its fingerprint" in page
    assert_restart_refuses(path)


def assert_restart_refuses(path: Path) -> None:
    """A service started again still refuses the tampered snapshot (it is never re-pinned)."""
    keys = tokens(path, "dave")
    with running(path) as service:
        refused = service.graded("pinned", [("grid.py", REFERENCE.read_bytes())], keys["dave"])
        said = "".join(service.log)  # printed once it serves, before anything is graded
        assert "warning: pinned: the pinned suite snapshot" in said and "does not match" in said
        assert refused["status"] == "error"
        assert "does not match its fingerprint" in refused["progress"]


def test_serve_refuses_an_assignment_whose_suite_it_cannot_pin(tmp_path: Path) -> None:
    path = write_course(tmp_path, COURSE.replace("exercise: suite/suite.yaml", "exercise: nosuch"))
    done = grader("serve", str(path), "--port", "0")
    assert done.returncode == 3, done.stderr
    assert done.stderr.startswith(f"error: {path}:6: assignments.0.exercise: ")
    assert "no suite for exercise 'nosuch'" in done.stderr and len(done.stderr.splitlines()) == 1


@pytest.mark.slow
def test_a_pinned_assignment_serves_while_its_suite_on_disk_is_broken(tmp_path: Path) -> None:
    copy_suite(tmp_path)
    path = write_course(tmp_path, COURSE)
    with running(path):
        pass  # published: pinned
    (tmp_path / "suite" / "suite.yaml").write_text("tests: [\n")
    keys = tokens(path)
    with running(path) as service:
        graded = service.graded("pinned", [("grid.py", REFERENCE.read_bytes())], keys["bob"])
        assert graded["status"] == "graded" and graded["score"] == graded["max_score"]
        assert "warning: pinned: the suite on disk cannot be loaded: " in "".join(service.log)
