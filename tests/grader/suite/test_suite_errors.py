"""A malformed suite gets one clear line naming the file, the line and the key; never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.cli import main
from grader.commands import EXIT_BAD_INPUT
from grader.suite.load import parse_suite
from grader.suite.model import SuiteError

VALID = """\
exercise: toy
submit: [toy.py]
tests:
  - name: answer
    call: toy.answer
    cases: [[1]]
"""

BROKEN = {
    "unknown-top-key": (VALID + "colour: blue\n", ":7: colour: unknown key"),
    "unknown-test-key": (
        VALID.replace("    cases", "    casse: 1\n    cases"),
        ":6: tests.0.casse: unknown key",
    ),
    "limit-wrong-type": (
        VALID.replace("submit", "limits: {cpu_s: fast}\nsubmit"),
        ":2: limits.cpu_s: expected seconds (a number > 0) or a multiple of the "
        "reference's time such as '3x', got 'fast'",
    ),
    "bad-visibility": (
        VALID + "    visibility: secret\n",
        ":7: tests.0.visibility: Input should be 'visible', 'hidden' or 'after_due_date'",
    ),
    "two-kinds": (VALID + "    transcript: {driver: d, expected: e.txt}\n", "a test is exactly one of"),
    "missing-submit": (VALID.replace("submit: [toy.py]\n", ""), "submit: required key is missing"),
    "bad-yaml": ("exercise: toy\ntests: [\n", ":3: malformed YAML"),
    "negative-tolerance": (
        VALID + "    compare: approx\n    tolerance: -0.1\n",
        ":8: tests.0.tolerance: Input should be greater than or equal to 0",
    ),
    "nan-tolerance": (
        VALID + "    compare: approx\n    tolerance: .nan\n",
        ":8: tests.0.tolerance: Input should be a finite number",
    ),
    "negative-step-tolerance": (
        VALID.replace(
            "    call: toy.answer\n    cases: [[1]]\n",
            "    steps:\n      - {call: toy.answer, compare: approx, tolerance: -1}\n",
        ),
        "tests.0.steps.0.tolerance: Input should be greater than or equal to 0",
    ),
    "bad-regex": (VALID.replace("submit", "normalize: {mask: ['(']}\nsubmit"), "normalize.mask"),
    "duplicate-test": (
        VALID + "  - name: answer\n    call: toy.answer\n    cases: [[2]]\n",
        ":7: tests.1.name: two tests are named 'answer' (the first is tests.0)",
    ),
    "helper-is-the-test": (
        VALID + "    reference_helpers: {toy.answer: answer}\n",
        ":7: tests.0.reference_helpers.toy.answer: 'toy.answer' is the function this test grades",
    ),
    "helper-unknown-question": (
        VALID + "    reference_helpers: {toy.mask: mask}\n",
        ":7: tests.0.reference_helpers.toy.mask: no test or question named 'mask'",
    ),
    "helper-not-submitted": (
        VALID + "    reference_helpers: {prelude.mask: answer}\n",
        "'prelude.mask' is not in a submitted module (toy)",
    ),
    "helper-not-dotted": (VALID + "    reference_helpers: {mask: answer}\n", "'mask' is not module.name"),
    "question-unknown": (
        VALID.replace("tests:", "questions: [{id: q1}]\ntests:") + "    question: q2\n",
        ":8: tests.0.question: no question 'q2' is declared (questions: q1)",
    ),
    "question-missing": (
        VALID.replace("tests:", "questions: [{id: q1, title: Answer}]\ntests:"),
        ":5: tests.0: test 'answer' names no question (one of q1)",
    ),
    "question-undeclared": (
        VALID + "    question: q1\n",
        ":7: tests.0.question: the suite declares no `questions:`",
    ),
    "question-twice": (
        VALID.replace("tests:", "questions: [{id: q1}, {id: q1}]\ntests:"),
        "two questions are named 'q1'",
    ),
    "referee-not-module-function": (
        VALID.replace(
            "    call: toy.answer\n    cases: [[1]]\n", "    interactive: {driver: duel, referee: judge}\n"
        ),
        ":5: tests.0.interactive.referee: expected MODULE:FUNCTION",
    ),
    "interactive-and-transcript": (
        VALID.replace(
            "    call: toy.answer\n    cases: [[1]]\n",
            "    interactive: {driver: duel, referee: 'r:f'}\n    transcript: {driver: d, expected: e.txt}\n",
        ),
        "a test is exactly one of",
    ),
    "interactive-unknown-key": (
        VALID.replace(
            "    call: toy.answer\n    cases: [[1]]\n",
            "    interactive: {driver: duel, referee: 'r:f', stdin: x.txt}\n",
        ),
        "tests.0.interactive.stdin: unknown key",
    ),
    "helper-own-question": (
        VALID + "  - name: other\n    call: toy.other\n    cases: [[2]]\n"
        "    reference_helpers: {toy.answer: other}\n",
        "'toy.answer' is graded by this very test or its question",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_malformed_suite_message(tmp_path: Path, case: str) -> None:
    text, expected = BROKEN[case]
    path = tmp_path / "toy.yaml"
    path.write_text(text)
    with pytest.raises(SuiteError) as caught:
        parse_suite(path)
    message = str(caught.value)
    assert message.startswith(str(path)), message
    assert expected in message, message
    assert "\n" not in message


def test_valid_suite_loads(tmp_path: Path) -> None:
    path = tmp_path / "toy.yaml"
    path.write_text(VALID)
    loaded = parse_suite(path)
    assert loaded.suite.tests[0].points == 1
    assert loaded.suite.limits.cpu_s == 10


def test_cli_reports_a_bad_suite_without_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "toy.yaml"
    path.write_text(BROKEN["unknown-test-key"][0])
    code = main(["grade", str(path), str(tmp_path), "--sandbox", "process"])
    captured = capsys.readouterr()
    assert code == EXIT_BAD_INPUT
    assert "unknown key" in captured.err and "Traceback" not in captured.err + captured.out


def test_cli_usage_error_exits_2() -> None:
    with pytest.raises(SystemExit) as caught:
        main(["grade", "--no-such-flag"])
    assert caught.value.code == 2


def test_cli_missing_submission(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["grade", "bitgrid", "/nonexistent/submission", "--sandbox", "process"])
    assert code == EXIT_BAD_INPUT
    assert "/nonexistent/submission: no such file or folder" in capsys.readouterr().err


def test_cli_unknown_exercise(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["grade", "no-such-exercise", ".", "--sandbox", "process"])
    assert code == EXIT_BAD_INPUT
    assert "no suite for exercise 'no-such-exercise'" in capsys.readouterr().err


def _toy_project(root: Path, tests: str) -> None:
    for folder in ("exercises/toy", "reference/toy", "fixtures/toy"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "exercises/toy/toy.py").write_text("")
    (root / "reference/toy/toy.py").write_text("def answer(n):\n    return n\n")
    (root / "fixtures/toy/suite.yaml").write_text("exercise: toy\nsubmit: [toy.py]\ntests:\n" + tests)


@pytest.mark.parametrize(
    ("tests", "expected"),
    [
        (
            "  - name: a\n    call: tooy.answer\n    cases: [[1]]\n",
            "tests.a: 'tooy.answer' names no submitted or given module (modules: toy)",
        ),
        (
            "  - name: a\n    transcript: {driver: toy, stdin: gone.txt, expected: a.out}\n",
            "gone.txt: input fixture of test 'a' does not exist",
        ),
        (
            "  - name: a\n    transcript: {driver: main, expected: a.out}\n",
            "tests.a.transcript.driver: 'main' is not a given file",
        ),
        (
            "  - name: a\n    interactive: {driver: main, referee: 'referees:game'}\n",
            "tests.a.interactive.driver: 'main' is not a given file",
        ),
        (
            "  - name: a\n    interactive: {driver: main, referee: 'referees:game'}\n",
            "tests.a.interactive.referee: referee 'referees:game': there is no ",
        ),
        (
            "  - name: a\n    call: toy.answer\n    cases_from: nowhere:cases\n",
            "generator 'nowhere:cases' should be MODULE:FUNCTION with ",
        ),
    ],
)
def test_verify_catches_a_suite_naming_what_does_not_exist(
    project: Path, tests: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _toy_project(project, tests)
    assert main(["verify", "toy", "--sandbox", "process"]) == 4
    err = capsys.readouterr().err
    assert f"error: {project / 'fixtures' / 'toy' / 'suite.yaml'}" in err and expected in err, err


CLASS_REFERENCE = """\
class Board:
    SIZE = 3

    def __init__(self):
        self.cells = [0] * 9

    def play(self, cell):
        self.cells[cell] = 1
        return True
"""


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        (
            "      - {call: toy.Board, let: b}\n      - {call: b.play, args: [0]}\n"
            "      - {call: toy.Board.plya, args: [{$ref: b}, 1]}\n",
            "suite.yaml:8: tests.a: 'toy.Board.plya': class Board of ",
        ),
        (
            "      - {call: toy.Board, let: b}\n      - {call: toy.Board.play, args: [{$ref: c}, 0]}\n",
            "suite.yaml:7: tests.a: {$ref: c} names no earlier `let` step",
        ),
    ],
)
def test_preflight_checks_methods_and_refs_with_the_line_of_the_step(
    project: Path, steps: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _toy_project(project, "  - name: a\n    steps:\n" + steps)
    (project / "reference/toy/toy.py").write_text(CLASS_REFERENCE)
    assert main(["verify", "toy", "--sandbox", "process"]) == 4
    err = capsys.readouterr().err
    assert expected in err and "stale" not in err and "Traceback" not in err, err


GENERATED = {
    "steps-as-dicts": (
        "cases.py",
        "def steps():\n    return [{'call': 'toy.answer', 'args': [1]}]\n",
        "steps_from: cases:steps",
        "step 0 is dict; build steps as grader.suite.schema.Step(...)",
    ),
    "case-not-a-list": (
        "cases.py",
        "def cases():\n    return [1, 2]\n",
        "call: toy.answer\n    cases_from: cases:cases",
        "case 0 is int, not a list of arguments",
    ),
    "json-malformed": (
        "visible_cases.json",
        "{not json",
        "call: toy.answer\n    cases_from: visible_cases.json:a",
        "cannot read generated cases",
    ),
    "json-invalid-step": (
        "visible_cases.json",
        '{"a": [{"cal": "toy.answer"}]}',
        "steps_from: visible_cases.json:a",
        "step 0 is invalid",
    ),
}


@pytest.mark.parametrize("case", sorted(GENERATED))
def test_generated_cases_are_checked_as_they_are_made(
    project: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name, text, source, expected = GENERATED[case]
    _toy_project(project, f"  - name: a\n    {source}\n")
    (project / "fixtures/toy" / name).write_text(text)
    assert main(["record", "toy"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert f"{project / 'fixtures' / 'toy' / 'suite.yaml'}: test 'a': " in err, err
    assert expected in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
