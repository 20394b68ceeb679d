"""The per-student formats as their readers see them: JUnit as junit-10.xsd (Jenkins xunit
plugin) defines it, summary.html in a real headless browser, the gradebook holding hostile text."""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import quote

import pytest

from grader.inert import inert_text
from grader.judge.verdicts import Verdict
from grader.report.gradebook import SCHEMA, Gradebook, attempt_from_results, changes
from grader.report.reports import junit_xml, results_json
from grader.report.summary import feedback_html, summarize, summary_html
from tests.grader.report import golden_data as data

# junit-10.xsd, restated as rules: the attributes each element may (and must) carry, and the
# children it may hold. The schema itself stays with its project.
ATTRIBUTES = {
    "testsuites": ({"name", "time", "tests", "failures", "errors"}, set()),
    "testsuite": (
        {
            "name",
            "tests",
            "failures",
            "errors",
            "group",
            "time",
            "skipped",
            "timestamp",
            "hostname",
            "id",
            "package",
            "file",
            "log",
            "url",
        },
        {"name", "tests", "failures", "errors"},
    ),
    "properties": (set(), set()),
    "property": ({"name", "value"}, {"name", "value"}),
    "testcase": ({"name", "time", "classname", "group"}, {"name"}),
    "failure": ({"type", "message"}, set()),
    "error": ({"type", "message"}, set()),
    "skipped": ({"type", "message"}, set()),
    "system-out": (set(), set()),
    "system-err": (set(), set()),
}
CHILDREN = {
    "testsuites": {"testsuite"},
    "testsuite": {"testsuite", "properties", "testcase", "system-out", "system-err"},
    "properties": {"property"},
    "testcase": {"skipped", "error", "failure", "system-out", "system-err"},
}
SUREFIRE_TIME = re.compile(r"(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?")


def schema_problems(element: ET.Element, path: str = "") -> list[str]:
    where = f"{path}/{element.tag}"
    allowed, required = ATTRIBUTES.get(element.tag, (None, None))
    if allowed is None or required is None:
        return [f"{where}: element not in the schema"]
    problems = [f"{where}: attribute {name}" for name in set(element.attrib) - allowed]
    problems += [f"{where}: lacks {name}" for name in required - set(element.attrib)]
    if (
        element.tag in {"testsuites", "testsuite"}
        and "time" in element.attrib
        and not SUREFIRE_TIME.fullmatch(element.attrib["time"])
    ):
        problems.append(f"{where}: time {element.attrib['time']}")
    if element.tag not in CHILDREN and len(element):
        problems.append(f"{where}: holds elements")
    for child in element:
        if child.tag not in CHILDREN.get(element.tag, set()):
            problems.append(f"{where}: may not hold {child.tag}")
        problems += schema_problems(child, where)
    return problems


def test_junit_follows_junit_10_xsd_with_errors_and_failures_by_verdict() -> None:
    report = data.report_of("bo<b>\x1b[31m")
    root = ET.fromstring(junit_xml(report).encode())
    assert schema_problems(root) == []
    cases = {case.get("name"): case for case in root.iter("testcase")}
    for result in report.results:
        case = cases[result.name]
        tag = "error" if result.verdict in {Verdict.RTE, Verdict.CE, Verdict.JE} else "failure"
        assert case.find(tag) is not None and case.find(tag).get("type") == result.verdict.value
        assert f"points {result.points:g}/{result.max_points:g}" in case.findtext("system-out", "")
    suite = root.find("testsuite")
    assert suite is not None and (suite.get("failures"), suite.get("errors")) == ("2", "1")
    points = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert points["points:game"] == "0/3" and points["max_score"] == "6"


def test_gradebook_keeps_hostile_text_as_data(tmp_path: Path) -> None:
    student = "x'); DROP TABLE attempts;--\x1b\u202e"
    report = data.report_of("ada")
    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        book.claim("toy")
        for day in (1, 2):
            attempt = attempt_from_results(
                student, dict(data.IDENTITY), "graded", results_json(report), f"2025-01-0{day}"
            )
            book.add(attempt)
            report = data.report_of("=cmd|' /C calc'!A0")
        assert list(book.latest()) == [student]
        assert book.attempt_count(student) == 2
        moved = changes(book)
    assert [change.student for change in moved] == [student]
    assert [name for name, _, _ in moved[0].tests] == [name for name, _, _ in data.TESTS]


def test_changes_compare_gradings_of_the_same_submission_only(tmp_path: Path) -> None:
    """A new submission graded 0 after a right one is not a change; its regrade is."""
    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        book.claim("toy")
        for day, student, submission in ((1, "ada", "a" * 16), (2, "dee", "b" * 16), (3, "ada", "a" * 16)):
            book.add(
                attempt_from_results(
                    "bob",
                    {**data.IDENTITY, "submission_hash": submission},
                    "graded",
                    results_json(data.report_of(student)),
                    f"2025-01-0{day}",
                )
            )
        assert changes(book) == []  # 6/6, then another submission 0/6, then the first again
        book.add(
            attempt_from_results(
                "bob",
                {**data.IDENTITY, "submission_hash": "a" * 16},
                "graded",
                results_json(data.report_of("dee")),
                "2025-01-04",
            )
        )
        moved = changes(book)
    assert [(change.before.score, change.after.score) for change in moved] == [(6.0, 0.0)]


class _InterruptedAt:
    """A gradebook connection that gets Ctrl-C right after (or right before) one statement."""

    def __init__(self, real: sqlite3.Connection, statement: str, after: bool) -> None:
        self.real, self.statement, self.after = real, statement, after

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
        if sql == self.statement and not self.after:
            raise KeyboardInterrupt
        cursor = self.real.execute(sql, *args)
        if sql == self.statement:
            raise KeyboardInterrupt
        return cursor

    def __getattr__(self, name: str) -> object:
        return getattr(self.real, name)


@pytest.mark.parametrize(
    ("statement", "after", "stored"),
    [
        ("COMMIT", True, 1),  # found under load: the ROLLBACK raised over the interrupt
        ("COMMIT", False, 0),
        ("BEGIN IMMEDIATE", True, 0),
    ],
)
def test_ctrl_c_while_an_attempt_is_stored_keeps_it_whole_or_not_at_all(
    tmp_path: Path, statement: str, after: bool, stored: int
) -> None:
    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        book.claim("toy")
        real = book.connection
        book.connection = _InterruptedAt(real, statement, after)  # type: ignore[assignment]
        attempt = attempt_from_results(
            "ada", dict(data.IDENTITY), "graded", results_json(data.report_of("ada")), "2025-01-01"
        )
        with pytest.raises(KeyboardInterrupt):
            book.add(attempt)
        book.connection = real
        assert not real.in_transaction
        assert book.attempt_count("ada") == stored
        tests = real.execute("SELECT COUNT(*) FROM tests").fetchone()[0]
        assert tests == stored * len(data.TESTS)


def test_a_gradebook_from_before_the_boundary_opens_and_then_records_it(tmp_path: Path) -> None:
    path = tmp_path / "gradebook.sqlite"
    with sqlite3.connect(path) as old:  # the attempts table as it was before issue 20
        old.executescript(SCHEMA)
        old.execute(
            "INSERT INTO attempts (student, exercise, suite_fingerprint, "
            "expectations_fingerprint, submission_hash, grader_version, status, score, "
            "max_score, notes, graded_at) VALUES "
            "('ada', 'toy', 's', 'e', 'h', 'v', 'graded', 1, 6, '', '2025-01-01')"
        )
    report = data.report_of("ada")
    report.boundary = "uid 1074000000, seccomp"
    with Gradebook(path) as book:
        assert book.history("ada", 1)[0].boundary == ""
        book.add(
            attempt_from_results("ada", dict(data.IDENTITY), "graded", results_json(report), "2025-01-02")
        )
        latest = book.history("ada", 1)[0]
    assert latest.boundary == f"{report.sandbox}: uid 1074000000, seccomp"
    assert "Sandbox: process: uid 1074000000, seccomp." in feedback_html("toy", latest)


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium (Debian: apt-get install chromium)")
def test_summary_sorts_and_links_in_a_headless_browser(tmp_path: Path) -> None:
    attempts = data.attempts()
    names = [name for name, _, _ in data.TESTS]
    page = tmp_path / "summary.html"
    page.write_text(summary_html("toy", summarize(attempts, names, 6.0)))

    def rendered(fragment: str) -> str:
        command = [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            f"file://{page}{fragment}",
        ]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=True).stdout

    def students_in_order(dom: str) -> list[str]:
        table = dom[dom.index('id="students"') :]
        table = table[: table.index("</table>")]
        return re.findall(r'<td><a href="[^"]*">([^<]*)</a></td>', table)

    plain = rendered("")
    assert "<script>alert" not in plain and "<b>" not in plain
    assert students_in_order(plain) == ["=cmd|' /C calc'!A0", "ada", "bo&lt;b&gt;\\x1b[31m", "dee"]
    by_score = students_in_order(rendered("#sort=2-desc"))
    assert by_score[0] == "ada" and len(by_score) == 4
    assert 'data-sorted="2-desc"' in rendered("#sort=2-desc")
    links = re.findall(r'<a href="([^"]*)">', plain)
    assert links == [
        f"{quote(inert_text(student), safe='')}/feedback-instructor.html" for student in sorted(attempts)
    ]
    assert "ada/feedback-instructor.html" in links
