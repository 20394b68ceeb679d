"""A submission's text is shown as inert data in every report: terminal, JUnit, JSON, CSV, HTML."""

from __future__ import annotations

import csv
import doctest
import io
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from rich.console import Console

import grader.inert
from grader.inert import csv_cell, inert_text, xml_safe
from grader.judge.grade import GradeReport
from grader.judge.verdicts import TestResult as Result  # pytest would collect a class named Test*
from grader.judge.verdicts import Usage, Verdict
from grader.report.gradebook import Attempt, attempt_from_results
from grader.report.grades import grades_csv
from grader.report.reports import failure_text, junit_xml, print_report, results_json, write_results
from grader.report.summary import print_summary, summarize, summary_html

ANSI = "\x1b[2J\x1b[31m"
MARKUP = "[bold red]boom[/]"
HOSTILE = (
    f"clears{ANSI}screen NUL\x00 back\rwards bidi\u202eesrever lone\ud800surrogate "
    f"{MARKUP} bell\x07 del\x7f csi\x9b nonchar\uffff end"
)
HOSTILE_NAME = f"name{ANSI}{MARKUP}\u202e"
SUBMISSION = "[red]x\x1b[2J"
FORMULA_STUDENTS = ['=HYPERLINK("http://x")', "+1", "@SUM(A1)", "-2+3", "\tTAB", "\rCR"]

# What must never reach a terminal or an HTML page from a student's text (tab and newline may).
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# Everything outside XML 1.0's Char production.
NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def hostile_report() -> GradeReport:
    def result(name: str, verdict: Verdict, kind: str = "call") -> Result:
        return Result(
            name=name,
            verdict=verdict,
            points=0.0,
            max_points=1.0,
            visibility="visible",
            kind=kind,
            usage=Usage(0.5, 0.75, 3.0),
            message=HOSTILE,
            details=HOSTILE,
            stdout=HOSTILE,
        )

    return GradeReport(
        exercise="bitgrid",
        submission=SUBMISSION,
        sandbox="process",
        notes=[HOSTILE],
        results=[
            result("printed", Verdict.WA, kind="transcript"),
            result("crashed", Verdict.JE),
            result(HOSTILE_NAME, Verdict.RTE),
        ],
    )


def assert_shown_as_data(text: str) -> None:
    """No raw control character, and the student's text still reads in its escaped form."""
    assert RAW_CONTROL.search(text) is None, repr(RAW_CONTROL.search(text))
    assert "clears\\x1b[2J\\x1b[31mscreen" in text
    assert "NUL\\x00" in text and "back\\rwards" in text and "bidi\\u202eesrever" in text
    assert "lone\ufffdsurrogate" in text and "bell\\x07" in text and "csi\\x9b" in text
    assert MARKUP in text


def terminal() -> tuple[Console, io.StringIO]:
    stream = io.StringIO()
    return Console(file=stream, force_terminal=False, width=200), stream


def test_the_doctests_of_inert_pass() -> None:
    outcome = doctest.testmod(grader.inert)
    assert outcome.attempted > 0 and outcome.failed == 0


def test_inert_text_escapes_every_dangerous_character() -> None:
    text = inert_text(HOSTILE)
    assert_shown_as_data(text)
    assert inert_text(text) == text
    text.encode("utf-8")


def test_clean_text_passes_through_untouched() -> None:
    clean = "expected 6, got 3\n\tline two: é ☃ 🎲 [not markup to us]\n" * 1000
    assert inert_text(clean) is clean
    assert xml_safe(clean) is clean


def test_xml_safe_leaves_nothing_xml_forbids() -> None:
    text = xml_safe(HOSTILE + "\ufffe\udfff\x0b\x0c")
    assert NOT_XML.search(text) is None
    assert_shown_as_data(text)


@pytest.mark.parametrize("student", FORMULA_STUDENTS)
def test_csv_cell_neutralises_formulas(student: str) -> None:
    cell = csv_cell(student)
    assert cell.startswith("'") or cell.startswith("\\r")
    assert not cell.startswith(("=", "+", "-", "@", "\t", "\r"))


def test_terminal_report_shows_student_text_as_data() -> None:
    console, stream = terminal()
    print_report(hostile_report(), console)
    text = stream.getvalue()
    assert_shown_as_data(text)
    assert "[red]x\\x1b[2J" in text
    assert f"name\\x1b[2J\\x1b[31m{MARKUP}\\u202e" in text


def test_failure_text_is_inert() -> None:
    for result in hostile_report().results:
        assert_shown_as_data(failure_text(result))


def test_junit_parses_and_holds_no_forbidden_character() -> None:
    report = hostile_report()
    report.exercise = "bitgrid\x00\ufffe"
    document = junit_xml(report)
    assert NOT_XML.search(document) is None
    assert RAW_CONTROL.search(document) is None
    root = ET.fromstring(document.encode("utf-8"))
    cases = root.findall("./testsuite/testcase")
    assert [case.get("name") for case in cases] == ["printed", "crashed", inert_text(HOSTILE_NAME)]
    failure = cases[0].find("failure")
    error = cases[1].find("error")
    assert failure is not None and error is not None
    for element in (failure, error):
        assert_shown_as_data(element.get("message", ""))
        assert_shown_as_data(element.text or "")


def test_results_json_is_always_writable_as_utf8(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    write_results(hostile_report(), path)
    data = json.loads(path.read_bytes().decode("utf-8"))
    assert len(data["tests"]) == 3
    for test in data["tests"]:
        assert_shown_as_data(test["output"])
    assert_shown_as_data(data["output"])
    assert data["tests"][2]["name"] == inert_text(HOSTILE_NAME)
    assert json.dumps(results_json(hostile_report()), ensure_ascii=False).encode("utf-8")


TEST_NAMES = ["position", HOSTILE_NAME]


def class_results(students: list[str]) -> dict[str, Attempt]:
    """Attempts as a batch stores them, every student failing one transcript alike."""
    tests = [
        {
            "name": "position",
            "score": 0.0,
            "max_score": 1.0,
            "status": "failed",
            "output": HOSTILE,
            "visibility": "visible",
            "extra_data": {
                "kind": "transcript",
                "verdict": "WA",
                "wall_s": 0.5,
                "peak_mb": 2.0,
                "resident_mb": 12.0,
            },
        },
        {
            "name": HOSTILE_NAME,
            "score": 1.0,
            "max_score": 1.0,
            "status": "passed",
            "output": "",
            "visibility": "visible",
            "extra_data": {"kind": "call", "verdict": "AC"},
        },
    ]
    identity = dict.fromkeys(
        ("exercise", "suite_fingerprint", "expectations_fingerprint", "submission_hash", "grader_version"),
        "x",
    )
    return {
        student: attempt_from_results(
            student,
            identity,
            "graded",
            {"score": 1.0, "tests": tests, "extra_data": {"max_score": 2.0}},
            "2025-01-01",
        )
        for student in students
    }


def test_grades_csv_neutralises_student_names_and_keeps_numbers() -> None:
    students = [*FORMULA_STUDENTS, "alice", "lone\udcffbyte", f"esc{ANSI}"]
    text = grades_csv(TEST_NAMES, 2.0, class_results(students))
    text.encode("utf-8")
    assert RAW_CONTROL.search(text.replace("\t", "")) is None
    rows = list(csv.reader(io.StringIO(text)))
    cells = {row[0]: row for row in rows[1:]}
    assert set(cells) == {"'" + s for s in FORMULA_STUDENTS[:5]} | {
        "\\rCR",
        "alice",
        "lone\ufffdbyte",
        "esc\\x1b[2J\\x1b[31m",
    }
    for row in rows[1:]:
        assert not row[0].startswith(("=", "+", "-", "@", "\t", "\r"))
        assert row[1] == "graded" and float(row[2]) == 1.0 and float(row[3]) == 2.0


def hostile_class() -> dict[str, Attempt]:
    return class_results(
        [*FORMULA_STUDENTS, f"esc{ANSI}{MARKUP}", "lone\udcffbyte", "<script>alert(1)</script>"]
    )


def test_terminal_summary_shows_student_text_as_data() -> None:
    console, stream = terminal()
    print_summary(summarize(hostile_class(), TEST_NAMES, 2.0), console)
    text = stream.getvalue()
    assert_shown_as_data(text)
    assert f"esc\\x1b[2J\\x1b[31m{MARKUP}" in text
    assert "lone\ufffdbyte" in text and '=HYPERLINK("http://x")' in text
    assert f"name\\x1b[2J\\x1b[31m{MARKUP}\\u202e" in text


class PageReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.data: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.data.append(data)


def test_summary_html_shows_student_text_as_data() -> None:
    page = summary_html("bitgrid\x1b", summarize(hostile_class(), TEST_NAMES, 2.0))
    page.encode("utf-8")
    assert RAW_CONTROL.search(page) is None
    reader = PageReader()
    reader.feed(page)
    reader.close()
    assert reader.tags.count("script") == 1  # the page's own, sorting the students' table
    text = "".join(reader.data)
    assert_shown_as_data(text)
    assert "<script>alert(1)</script>" in text and f"esc\\x1b[2J\\x1b[31m{MARKUP}" in text
    assert "lone\ufffdbyte" in text and "bitgrid\\x1b" in text
