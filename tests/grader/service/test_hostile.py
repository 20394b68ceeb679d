"""Hostile input on every path the service takes from outside: oversized uploads, too many files,
zip bombs, path tricks and HTML in file names, HTML in a submission's output, requests without
CSRF tokens, and tokens that are missing, wrong or another course's."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from tests.grader.run.test_submissions import BROKEN_KINDS, broken_zip
from tests.grader.service.conftest import REFERENCE, Service, csrf, signed_in, tokens, write_course

pytestmark = pytest.mark.slow


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_no_token_or_a_wrong_one_is_401(service: Service, keys: dict[str, str]) -> None:
    files = [("grid.py", REFERENCE.read_bytes())]
    for token in (None, "", "not-a-token", keys["bob"] + "x"):
        reply = service.post("open", files, token)
        assert reply.status_code == 401, (token, reply.text)
        assert "token" in reply.json()["error"]
    assert service.get("0" * 32, None).status_code == 401


def test_a_token_of_another_course_is_401(service: Service, tmp_path: Path) -> None:
    other = write_course(tmp_path / "other")  # the same logins, another course
    foreign = tokens(other)["bob"]
    reply = service.post("open", [("grid.py", REFERENCE.read_bytes())], foreign)
    assert reply.status_code == 401, reply.text


def test_an_oversized_upload_is_413_and_nothing_is_kept(service: Service,
                                                         keys: dict[str, str]) -> None:
    reply = service.post("open", [("grid.py", b"#" * (6 * 1024 * 1024))], keys["dave"])
    assert reply.status_code == 413, reply.text
    assert "larger than" in reply.json()["error"]
    # Far larger: the HTTP server refuses the body itself (also 413) before Django reads it.
    import requests

    with pytest.raises(requests.ConnectionError):  # or the server answers 413 and closes
        reply = service.post("open", [("grid.py", b"#" * (64 * 1024 * 1024))], keys["dave"])
        assert reply.status_code == 413
        raise requests.ConnectionError("answered 413")
    session = signed_in(service.url, keys["dave"])
    assert "/submissions/" not in session.get(f"{service.url}/", timeout=30).text


def test_too_many_files_is_400(service: Service, keys: dict[str, str]) -> None:
    files = [(f"f{index}.py", b"x = 1\n") for index in range(30)]
    reply = service.post("open", files, keys["dave"])
    assert reply.status_code == 400, reply.text
    assert "too many files" in reply.json()["error"]


def test_a_zip_bomb_is_400(service: Service, keys: dict[str, str]) -> None:
    bomb = zipped({"grid.py": b"0" * (40 * 1024 * 1024)})
    assert len(bomb) < 200 * 1024
    reply = service.post("open", [("bomb.zip", bomb)], keys["dave"])
    assert reply.status_code == 400, reply.text
    assert "too large" in reply.json()["error"]


def test_a_zip_member_outside_the_archive_is_400(service: Service, keys: dict[str, str]) -> None:
    for name in ("../grid.py", "/etc/grid.py", "a/../../grid.py"):
        reply = service.post("open", [("sneaky.zip", zipped({name: b"x = 1\n"}))], keys["dave"])
        assert reply.status_code == 400, (name, reply.text)
        assert "outside the archive" in reply.json()["error"]


def test_path_tricks_in_file_names_never_leave_the_submission(
        service: Service, keys: dict[str, str], course_file: Path) -> None:
    """The multipart parser keeps the last component only; what is stored is that plain name."""
    for trick in ("../../escaped.py", "/tmp/escaped.py", "..\\..\\escaped.py"):
        reply = service.post("open", [(trick, b"x = 1\n")], keys["dave"])
        assert reply.status_code == 202, (trick, reply.text)
        data = service.wait(reply.json()["id"], keys["dave"])
        assert data["status"] == "graded"
    assert not list(course_file.parent.parent.rglob("escaped.py"))
    for bad in ("..", ".hidden.py", "a b.py", "grid.py;rm -rf"):
        reply = service.post("open", [(bad, b"x = 1\n")], keys["dave"])
        assert reply.status_code == 400, (bad, reply.text)


def test_html_in_a_file_name_is_refused_and_shown_inert(service: Service,
                                                          keys: dict[str, str]) -> None:
    name = "<img src=x onerror=alert(1)>.py"
    reply = service.post("open", [(name, b"x = 1\n")], keys["dave"])
    assert reply.status_code == 400
    assert "not a plain file name" in reply.json()["error"]
    session = signed_in(service.url, keys["dave"])
    page = session.get(f"{service.url}/assignments/open", timeout=30)
    reply = session.post(f"{service.url}/assignments/open",
                         data={"csrfmiddlewaretoken": csrf(page.text)},
                         files=[("files", (name, b"x = 1\n"))],
                         headers={"Referer": f"{service.url}/assignments/open"}, timeout=30)
    assert reply.status_code == 400
    assert "&lt;img src=x onerror=alert(1)&gt;" in reply.text
    assert "<img src=x" not in reply.text


def test_html_in_the_output_is_inert_and_scripts_are_forbidden(
        service: Service, keys: dict[str, str]) -> None:
    hostile = REFERENCE.read_text().replace(
        "def winner(", "def winner_original(", 1) + (
        "\n\ndef winner(grid):\n    print('<script>alert(1)</script>')\n"
        "    return '<img src=x onerror=alert(2)>'\n")
    data = service.graded("open", [("grid.py", hostile.encode())], keys["carol"])
    assert data["status"] == "graded"
    assert any("<script>" in test["output"] for test in data["results"]["tests"])
    session = signed_in(service.url, keys["carol"])
    page = session.get(f"{service.url}/submissions/{data['id']}", timeout=30)
    assert page.status_code == 200
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert "<script>alert" not in page.text and "<img src=x" not in page.text
    policy = page.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert page.text.count("<script") == 2  # the page's own script files, no inline one
    assert 'src="/static/grader.js"' in page.text and 'src="/static/sortable.js"' in page.text
    shared = session.get(f"{service.url}/static/sortable.js", timeout=30)
    assert shared.status_code == 200 and "function sortBy" in shared.text
    assert session.get(f"{service.url}/static/..%2Fpages.py", timeout=30).status_code == 404


def test_web_forms_refuse_requests_without_a_csrf_token(service: Service,
                                                         keys: dict[str, str]) -> None:
    import requests

    fresh = requests.Session()
    fresh.get(f"{service.url}/", timeout=30)
    refused = fresh.post(f"{service.url}/", data={"token": keys["bob"]}, timeout=30)
    assert refused.status_code == 403
    session = signed_in(service.url, keys["bob"])
    upload = session.post(f"{service.url}/assignments/open",
                          files=[("files", ("grid.py", REFERENCE.read_bytes()))], timeout=30)
    assert upload.status_code == 403
    instructor = signed_in(service.url, keys["alice"])
    for action in ("regrade", "release", "extension"):
        reply = instructor.post(f"{service.url}/instructor/open/{action}", data={}, timeout=30)
        assert reply.status_code == 403, action
    history = session.get(f"{service.url}/", timeout=30).text
    assert history.count("/submissions/") == 0  # bob's refused upload left no submission


def test_students_cannot_read_others_or_the_instructor_pages(service: Service,
                                                             keys: dict[str, str]) -> None:
    data = service.graded("open", [("grid.py", REFERENCE.read_bytes())], keys["erin"])
    assert service.get(data["id"], keys["carol"]).status_code == 404
    assert service.get(data["id"], keys["alice"]).status_code == 200  # the instructor
    session = signed_in(service.url, keys["carol"])
    assert session.get(f"{service.url}/submissions/{data['id']}", timeout=30).status_code == 404
    assert session.get(f"{service.url}/instructor/", timeout=30).status_code == 403
    grades = session.get(f"{service.url}/api/assignments/open/grades.csv", timeout=30)
    assert grades.status_code == 403


def test_an_unreadable_zip_is_400_in_one_line(service: Service, keys: dict[str, str],
                                              tmp_path: Path) -> None:
    for kind in BROKEN_KINDS:
        data = broken_zip(tmp_path / f"{kind}.zip", kind).read_bytes()
        reply = service.post("open", [("mine.zip", data)], keys["dave"])
        assert reply.status_code == 400, (kind, reply.text)
        said = reply.json()["error"]
        assert said.startswith("mine.zip: not a readable .zip file ("), (kind, said)
        assert "\n" not in said and "upload" not in said and str(tmp_path) not in said


def test_names_inside_an_uploaded_zip_are_stored_inert() -> None:
    from grader.service.storage import bundle

    data = zipped({"grid.py": REFERENCE.read_bytes(), "notes\x1b[2J\nScore 19 of 19\u202e.txt": b""})
    _, names = bundle([("mine.zip", data)])
    assert names == ["grid.py", "notes\\x1b[2J\\nScore 19 of 19\\u202e.txt"]
