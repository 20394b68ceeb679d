"""The instructors' class table (issue 31): a section per student, a status per grading, the
points per question, every attempt, search and filter by a plain GET form, per-question
statistics with an SVG histogram and the commonest failure texts; every student's text and
failure text inert there; the extension form's date picker in the course's zone, and a mistake
shown in the form again; students refused (403) on each of these pages."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
import requests

from grader.suite.load import load_suite
from tests.grader.service.conftest import REFERENCE, Service, csrf, running, signed_in, write_course

pytestmark = pytest.mark.slow

ROSTER = (
    "login,name,email,section\nalice,Alice,a@example.org,\nbob,Bob,b@example.org,A1\n"
    'carol,<img src=x onerror=alert(1)>,c@example.org,"<b>B2</b>"\ndave,Dave,d@example.org,A1\n'
    "erin,Erin,e@example.org,B3\n"
)
COURSE = """\
title: class table
roster: roster.csv
instructors: [alice]
timezone: Europe/Paris
assignments:
  - name: open
    exercise: bitgrid
    due: 2099-01-01T00:00:00Z
  - name: past
    exercise: bitgrid
    due: 2020-01-01T00:00:00Z
    late: {per_minute: 1, max: 5}
"""
HOSTILE = "<script>alert('failure')</script><img src=x onerror=alert(2)>"
RAISING = (
    REFERENCE.read_text().replace("def winner(", "def winner_fast(", 1)
    + f"\n\ndef winner(grid):\n    raise ValueError({HOSTILE!r})\n"
)


@pytest.fixture(scope="module")
def course_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_course(tmp_path_factory.mktemp("course"), COURSE, ROSTER)


@pytest.fixture(scope="module")
def class_service(course_file: Path, keys: dict[str, str]) -> Iterator[Service]:
    """bob: a wrong then the reference's submission, and a late one to `past`; carol: winner
    raising an error whose text is HTML; dave: a syntax error (CE); erin: nothing."""
    with running(course_file) as started:
        started.graded("open", [("grid.py", RAISING.encode())], keys["bob"])
        started.graded("open", [("grid.py", REFERENCE.read_bytes())], keys["bob"])
        started.graded("past", [("grid.py", REFERENCE.read_bytes())], keys["bob"])
        started.graded("open", [("grid.py", RAISING.encode())], keys["carol"])
        started.graded("open", [("grid.py", b"def winner(:\n")], keys["dave"])
        yield started


class Elements(HTMLParser):
    """Every element of a page: (tag, attributes), and the tags inside each <svg>."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []
        self.in_svg: list[str] = []
        self.depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))
        if tag == "svg":
            self.depth += 1
        elif self.depth:
            self.in_svg.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self.depth -= 1


def elements(page: str) -> Elements:
    parser = Elements()
    parser.feed(page)
    return parser


def row(page: str, login: str) -> str:
    found = re.search(rf'<tr id="row-{login}">(.*?)</tr>', page, re.S)
    assert found, login
    return found.group(1)


def logins(page: str) -> list[str]:
    return re.findall(r'<tr id="row-([^"]+)">', page)


def test_the_table_has_sections_statuses_questions_and_attempts(
    class_service: Service, keys: dict[str, str]
) -> None:
    instructor = signed_in(class_service.url, keys["alice"])
    page = instructor.get(f"{class_service.url}/instructor/open", timeout=30).text
    suite = load_suite("bitgrid").suite
    assert f'<strong id="max-score">{suite.total_points:g}</strong>' in page
    heads = re.findall(
        r'<th data-column="\d+" class="num part" scope="col"><abbr title="(.*?)">Q(\d+)<', page
    )
    assert heads == [(title, f"{index}") for index, title in enumerate(suite.question_titles().values(), 1)]
    legend = page.split('id="parts-legend"', 1)[1].split("</dl>", 1)[0]
    assert re.findall(r"<dt>(.*?)</dt><dd>(.*?) <", legend) == [(f"Q{i}", t) for t, i in heads]
    assert "<td>A1</td>" in row(page, "bob") and "<td>B3</td>" in row(page, "erin")
    status = re.compile(r'<span class="status">(.*?)</span>')
    statuses = {login: status.search(row(page, login)) for login in logins(page)}
    assert {login: found.group(1) for login, found in statuses.items() if found} == {
        "bob": "graded",
        "carol": "graded",
        "dave": "CE",
        "erin": "missing",
    }
    bob = row(page, "bob")
    assert bob.count("<li>") == 2 and "submission 2</a>" in bob and "<strong>counts</strong>" in bob
    assert re.search(r"<summary>2</summary>", bob)
    past = instructor.get(f"{class_service.url}/instructor/past", timeout=30).text
    assert '<span class="status">late</span>' in row(past, "bob")
    winner_column = list(suite.question_titles()).index("grid-winner")
    carol_points = re.findall(r'<td class="num" data-value="(-?[\d.]+)">', row(page, "carol"))[-len(heads) :]
    assert float(carol_points[winner_column]) == 0 < float(re.findall(r'data-value="([\d.]+)"', bob)[-1])
    canvas = instructor.get(f"{class_service.url}/instructor/open/grades.csv?format=canvas", timeout=30)
    sections = {line.split(",")[3]: line.split(",")[4] for line in canvas.text.splitlines()[2:]}
    assert sections["bob"] == "A1" and sections["erin"] == "B3"  # Canvas's Section column


def test_student_and_failure_texts_are_inert_in_the_table_statistics_and_svg(
    class_service: Service, keys: dict[str, str]
) -> None:
    instructor = signed_in(class_service.url, keys["alice"])
    page = instructor.get(f"{class_service.url}/instructor/open", timeout=30).text
    found = elements(page)
    assert not [tag for tag, _ in found.found if tag == "img"]
    assert not [attrs for _, attrs in found.found if any(name.startswith("on") for name in attrs)]
    assert [attrs.get("src") for tag, attrs in found.found if tag == "script"] == [
        "/static/grader.js",
        "/static/sortable.js",
    ]
    assert set(found.in_svg) <= {"rect", "title", "line", "text"} and "rect" in found.in_svg
    assert "&lt;img src=x onerror=alert(1)&gt;" in row(page, "carol")
    assert "&lt;b&gt;B2&lt;/b&gt;" in row(page, "carol") and "<b>B2</b>" not in page
    failures = page.split('id="statistics"', 1)[1]
    assert html.escape(HOSTILE, quote=True) in failures or html.escape(HOSTILE, quote=False) in failures
    winner = failures.split("winner", 1)[1].split("</section>", 1)[0]
    commonest = re.findall(r'<li><span class="badge">(\d+)</span> in (.*?)<pre>([^<]*)</pre>', winner)
    ce = "<code>winner</code>, <code>winner-hidden</code>"
    assert ("1", ce, "No test could run: grid.py does not compile") in commonest  # dave's CE
    assert [line for line in commonest if "raised ValueError: &lt;script&gt;" in line[2]]  # carol's
    svgs = re.findall(r"<svg .*?</svg>", page, re.S)
    assert len(svgs) == len(load_suite("bitgrid").suite.question_titles())
    assert all('role="img" aria-label="' in svg for svg in svgs)


def test_search_and_filters_keep_the_rows_asked_for(class_service: Service, keys: dict[str, str]) -> None:
    instructor = signed_in(class_service.url, keys["alice"])
    url = f"{class_service.url}/instructor/open"
    for query, kept in (
        ({"section": "A1"}, ["bob", "dave"]),
        ({"q": "CAR"}, ["carol"]),
        ({"q": "dave"}, ["dave"]),
        ({"status": "CE"}, ["dave"]),
        ({"status": "missing", "section": "B3"}, ["erin"]),
        ({"section": "<b>B2</b>"}, ["carol"]),
        ({"q": "<script>x</script>" * 20}, []),
    ):
        reply = instructor.get(url, params=query, timeout=30)
        assert reply.status_code == 200 and logins(reply.text) == kept, query
        assert "<script>x" not in reply.text
        assert f"{len(kept)} of 4 students shown" in reply.text
    page = instructor.get(url, params={"status": "CE"}, timeout=30).text
    assert "<option selected>CE</option>" in page
    stats = page.split('id="statistics"', 1)[1]
    assert "of 1 counted submission(s)" in stats  # dave's: statistics of the rows shown


def extension_post(session: requests.Session, url: str, **data: str) -> requests.Response:
    page = session.get(f"{url}/instructor/open", timeout=30)
    return session.post(
        f"{url}/instructor/open/extension",
        data={**data, "csrfmiddlewaretoken": csrf(page.text)},
        headers={"Referer": f"{url}/instructor/open"},
        timeout=30,
        allow_redirects=False,
    )


def test_the_extension_date_picker_is_in_the_course_zone(
    class_service: Service, keys: dict[str, str]
) -> None:
    instructor = signed_in(class_service.url, keys["alice"])
    page = instructor.get(f"{class_service.url}/instructor/open", timeout=30).text
    assert 'type="datetime-local" name="due" required value="2099-01-01T01:00"' in page  # due, in Paris
    assert "due, in Europe/Paris" in page
    saved = extension_post(instructor, class_service.url, login="erin", due="2099-06-01T12:00", reason="ill")
    assert saved.status_code == 302 and saved.headers["Location"] == "/instructor/open?done=extension"
    page = instructor.get(f"{class_service.url}/instructor/open", timeout=30).text
    assert 'erin: <time datetime="2099-06-01T12:00:00+02:00"' in page
    audit = instructor.get(f"{class_service.url}/instructor/open/audit", timeout=30).text
    assert "due 2099-06-01T10:00:00+00:00" in audit


@pytest.mark.parametrize(
    ("login", "due", "said"),
    [
        ("dave", "2099-13-01T12:00", "due: a date and a time (in Europe/Paris)"),
        ("dave", "", "due: required"),
        ("dave", "2099-03-29T02:30", "does not exist in Europe/Paris"),
        ("nobody", "2099-06-01T12:00", "login: no student &#x27;nobody&#x27; in the roster"),
        ('"><script>alert(1)</script>', "2099-06-01T12:00", "login: no student"),
    ],
)
def test_a_mistake_shows_the_form_again_with_what_was_typed(
    class_service: Service, keys: dict[str, str], login: str, due: str, said: str
) -> None:
    instructor = signed_in(class_service.url, keys["alice"])
    before = instructor.get(f"{class_service.url}/instructor/open/audit", timeout=30).text.count("<tr>")
    reason = "<b>a reason</b> kept"
    reply = extension_post(instructor, class_service.url, login=login, due=due, reason=reason)
    assert reply.status_code == 400 and reply.headers["Content-Type"].startswith("text/html")
    assert said in reply.text, reply.text
    typed = f'name="login" required list="students" autocomplete="off" value="{html.escape(login)}"'
    assert typed in reply.text
    assert f'name="due" required value="{html.escape(due)}"' in reply.text or not due
    assert f'value="{html.escape(reason)}"' in reply.text
    assert "<script>alert(1)" not in reply.text
    after = instructor.get(f"{class_service.url}/instructor/open/audit", timeout=30).text.count("<tr>")
    assert after == before  # nothing saved


def test_students_get_403_on_the_class_table_queue_and_extension(
    class_service: Service, keys: dict[str, str]
) -> None:
    student = signed_in(class_service.url, keys["bob"])
    for path in ("/instructor/", "/instructor/open", "/instructor/open?q=bob&status=graded&section=A1"):
        reply = student.get(f"{class_service.url}{path}", timeout=30)
        assert reply.status_code == 403 and "Erin" not in reply.text, path
    page = student.get(f"{class_service.url}/", timeout=30)
    reply = student.post(
        f"{class_service.url}/instructor/open/extension",
        data={"login": "bob", "due": "2099-06-01T12:00", "csrfmiddlewaretoken": csrf(page.text)},
        headers={"Referer": f"{class_service.url}/"},
        timeout=30,
    )
    assert reply.status_code == 403
