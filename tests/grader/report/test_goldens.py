"""The report writers against golden files. After a deliberate change, regenerate them all with

    make goldens

(GRADER_UPDATE_GOLDENS=1 for this file) and review the change with `git diff tests/`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from grader.judge.verdicts import Verdict
from grader.report.grades import grades_csv
from grader.report.reports import VERDICT_STYLES, junit_xml, results_json
from grader.report.summary import VERDICT_STYLE, feedback_html, summarize, summary_html
from tests.grader.report import golden_data as data

GOLDENS = Path(__file__).with_name("goldens")
UPDATE = os.environ.get("GRADER_UPDATE_GOLDENS") == "1"
NAMES = [name for name, _, _ in data.TESTS]
MAX_SCORE = sum(points for _, points, _ in data.TESTS)
HIDDEN = frozenset({"game"})  # the student's page withholds its failure text


def written() -> dict[str, str]:
    attempts = data.attempts()
    hostile = "bo<b>\x1b[31m"
    return {
        "grades.csv": grades_csv(NAMES, MAX_SCORE, attempts),
        "grades-roster.csv": grades_csv(NAMES, MAX_SCORE, attempts, data.roster()),
        "summary.html": summary_html("toy", summarize(attempts, NAMES, MAX_SCORE)),
        "feedback.html": feedback_html("toy", attempts[hostile], HIDDEN),
        "feedback-instructor.html": feedback_html("toy", attempts[hostile], HIDDEN, instructor=True),
        "junit.xml": junit_xml(data.report_of(hostile)),
        "results.json": json.dumps(results_json(data.report_of(hostile)), indent=1) + "\n",
        # A submission that does not import: why, once at the top; its tests point there.
        "feedback-does-not-import.html": feedback_html("toy", attempts["dee"], HIDDEN),
        "results-does-not-import.json": json.dumps(results_json(data.report_of("dee")), indent=1) + "\n",
        "junit-does-not-import.xml": junit_xml(data.report_of("dee")),
    }


@pytest.mark.parametrize("name", sorted(written()))
def test_writer_matches_its_golden(name: str) -> None:
    text = written()[name]
    golden = GOLDENS / name
    if UPDATE:
        golden.write_bytes(text.encode())
    assert golden.read_bytes().decode() == text, (
        f"{name} changed: `make goldens`, then review `git diff {golden}`"
    )


def test_goldens_hold_no_live_markup_or_control_characters() -> None:
    for name, text in written().items():
        assert "\x1b" not in text and "\u202e" not in text and "\r" not in text.replace("\r\n", ""), name
        if name.endswith((".html", ".xml")):
            assert "<script>alert" not in text and "<b>" not in text, name


def test_every_verdict_has_its_colour_in_the_one_stylesheet() -> None:
    for verdict in Verdict:
        assert f".v-{verdict.value}" in VERDICT_STYLE, f"verdicts.css has no colour for {verdict.value}"
        assert verdict in VERDICT_STYLES, f"the terminal has no colour for {verdict.value}"
