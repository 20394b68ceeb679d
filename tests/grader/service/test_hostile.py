"""Hostile input on every path the service takes from outside: oversized uploads, too many files,
zip bombs, path tricks and HTML in file names, HTML in a submission's output, requests without
CSRF tokens, and tokens that are missing, wrong or another course's."""

from __future__ import annotations

import io
import re
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


def test_an_oversized_upload_is_413_and_nothing_is_kept(service: Service, keys: dict[str, str]) -> None:
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
    service: Service, keys: dict[str, str], course_file: Path
) -> None:
    """The multipart parser keeps the last component only; what is stored is that plain name
    (one the assignment does not expect is refused, before anything is stored)."""
    for trick in ("../../escaped.py", "/tmp/escaped.py", "..\\..\\escaped.py"):
        reply = service.post("open", [(trick, b"x = 1\n")], keys["dave"])
        assert reply.status_code == 400, (trick, reply.text)
        assert reply.json()["error"].startswith("escaped.py is not a file of open")
    for trick in ("../../grid.py", "/tmp/grid.py", "..\\..\\grid.py"):
        reply = service.post("open", [(trick, b"x = 1\n")], keys["dave"])
        assert reply.status_code == 202, (trick, reply.text)
        data = service.wait(reply.json()["id"], keys["dave"])
        assert data["status"] == "graded"
    course = course_file.parent  # the service's files; other tests' folders lie beside it
    for name in ("escaped.py", "grid.py"):  # stored zipped, by its hash
        assert not list(course.rglob(name)), name
        assert not (course.parent / name).exists() and not (Path("/tmp") / name).exists(), name
    for bad in ("..", ".hidden.py", "a b.py", "grid.py;rm -rf"):
        reply = service.post("open", [(bad, b"x = 1\n")], keys["dave"])
        assert reply.status_code == 400, (bad, reply.text)


def test_html_in_a_file_name_is_refused_and_shown_inert(service: Service, keys: dict[str, str]) -> None:
    name = "<img src=x onerror=alert(1)>.py"
    reply = service.post("open", [(name, b"x = 1\n")], keys["dave"])
    assert reply.status_code == 400
    assert "not a plain file name" in reply.json()["error"]
    session = signed_in(service.url, keys["dave"])
    page = session.get(f"{service.url}/assignments/open", timeout=30)
    reply = session.post(
        f"{service.url}/assignments/open",
        data={"csrfmiddlewaretoken": csrf(page.text)},
        files=[("files", (name, b"x = 1\n"))],
        headers={"Referer": f"{service.url}/assignments/open"},
        timeout=30,
    )
    assert reply.status_code == 400
    assert "&lt;img src=x onerror=alert(1)&gt;" in reply.text
    assert "<img src=x" not in reply.text


def test_html_in_the_output_is_inert_and_scripts_are_forbidden(
    service: Service, keys: dict[str, str]
) -> None:
    hostile = REFERENCE.read_text().replace("def winner(", "def winner_original(", 1) + (
        "\n\ndef winner(grid):\n    print('<script>alert(1)</script>')\n"
        "    return '<img src=x onerror=alert(2)>'\n"
    )
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


def test_web_forms_refuse_requests_without_a_csrf_token(service: Service, keys: dict[str, str]) -> None:
    import requests

    fresh = requests.Session()
    fresh.get(f"{service.url}/", timeout=30)
    refused = fresh.post(f"{service.url}/", data={"token": keys["bob"]}, timeout=30)
    assert refused.status_code == 403
    session = signed_in(service.url, keys["bob"])
    upload = session.post(
        f"{service.url}/assignments/open", files=[("files", ("grid.py", REFERENCE.read_bytes()))], timeout=30
    )
    assert upload.status_code == 403
    instructor = signed_in(service.url, keys["alice"])
    for action in ("regrade", "release", "extension"):
        reply = instructor.post(f"{service.url}/instructor/open/{action}", data={}, timeout=30)
        assert reply.status_code == 403, action
    history = session.get(f"{service.url}/", timeout=30).text
    assert history.count("/submissions/") == 0  # bob's refused upload left no submission


def test_students_cannot_read_others_or_the_instructor_pages(service: Service, keys: dict[str, str]) -> None:
    data = service.graded("open", [("grid.py", REFERENCE.read_bytes())], keys["erin"])
    assert service.get(data["id"], keys["carol"]).status_code == 404
    assert service.get(data["id"], keys["alice"]).status_code == 200  # the instructor
    session = signed_in(service.url, keys["carol"])
    assert session.get(f"{service.url}/submissions/{data['id']}", timeout=30).status_code == 404
    assert session.get(f"{service.url}/instructor/", timeout=30).status_code == 403
    grades = session.get(f"{service.url}/api/assignments/open/grades.csv", timeout=30)
    assert grades.status_code == 403


def test_an_unreadable_zip_is_400_in_one_line(service: Service, keys: dict[str, str], tmp_path: Path) -> None:
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


def test_the_http_server_holds_out_against_slow_clients() -> None:
    """Slowloris: idle or trickling sockets are closed soon, and there is room for many of them
    (a connection costs a file descriptor, not a thread, until its request is complete)."""
    from grader.service.server import CHANNEL_TIMEOUT_S, make_server

    def application(environ: object, start_response: object) -> list[bytes]:
        return []

    server = make_server(application, "127.0.0.1", 0, threads=8)
    try:
        adj = server.adj
        assert adj.channel_timeout == CHANNEL_TIMEOUT_S <= 20
        assert adj.cleanup_interval <= 5  # how often idle sockets are looked for
        assert adj.connection_limit >= 500 and adj.asyncore_use_poll  # select() stops at fd 1024
        assert adj.max_request_header_size <= 64 * 1024
        assert adj.max_request_body_size == 10 * 1024 * 1024
        assert not adj.expose_tracebacks
    finally:
        server.close()


def test_a_tokens_run_keeps_sessions_and_a_reissued_token_ends_its_own(tmp_path: Path) -> None:
    course = write_course(tmp_path / "course")
    keys = tokens(course)
    running = Service(course, workers=1).start()
    try:
        bob, alice = signed_in(running.url, keys["bob"]), signed_in(running.url, keys["alice"])
        assert tokens(course) == {}  # everyone has a token: nothing issued
        for session in (bob, alice):
            assert "Signed in as" in session.get(f"{running.url}/", timeout=30).text
        again = tokens(course, "bob")
        assert "Signed in as" not in bob.get(f"{running.url}/", timeout=30).text
        assert "Signed in as" in alice.get(f"{running.url}/", timeout=30).text
        assert running.get("0" * 32, keys["bob"]).status_code == 401  # the old token is gone
        signed_in(running.url, again["bob"])
    finally:
        running.stop()


API_WRONG_METHODS = [
    ("PUT", "/api/submissions", "POST"),
    ("DELETE", "/api/submissions", "POST"),
    ("GET", "/api/submissions", "POST"),
    ("OPTIONS", "/api/submissions", "POST"),
    ("POST", "/api/submissions/ID", "GET, HEAD"),
    ("PUT", "/api/submissions/ID", "GET, HEAD"),
    ("DELETE", "/api/submissions/ID", "GET, HEAD"),
    ("PATCH", "/api/submissions/ID", "GET, HEAD"),
    ("OPTIONS", "/api/submissions/ID", "GET, HEAD"),
    ("POST", "/api/assignments/open/grades.csv", "GET, HEAD"),
    ("DELETE", "/api/assignments/open/grades.csv", "GET, HEAD"),
]


@pytest.mark.parametrize(("method", "path", "allow"), API_WRONG_METHODS)
def test_a_wrong_method_on_the_api_is_405_json(
    service: Service, keys: dict[str, str], method: str, path: str, allow: str
) -> None:
    import requests

    ident = service.post("open", [("grid.py", b"x = 1\n")], keys["erin"]).json()["id"]
    for headers in ({"Authorization": f"Bearer {keys['erin']}"}, {}):
        reply = requests.request(method, service.url + path.replace("ID", ident), headers=headers, timeout=30)
        assert reply.status_code == 405, (method, path, reply.text[:200])
        assert reply.headers["Allow"] == allow
        assert reply.headers["Content-Type"] == "application/json"
        said = reply.json()["error"]
        assert said and "\n" not in said and ident not in reply.text


def test_the_api_refuses_a_session_post_without_csrf_in_json(service: Service, keys: dict[str, str]) -> None:
    """The API's GETs accept the pages' session cookie; nothing unsafe is done by cookie."""
    session = signed_in(service.url, keys["alice"])
    for path in ("/api/submissions", "/api/submissions/x", "/api/assignments/open/grades.csv"):
        reply = session.post(service.url + path, data={"assignment": "open"}, timeout=30)
        assert reply.status_code in (401, 403, 405), (path, reply.text[:200])
        assert "error" in reply.json()


@pytest.mark.parametrize(
    "path",
    [
        "/api/nothing",
        "/api/submissions/",
        "/api/submissions/ID/",
        "/api/",
        "/api",
        "/api/assignments/open/grades.csv/x",
    ],
)
def test_an_unknown_api_address_is_404_json(service: Service, keys: dict[str, str], path: str) -> None:
    import requests

    for method in ("GET", "POST", "DELETE"):
        reply = requests.request(
            method,
            service.url + path.replace("ID", "0" * 32),
            headers={"Authorization": f"Bearer {keys['erin']}"},
            timeout=30,
            allow_redirects=False,
        )
        assert reply.status_code == 404, (method, path, reply.text[:200])
        assert reply.headers["Content-Type"] == "application/json"
        assert "\n" not in reply.json()["error"]


@pytest.mark.parametrize(
    "due",
    [
        "9999-12-31T23:59:59-14:00",
        "0001-01-01T00:00:00+14:00",
        "9999-12-31T23:59:59+00:00",
        "0001-01-01T00:00:00+00:00",
        "nan",
        "2026-13-01T00:00:00+00:00",
        "2026-12-01T25:00",
        "0001-01-01T00:00",
    ],
)
def test_an_extension_date_out_of_range_is_400_in_the_form_again(
    service: Service, keys: dict[str, str], due: str
) -> None:
    instructor = signed_in(service.url, keys["alice"])
    page = instructor.get(f"{service.url}/instructor/open", timeout=30)
    reply = instructor.post(
        f"{service.url}/instructor/open/extension",
        data={"login": "dave", "due": due, "csrfmiddlewaretoken": csrf(page.text)},
        timeout=30,
    )
    assert reply.status_code == 400, (due, reply.text[:300])
    said = re.search(r'<p class="problem" role="alert" id="problem">(.*?)</p>', reply.text)
    assert said and said.group(1).startswith("due: a date and a time") and "Traceback" not in reply.text
    listed = instructor.get(f"{service.url}/instructor/open", timeout=30)
    assert listed.status_code == 200 and "dave:" not in listed.text


def test_a_request_line_is_logged_capped(tmp_path: Path) -> None:
    import requests

    course = write_course(tmp_path / "course")
    running = Service(course, workers=1).start()
    try:
        for index in range(20):
            reply = requests.get(f"{running.url}/{index}{'a' * 3000}", timeout=30)
            assert reply.status_code == 404
        assert requests.get(f"{running.url}/x%0AFORGED%1b[2J", timeout=30).status_code == 404
    finally:
        running.stop()
    said = running.log[
        next(index for index, line in enumerate(running.log) if line.startswith("serving")) + 1 :
    ]
    assert any("Not Found" in line for line in said), said
    assert max(len(line) for line in said) < 400, max(said, key=len)[:500]
    assert sum(len(line) for line in said) < 21 * 400
    assert not any(line.startswith("FORGED") or "\x1b" in line for line in said), said


def test_the_class_page_shows_only_the_server_s_own_messages(service: Service, keys: dict[str, str]) -> None:
    instructor = signed_in(service.url, keys["alice"])
    phishing = "Your session expired: sign in again at evil.example"
    page = instructor.get(f"{service.url}/instructor/open", params={"done": phishing}, timeout=30)
    assert page.status_code == 200 and "evil.example" not in page.text
    assert 'class="done"' not in page.text
    for query, shown in (
        ((("done", "released"),), "hidden results released"),
        ((("done", "extension"),), "extension saved"),
        ((("done", "scheduled"),), "release of hidden results scheduled"),
        ((("done", "regrading"), ("count", "3")), "regrading 3 submission(s)"),
    ):
        page = instructor.get(f"{service.url}/instructor/open", params=dict(query), timeout=30)
        assert f'<p class="done">{shown}' in page.text, query
    for count in ("-1", "1e9", "x", "99999999999999999999", "<b>"):
        page = instructor.get(
            f"{service.url}/instructor/open", params={"done": "regrading", "count": count}, timeout=30
        )
        assert page.status_code == 200 and 'class="done"' not in page.text, count
    page = instructor.get(f"{service.url}/instructor/open", timeout=30)
    reply = instructor.post(
        f"{service.url}/instructor/open/release",
        data={"confirm": "yes", "csrfmiddlewaretoken": csrf(page.text)},
        timeout=30,
        allow_redirects=False,
    )
    # `open` is due in 2099: the release waits for the due date
    assert reply.headers["Location"].endswith("/instructor/open?done=scheduled")


def test_a_file_name_that_is_not_utf8_is_a_clear_400(service: Service, keys: dict[str, str]) -> None:
    import requests

    for filename in (b"gr\xff\xfeid.py", b"\xff.zip"):
        body = (
            b'--XB\r\nContent-Disposition: form-data; name="assignment"\r\n\r\nopen\r\n'
            b'--XB\r\nContent-Disposition: form-data; name="files"; filename="'
            + filename
            + b'"\r\nContent-Type: text/x-python\r\n\r\nx = 1\r\n--XB--\r\n'
        )
        reply = requests.post(
            f"{service.url}/api/submissions",
            data=body,
            timeout=30,
            headers={
                "Authorization": f"Bearer {keys['dave']}",
                "Content-Type": "multipart/form-data; boundary=XB",
            },
        )
        assert reply.status_code == 400, reply.text
        said = reply.json()["error"]
        assert "no file" not in said and "UTF-8" in said, said


def test_pages_and_api_answers_are_not_cached(service: Service, keys: dict[str, str]) -> None:
    import requests

    ident = service.post("open", [("grid.py", b"x = 1\n")], keys["erin"]).json()["id"]
    session = signed_in(service.url, keys["erin"])
    for reply in (
        service.get(ident, keys["erin"]),
        service.get(ident, None),
        session.get(f"{service.url}/", timeout=30),
        session.get(f"{service.url}/submissions/{ident}", timeout=30),
        session.get(f"{service.url}/assignments/open", timeout=30),
        signed_in(service.url, keys["alice"]).get(f"{service.url}/instructor/open/grades.csv", timeout=30),
        requests.get(f"{service.url}/api/nothing", timeout=30),
    ):
        assert "no-store" in reply.headers.get("Cache-Control", ""), reply.url


def test_the_submit_help_says_the_token_belongs_in_the_environment() -> None:
    from tests.grader.service.conftest import grader

    done = grader("submit", "--help")
    assert done.returncode == 0
    said = " ".join(done.stdout.split())
    assert "GRADER_TOKEN" in said and "other users" in said, said
