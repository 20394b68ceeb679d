"""The report formats: Gradescope's results.json, JUnit XML, the terminal table."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.console import Console

from grader.cli import main
from grader.exercise import project_root
from grader.judge.grade import grade
from grader.judge.transcripts import DIFF_MAX_LINES, WINDOW_AFTER
from grader.report.reports import print_report, write_results
from grader.suite.load import load_suite
from tests.conftest import Build

SAMPLES = project_root() / "samples" / "bitgrid"


@pytest.fixture(scope="module")
def bob_report():  # type: ignore[no-untyped-def]
    return grade(load_suite("bitgrid"), SAMPLES / "bob", sandbox="process")


def test_results_json_follows_gradescope(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    junit = tmp_path / "junit.xml"
    assert (
        main(
            [
                "grade",
                "bitgrid",
                str(SAMPLES / "bob"),
                "--results",
                str(results),
                "--junit",
                str(junit),
                "--sandbox",
                "process",
            ]
        )
        == 0
    )
    data = json.loads(results.read_text())
    assert set(data) >= {"score", "tests"}
    suite = load_suite("bitgrid").suite
    assert [t["name"] for t in data["tests"]] == [t.name for t in suite.tests]
    for test, spec in zip(data["tests"], suite.tests, strict=True):
        assert set(test) == {"name", "score", "max_score", "status", "output", "visibility", "extra_data"}
        assert test["max_score"] == spec.points
        assert test["visibility"] == spec.visibility
        assert test["status"] in {"passed", "failed"}
        assert (test["score"] == test["max_score"]) == (test["status"] == "passed")
        assert set(test["extra_data"]) >= {"verdict", "cpu_s", "wall_s", "peak_mb"}
    assert data["score"] == sum(t["score"] for t in data["tests"])
    position = next(t for t in data["tests"] if t["name"] == "position")
    assert (
        position["status"] == "failed" and "grid.position(0, 1) returned 3, expected 6" in position["output"]
    )
    root = ET.parse(junit).getroot()
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == len(suite.tests)
    failed = {c.get("name") for c in cases if c.find("failure") is not None}
    errored = {c.get("name") for c in cases if c.find("error") is not None}
    verdicts = {t["name"]: t["extra_data"]["verdict"] for t in data["tests"]}
    assert errored == {name for name, v in verdicts.items() if v in {"RTE", "CE", "JE"}}
    assert failed == {"position"} and not errored  # bob's later tests pass with his own code
    assert failed | errored == {t["name"] for t in data["tests"] if t["status"] == "failed"}
    assert (
        main(["grade", "bitgrid", str(SAMPLES / "erin"), "--junit", str(junit), "--sandbox", "process"]) == 0
    )
    cases = ET.parse(junit).getroot().findall("./testsuite/testcase")
    assert cases and all(c.find("error") is not None for c in cases)  # CE is an <error>


def test_a_short_transcript_failure_shows_its_whole_diff(bob_report) -> None:  # type: ignore[no-untyped-def]
    result = next(r for r in bob_report.results if r.name == "game-bad-moves")
    assert result.verdict.value == "AC"  # forgiven: it passes with the reference's position
    assert "with your own it gets WA" in result.message
    assert result.details.startswith("--- expected\n+++ your output\n@@")
    assert "-grid = 256\n+grid = 32\n" in result.details  # bob's bug, where it first shows
    assert "not shown" not in result.details


LONG_SUITE = """\
exercise: toy
submit: [toy.py]
given: [main.py]
tests:
  - name: lines
    transcript: {driver: main, expected: lines.out}
"""


def test_a_long_transcript_failure_shows_a_truncated_diff(grade_toy: Build, tmp_path: Path) -> None:
    report = grade_toy(
        LONG_SUITE,
        "def line(n):\n    return f'line {n}'\n",
        "def line(n):\n    return f'LINE {n}'\n",
        given={"main.py": "import toy\n\nfor n in range(200):\n    print(toy.line(n))\n"},
    )
    result = report.results[0]
    assert result.verdict.value == "WA"
    lines = result.details.splitlines()
    assert lines[:3] == ["--- expected", "+++ your output", "@@ -1,50 +1,50 @@"]
    assert len(lines) == DIFF_MAX_LINES + 1
    whole = 3 + 2 * WINDOW_AFTER  # headers, hunk line, every line of the window removed and added
    assert lines[-1] == (
        f"... ({whole - DIFF_MAX_LINES} more diff lines and differences after "
        f"line {WINDOW_AFTER} not shown: your output has 200 lines, the expected "
        f"200)"
    )
    write_results(report, tmp_path / "results.json")
    shown = json.loads((tmp_path / "results.json").read_text())["tests"][0]["output"]
    assert lines[-1] in shown and "-line 49" not in shown


def test_terminal_report_lists_every_test(bob_report) -> None:  # type: ignore[no-untyped-def]
    stream = io.StringIO()
    print_report(bob_report, Console(file=stream, width=120))
    text = stream.getvalue()
    for result in bob_report.results:
        assert result.name in text
    assert f"Score: {bob_report.score:g} / {bob_report.max_score:g}" in text


def test_public_grading_skips_hidden_tests() -> None:
    report = grade(load_suite("bitgrid"), SAMPLES / "alice", public_only=True, sandbox="process")
    assert report.results and all(r.visibility == "visible" for r in report.results)
    assert report.score == report.max_score


def test_memory_nothing_measured_reads_not_measured_not_zero() -> None:
    """Without a memory cgroup (a grader that is not root) the peak is an estimate: every report
    says it was not measured rather than 0.0 MB."""
    from io import StringIO

    from rich.console import Console

    from grader.judge.grade import GradeReport
    from grader.judge.verdicts import TestResult, Usage, Verdict
    from grader.report.reports import print_report, results_json

    report = GradeReport(exercise="toy", submission="s")
    report.results.append(
        TestResult(
            "t", Verdict.AC, 1, 1, "visible", usage=Usage(cpu_s=0.1, peak_mb=0.0, memory_measured=False)
        )
    )
    assert results_json(report)["tests"][0]["extra_data"]["peak_mb"] is None
    out = StringIO()
    print_report(report, Console(file=out, width=120))
    row = next(line for line in out.getvalue().splitlines() if line.startswith("│ t "))
    assert row.rstrip(" │").split("│")[-1].strip() == "-"
