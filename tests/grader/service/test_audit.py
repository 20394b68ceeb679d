"""The audit log (issue 30): every instructor action is one line, who, when, what and why, on a
page for instructors only, every text inert."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
import requests

from tests.grader.service.conftest import (
    REFERENCE,
    STUB,
    Service,
    csrf,
    running,
    signed_in,
    tokens,
    write_course,
)

pytestmark = pytest.mark.slow


def act(session: requests.Session, url: str, path: str, **data: str) -> requests.Response:
    page = session.get(f"{url}/instructor/open", timeout=30)
    return session.post(
        f"{url}{path}",
        data={**data, "csrfmiddlewaretoken": csrf(page.text)},
        headers={"Referer": f"{url}/instructor/open"},
        timeout=30,
        allow_redirects=False,
    )


def rows(page: str) -> list[list[str]]:
    """The audit table's rows, each its cells' text (tags dropped, entities decoded)."""
    body = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0] if "<tbody>" in page else ""
    return [
        [html.unescape(re.sub(r"<[^>]*>", "", cell)) for cell in re.findall(r"<td>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]


def test_a_reason_with_html_stays_inert_on_the_audit_page(service: Service, keys: dict[str, str]) -> None:
    instructor = signed_in(service.url, keys["alice"])
    reason = '<script>alert("x")</script><b onmouseover=alert(1)>doctor</b>'
    reply = act(
        instructor,
        service.url,
        "/instructor/limited/extension",
        login="erin",
        due="2099-06-01T00:00:00+00:00",
        reason=reason,
    )
    assert reply.status_code == 302, reply.text
    page = instructor.get(f"{service.url}/instructor/limited/audit", timeout=30)
    assert page.status_code == 200
    assert "<script>alert" not in page.text and "<b onmouseover" not in page.text
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page.text
    assert rows(page.text)[0][6] == reason


def test_every_action_is_one_line_with_who_what_and_why(service: Service, keys: dict[str, str]) -> None:
    instructor = signed_in(service.url, keys["alice"])
    audit = f"{service.url}/instructor/open/audit"
    assert rows(instructor.get(audit, timeout=30).text) == []
    steps = [
        (
            "/instructor/open/extension",
            {"login": "bob", "due": "2099-02-01T00:00:00+00:00", "reason": "ill"},
            ["alice", "extension granted", "bob", "", "due 2099-02-01T00:00:00+00:00", "ill"],
        ),
        (
            "/instructor/open/extension",
            {"login": "bob", "due": "2099-03-01T00:00:00+00:00"},
            ["alice", "extension changed", "bob", "", "due 2099-03-01T00:00:00+00:00", ""],
        ),
        (
            "/instructor/open/regrade",
            {"reason": "test fixed", "confirm": "yes"},
            ["alice", "regrade", "", "", "every test: 0 submission(s)", "test fixed"],
        ),
        (
            "/instructor/open/release",
            {"reason": "exam over", "confirm": "yes"},
            ["alice", "release", "", "", "", "exam over"],
        ),
    ]
    for done, (path, data, expected) in enumerate(steps, start=1):
        assert act(instructor, service.url, path, **data).status_code == 302, path
        lines = rows(instructor.get(audit, timeout=30).text)
        assert len(lines) == done, lines
        assert lines[0][1:] == expected  # newest first
        assert lines[0][0]  # when
    # a refused action (a wrong login) writes nothing
    refused = act(
        instructor,
        service.url,
        "/instructor/open/extension",
        login="nobody",
        due="2099-02-01T00:00:00+00:00",
        reason="x",
    )
    assert refused.status_code == 400
    assert len(rows(instructor.get(audit, timeout=30).text)) == len(steps)
    assert (
        'href="/instructor/open/audit"' in instructor.get(f"{service.url}/instructor/open", timeout=30).text
    )


def test_the_audit_page_is_for_instructors_only(service: Service, keys: dict[str, str]) -> None:
    audit = f"{service.url}/instructor/open/audit"
    anonymous = requests.get(audit, timeout=30, allow_redirects=False)
    assert anonymous.status_code == 302 and anonymous.headers["Location"] == "/"
    student = signed_in(service.url, keys["carol"])
    reply = student.get(audit, timeout=30)
    assert reply.status_code == 403 and "alice" not in reply.text
    assert (
        signed_in(service.url, keys["alice"])
        .get(f"{service.url}/instructor/nosuch/audit", timeout=30)
        .status_code
        == 404
    )


def test_actions_without_a_csrf_token_are_refused_and_not_logged(
    service: Service, keys: dict[str, str]
) -> None:
    instructor = signed_in(service.url, keys["alice"])
    before = len(rows(instructor.get(f"{service.url}/instructor/past/audit", timeout=30).text))
    for action in ("regrade", "release", "extension"):
        reply = instructor.post(
            f"{service.url}/instructor/past/{action}",
            data={"reason": "x", "login": "bob", "due": "2099-02-01T00:00:00+00:00"},
            timeout=30,
        )
        assert reply.status_code == 403, action
    after = rows(instructor.get(f"{service.url}/instructor/past/audit", timeout=30).text)
    assert len(after) == before


def test_a_given_back_attempt_frees_an_attempt_and_never_counts(
    service: Service, keys: dict[str, str]
) -> None:
    first = service.graded("limited", [("grid.py", STUB.read_bytes())], keys["dave"])
    second = service.graded("limited", [("grid.py", REFERENCE.read_bytes())], keys["dave"])
    assert second["final_score"] > first["final_score"]
    assert (
        service.post("limited", [("grid.py", STUB.read_bytes())], keys["dave"]).status_code == 429
    )  # `attempts: 2`
    instructor = signed_in(service.url, keys["alice"])
    audit = f"{service.url}/instructor/limited/audit"
    before = len(rows(instructor.get(audit, timeout=30).text))
    reply = act(
        instructor,
        service.url,
        "/instructor/limited/giveback",
        login="dave",
        submission=second["id"],
        reason="<i>graded the wrong file</i>",
    )
    assert reply.status_code == 302, reply.text
    lines = rows(instructor.get(audit, timeout=30).text)
    assert len(lines) == before + 1
    assert lines[0][1:] == [
        "alice",
        "attempt given back",
        "dave",
        second["id"],
        "submission 2",
        "<i>graded the wrong file</i>",
    ]
    # the counted submission is the first again, on the class page and in grades.csv
    page = instructor.get(f"{service.url}/instructor/limited", timeout=30).text
    assert f'href="/submissions/{first["id"]}">dave<' in page
    grades = instructor.get(f"{service.url}/instructor/limited/grades.csv", timeout=30).text
    dave = next(line for line in grades.splitlines() if line.startswith("dave,"))
    assert dave.split(",")[3] == "2"  # both stay listed as attempts made
    # the student sees it, marked, inert; and may submit a third time, not a fourth
    student = signed_in(service.url, keys["dave"])
    shown = student.get(f"{service.url}/submissions/{second['id']}", timeout=30).text
    assert "given back: &lt;i&gt;graded the wrong file&lt;/i&gt;" in shown
    assert "This submission counts" not in shown
    assert "given back: &lt;i&gt;" in student.get(f"{service.url}/", timeout=30).text
    third = service.post("limited", [("grid.py", STUB.read_bytes())], keys["dave"])
    assert third.status_code == 202, third.text
    assert service.post("limited", [("grid.py", STUB.read_bytes())], keys["dave"]).status_code == 429
    service.wait(third.json()["id"], keys["dave"])
    # giving the same one back twice: a 400, no second line
    again = act(
        instructor, service.url, "/instructor/limited/giveback", login="dave", submission="2", reason="twice"
    )
    assert again.status_code == 400 and len(rows(instructor.get(audit, timeout=30).text)) == before + 1


def form_again(reply: requests.Response, form: str, said: str, typed: dict[str, str]) -> None:
    """`reply` is the 400 page showing the form `form` again: the problem, beside the form,
    says `said`; each field keeps what was typed (as text, escaped); nothing a user typed runs."""
    assert reply.status_code == 400, reply.text[:300]
    assert reply.headers["Content-Type"].startswith("text/html")
    problem = re.search(r'<p class="problem" role="alert" id="problem">(.*?)</p>', reply.text, re.S)
    assert problem is not None and said in html.unescape(problem.group(1)), reply.text[:600]
    assert f'id="{form}"' in reply.text and "Traceback" not in reply.text
    named = said.split(":", 1)[0] if ":" in said and " " not in said.split(":", 1)[0] else ""
    if named in typed:  # the field the message names points to it
        field = re.search(rf'<(?:input|select) name="{named}"[^>]*>', reply.text)
        assert field and 'aria-invalid="true" aria-describedby="problem"' in field.group(0), reply.text
    assert reply.text.count('aria-invalid="true"') <= 1
    for field, value in typed.items():
        if field not in ("kind", "test") and len(value) <= 2000:  # kind, test: a <select>
            assert f'name="{field}"' in reply.text, field
            assert f'value="{html.escape(value)}"' in reply.text, field
    assert "<script>" not in reply.text and "<b>" not in reply.text


@pytest.mark.parametrize(
    ("path", "data", "said"),
    [
        (
            "giveback",
            {"login": "dave", "submission": "0123456789abcdef0123456789abcdef", "reason": "r"},
            "no such submission",
        ),
        ("giveback", {"login": "dave", "submission": "99", "reason": "r"}, "no such submission of dave"),
        ("giveback", {"login": "dave", "submission": "<script>", "reason": "r"}, "no such submission"),
        ("giveback", {"login": "nobody", "submission": "1", "reason": "r"}, "login: no student 'nobody'"),
        ("giveback", {"login": "carol", "submission": "1", "reason": "r"}, "no such submission of carol"),
        ("giveback", {"login": "dave", "submission": "1", "reason": "   "}, "reason: required"),
        ("giveback", {"login": "dave", "submission": "1", "reason": "x" * 2001}, "reason: at most 2000"),
        ("giveback", {"login": "<b>", "submission": "", "reason": ""}, "reason: required"),
        ("extension/delete", {"login": "nobody", "reason": "r"}, "login: no student 'nobody'"),
        ("extension/delete", {"login": "<script>", "reason": "<b>r</b>"}, "login: no student '<script>'"),
        ("extension/delete", {"login": "dave", "reason": "r"}, "dave has no extension for never"),
    ],
)
def test_a_wrong_give_back_or_extension_deletion_shows_the_form_again_and_writes_nothing(
    service: Service, keys: dict[str, str], path: str, data: dict[str, str], said: str
) -> None:
    instructor = signed_in(service.url, keys["alice"])
    audit = f"{service.url}/instructor/never/audit"
    reply = act(instructor, service.url, f"/instructor/never/{path}", **data)
    form_again(reply, path.replace("/", "-") + "-form", said, data)
    assert rows(instructor.get(audit, timeout=30).text) == []


def test_give_back_is_for_instructors_only_and_needs_csrf(service: Service, keys: dict[str, str]) -> None:
    url = f"{service.url}/instructor/open/giveback"
    anonymous = requests.post(url, data={}, timeout=30, allow_redirects=False)
    assert anonymous.status_code in (302, 403)
    student = signed_in(service.url, keys["carol"])
    page = student.get(f"{service.url}/", timeout=30)
    reply = student.post(
        url,
        data={"login": "carol", "submission": "1", "reason": "mine", "csrfmiddlewaretoken": csrf(page.text)},
        headers={"Referer": f"{service.url}/"},
        timeout=30,
        allow_redirects=False,
    )
    assert reply.status_code == 403
    instructor = signed_in(service.url, keys["alice"])
    assert (
        instructor.post(url, data={"login": "bob", "submission": "1", "reason": "r"}, timeout=30).status_code
        == 403
    )
    assert instructor.get(url, timeout=30).status_code == 405


def test_deleting_an_extension_restores_the_due_date(service: Service, keys: dict[str, str]) -> None:
    instructor = signed_in(service.url, keys["alice"])
    audit = f"{service.url}/instructor/extended/audit"
    granted = act(
        instructor,
        service.url,
        "/instructor/extended/extension",
        login="carol",
        due="2099-01-01T00:00:00+00:00",
    )
    assert granted.status_code == 302
    before = len(rows(instructor.get(audit, timeout=30).text))
    page = instructor.get(f"{service.url}/instructor/extended", timeout=30).text
    assert 'action="/instructor/extended/extension/delete"' in page
    deleted = act(
        instructor,
        service.url,
        "/instructor/extended/extension/delete",
        login="carol",
        reason="granted by mistake",
    )
    assert deleted.status_code == 302
    assert deleted.headers["Location"] == "/instructor/extended?done=extension_deleted"
    lines = rows(instructor.get(audit, timeout=30).text)
    assert len(lines) == before + 1
    assert lines[0][1:4] == ["alice", "extension deleted", "carol"]
    assert lines[0][6] == "granted by mistake"
    # the 2020 due date is carol's again: a day's late window long closed
    assert service.post("extended", [("grid.py", REFERENCE.read_bytes())], keys["carol"]).status_code == 403
    # deleting it again, or a login that does not exist: the form again, nothing written
    for login, said in (("carol", "carol has no extension"), ("nobody", "no student 'nobody'")):
        again = act(instructor, service.url, "/instructor/extended/extension/delete", login=login, reason="r")
        form_again(again, "extension-delete-form", said, {"login": login, "reason": "r"})
    assert len(rows(instructor.get(audit, timeout=30).text)) == before + 1


def test_deleting_an_extension_is_for_instructors_only_and_needs_csrf(
    service: Service, keys: dict[str, str]
) -> None:
    url = f"{service.url}/instructor/extended/extension/delete"
    student = signed_in(service.url, keys["carol"])
    page = student.get(f"{service.url}/", timeout=30)
    reply = student.post(
        url,
        data={"login": "carol", "csrfmiddlewaretoken": csrf(page.text)},
        headers={"Referer": f"{service.url}/"},
        timeout=30,
        allow_redirects=False,
    )
    assert reply.status_code == 403
    instructor = signed_in(service.url, keys["alice"])
    assert instructor.post(url, data={"login": "carol"}, timeout=30).status_code == 403
    assert instructor.get(url, timeout=30).status_code == 405
    anonymous = requests.get(url, timeout=30, allow_redirects=False)
    assert anonymous.status_code == 302


ALONE = """\
title: one assignment, hidden until released
roster: roster.csv
instructors: [alice]
assignments:
  - name: alone
    exercise: bitgrid
    due: 2020-01-01T00:00:00Z
    late: {per_minute: 1, max: 5}
    hidden: never
"""


def test_deleting_an_extension_that_would_reopen_credit_after_the_texts_are_out_is_refused(
    tmp_path: Path,
) -> None:
    course = write_course(tmp_path / "alone", ALONE)
    alone = tokens(course)
    with running(course) as started:
        instructor = signed_in(started.url, alone["alice"])
        page = instructor.get(f"{started.url}/instructor/alone", timeout=30)

        def post(path: str, **data: str) -> requests.Response:
            return instructor.post(
                f"{started.url}/instructor/alone/{path}",
                data={**data, "csrfmiddlewaretoken": csrf(page.text)},
                timeout=30,
                allow_redirects=False,
            )

        # an extension *before* the due date: deleting it would give bob the later due date
        assert post("extension", login="bob", due="2019-06-01T00:00:00+00:00").status_code == 302
        assert post("release", confirm="yes").status_code == 302  # takes effect now: the texts are out
        refused = post("extension/delete", login="bob", reason="r")
        form_again(refused, "extension-delete-form", "already shown", {"login": "bob", "reason": "r"})
        lines = rows(instructor.get(f"{started.url}/instructor/alone/audit", timeout=30).text)
        assert [line[2] for line in lines] == ["release", "extension granted"]
