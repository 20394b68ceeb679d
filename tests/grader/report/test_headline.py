"""Every report says first what matters most: the points per question, the hidden points (graded,
withheld or still to come), and, once, why a submission that does not import ran no test."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

from rich.console import Console

from grader.judge.grade import GradeReport, grade
from grader.judge.verdicts import TestResult as Result
from grader.judge.verdicts import Verdict
from grader.report.gradebook import attempt_from_results
from grader.report.reports import junit_xml, print_report, results_json
from grader.report.summary import feedback_html
from grader.suite.load import load_suite

ESCAPE = "\x1b[2J"
CAUSE = f"grid.py does not compile{ESCAPE}"
TRACE = 'File "grid.py", line 3\n    def broken(:\n               ^\nSyntaxError: invalid syntax'


def report_with(results: list[Result], hidden_not_run: float = 0.0) -> GradeReport:
    return GradeReport(
        exercise="toy",
        submission="class/ann",
        results=results,
        question_titles={"board": "The board", "search": "Search"},
        hidden_points_not_run=hidden_not_run,
    )


def does_not_compile(name: str, question: str, points: float = 1.0, visibility: str = "visible") -> Result:
    return Result(
        name,
        Verdict.CE,
        0.0,
        points,
        visibility,
        question=question,
        message=f"{name}(1): {CAUSE}",
        details=TRACE,
        cause=CAUSE,
    )


def terminal(report: GradeReport) -> str:
    out = io.StringIO()
    print_report(report, Console(file=out, width=200))
    return out.getvalue()


def test_a_submission_that_does_not_import_says_why_once_at_the_top() -> None:
    report = report_with(
        [
            does_not_compile("read", "board"),
            does_not_compile("play", "search"),
            does_not_compile("deep", "search", 2, "hidden"),
        ]
    )
    report.notes.append(CAUSE)  # what the grading noted too: not said twice

    text = terminal(report)
    assert text.count("SyntaxError: invalid syntax") == 1
    assert text.count("does not compile") == 1 and ESCAPE not in text
    assert text.index("does not compile") < text.index("Points per question") < text.index("Tests")
    assert text.count("CE (see above)") == 3

    data = json.loads(json.dumps(results_json(report)))
    assert data["output"].startswith("No test could run: grid.py does not compile\\x1b[2J\n")
    assert data["output"].count("does not compile") == 1
    assert [test["output"] for test in data["tests"]] == ["CE (see above)"] * 3

    suite = ET.fromstring(junit_xml(report)).find("testsuite")
    assert suite is not None and suite.get("errors") == "3"
    assert [case.find("error") is not None for case in suite.iter("testcase")] == [True] * 3
    reason = suite.find("properties/property[@name='does_not_import']")
    assert reason is not None and reason.get("value") == "grid.py does not compile\\x1b[2J"

    attempt = attempt_from_results("ann", {}, "CE", data, "now")
    page = feedback_html("toy", attempt, frozenset({"deep"}))
    assert page.count("SyntaxError: invalid syntax") == 1 and "<h3>" not in page
    assert page.index("No test could run") < page.index("Points per question")
    assert "(0 failure text(s) withheld)" in page


def test_different_import_failures_stay_with_their_tests() -> None:
    other = does_not_compile("play", "search")
    other.cause = "ImportError: cannot import name 'winner' from 'grid'"
    other.message = f"play < game.txt: {other.cause}"
    report = report_with(
        [
            does_not_compile("read", "board"),
            other,
            Result("size", Verdict.AC, 1, 1, "visible", question="board"),
        ]
    )
    assert report.import_failure is None
    text = terminal(report)
    assert "CE (see above)" not in text and "No test could run" not in text
    assert "read: CE" in text and "play: CE" in text and "cannot import name" in text
    data = results_json(report)
    assert "output" not in data and "cannot import name" in data["tests"][1]["output"]
    assert (
        report_with(
            [other, Result("x", Verdict.WA, 0, 1, "visible", question="board", cause="")]
        ).import_failure
        is None
    )


def test_points_per_question_come_first_with_the_failed_tests() -> None:
    report = report_with(
        [
            Result("read", Verdict.AC, 2, 2, "visible", question="board"),
            Result("write", Verdict.WA, 0, 1, "visible", question="board", message="write(1) returned 3"),
            Result("play", Verdict.TLE, 0, 3, "visible", question="search"),
        ]
    )
    text = terminal(report)
    assert text.index("Points per question") < text.index("Tests") < text.index("write: WA")
    assert "board: The board" in text and "2/3" in text and "write (WA)" in text
    assert "search: Search" in text and "0/3" in text and "play (TLE)" in text
    assert "Points: 2 of 6 points" in text


def test_hidden_points_not_run_are_stated() -> None:
    report = report_with([Result("read", Verdict.AC, 17, 19, "visible", question="board")], hidden_not_run=2)
    assert "Points: 17 of the 19 visible points; 2 points in hidden tests, graded later" in terminal(report)
    data = json.loads(json.dumps(results_json(report)))
    assert data["extra_data"]["hidden_points_not_run"] == 2
    page = feedback_html("toy", attempt_from_results("ann", {}, "graded", data, "now"))
    assert "17 of the 19 visible points; 2 points in hidden tests, graded later" in page


def test_the_student_page_states_hidden_points_and_withheld_texts() -> None:
    report = report_with(
        [
            Result("read", Verdict.AC, 2, 2, "visible", question="board"),
            Result(
                "deep",
                Verdict.WA,
                0,
                3,
                "hidden",
                question="search",
                message="deep(7) returned 1, expected 4",
            ),
        ]
    )
    attempt = attempt_from_results("ann", {}, "graded", results_json(report), "now")
    student = feedback_html("toy", attempt, frozenset({"deep"}))
    assert (
        "2 of 5 points: 2 of the 2 visible points; 0 of the 3 points in hidden tests (their "
        "failure texts are withheld)"
    ) in student and "deep(7)" not in student
    instructor = feedback_html("toy", attempt, frozenset({"deep"}), instructor=True)
    assert "withheld)" not in instructor.split("<h2>")[0] and "deep(7)" in instructor


def test_a_public_grading_states_the_hidden_points_it_left_out() -> None:
    loaded = load_suite("bitgrid")
    hidden = sum(t.points for t in loaded.suite.tests if t.visibility != "visible")
    report = grade(loaded, loaded.exercise.reference, public_only=True, sandbox="process")
    assert hidden and report.hidden_points_not_run == hidden
    visible = loaded.suite.total_points - hidden
    assert (
        f"{visible:g} of the {visible:g} visible points; {hidden:g} points in hidden tests, graded later"
    ) in terminal(report)


def test_a_syntax_error_is_said_once_by_a_real_grading(tmp_path: Path) -> None:
    loaded = load_suite("bitgrid")
    broken = tmp_path / "broken"
    broken.mkdir()
    reference = (loaded.exercise.reference / "grid.py").read_text()
    (broken / "grid.py").write_text(reference + "\ndef broken(:\n")
    report = grade(loaded, broken, sandbox="process")
    assert report.import_failure is not None
    text = terminal(report)
    assert text.count("SyntaxError") == 1
    assert text.count("CE (see above)") == len(loaded.suite.tests)
