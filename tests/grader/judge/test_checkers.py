"""`checker: MODULE:FUNCTION`: a trusted function of the fixtures judges an answer in the grader."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from grader.judge.preflight import static_problems
from grader.judge.verdicts import TestResult, Verdict
from grader.suite.load import load_suite
from tests.conftest import Build

SUITE = """\
exercise: toy
submit: [toy.py]
tests:
  - name: best
    call: toy.best
    cases: [[[3, 7, 7, 1]], [[5, 5]], [[2]]]
    checker: checks:{function}
"""

CHECKS = """\
import os

PLAIN = (type(None), bool, int, float, str, list, dict)


def any_largest(case, answer):
    [values] = case
    if type(answer) is not int or not 0 <= answer < len(values):
        return "WA", f"{answer!r} is not an index of {values}"
    if values[answer] != max(values):
        return "WA", f"values[{answer}] = {values[answer]} is not the largest, {max(values)}"
    return "AC", ""


def raises(case, answer):
    raise KeyError("the author forgot a case")


def loops(case, answer):
    try:
        while True:
            pass
    except Exception:
        return "AC", "caught it"


def says_maybe(case, answer):
    return "maybe", "no idea"


def no_message(case, answer):
    return "AC", None


def where_am_i(case, answer):
    return "WA", f"pid {os.getpid()}"


def inspects(case, answer):
    def kinds(value, depth=0):
        assert type(value) in PLAIN, type(value)
        if type(value) is list:
            return max([depth, *(kinds(item, depth + 1) for item in value)])
        if type(value) is dict:
            return max([depth, *(kinds(item, depth + 1) for item in value.values())])
        return depth
    depth = kinds(answer)
    size = len(answer) if type(answer) is str else 0
    return "WA", f"plain, depth {depth}, {size} chars \\x1b[2J\\u202e" + "!" * 5000
"""

REFERENCE = "def best(values):\n    return values.index(max(values))\n"
LAST_OF_EQUALS = "def best(values):\n    return len(values) - 1 - values[::-1].index(max(values))\n"


def grade_with(grade_toy: Build, function: str, student: str, suite: str = SUITE) -> TestResult:
    return grade_toy(
        suite.format(function=function), REFERENCE, student, inputs={"checks.py": CHECKS}
    ).results[0]


def test_a_right_answer_other_than_the_references_is_accepted(grade_toy: Build) -> None:
    result = grade_with(grade_toy, "any_largest", LAST_OF_EQUALS)
    assert result.verdict is Verdict.AC, result.message


def test_a_wrong_answer_is_wa_with_the_checkers_message(grade_toy: Build) -> None:
    result = grade_with(grade_toy, "any_largest", "def best(values):\n    return 0\n")
    assert result.verdict is Verdict.WA
    assert result.message == "toy.best([3, 7, 7, 1]): values[0] = 3 is not the largest, 7"


def test_an_answer_that_is_not_an_index_is_the_checkers_wa(grade_toy: Build) -> None:
    result = grade_with(grade_toy, "any_largest", "def best(values):\n    return [1]\n")
    assert result.verdict is Verdict.WA
    assert "[1] is not an index of [3, 7, 7, 1]" in result.message


@pytest.mark.parametrize(
    ("function", "why"),
    [
        ("raises", "raised KeyError: 'the author forgot a case'"),
        ("says_maybe", "returned ('maybe', 'no idea'), not (verdict, message)"),
        ("no_message", "returned ('AC', None), not (verdict, message)"),
    ],
)
def test_a_checker_that_fails_is_je_naming_it(grade_toy: Build, function: str, why: str) -> None:
    result = grade_with(grade_toy, function, REFERENCE)
    assert result.verdict is Verdict.JE
    assert f"the checker checks:{function} {why}" in result.message
    assert "the grader's fault, not the submission's" in result.message
    if function == "raises":  # where, without the checker's hidden source lines
        assert result.details == "checks.py:16 in raises", result.details


def test_a_checker_that_hangs_is_je(grade_toy: Build, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("grader.judge.checkers.TIME_LIMIT_S", 0.3)
    result = grade_with(grade_toy, "loops", REFERENCE)
    assert result.verdict is Verdict.JE
    assert "the checker checks:loops ran for more than 0.3 s on one answer" in result.message


def test_the_checker_runs_in_the_grader_not_in_the_test(grade_toy: Build) -> None:
    result = grade_with(grade_toy, "where_am_i", REFERENCE)
    assert result.message.endswith(f"pid {os.getpid()}")


@pytest.mark.parametrize(
    ("student", "seen"),
    [
        ("def best(values):\n    return 'x\\x1b[2J' * 50_000\n", "plain, depth 0, 250000 chars"),
        (
            "def best(values):\n    nested = 1\n"
            "    for _ in range(90):\n        nested = [0, {'k': nested}]\n    return nested\n",
            "plain, depth 180, 0 chars",
        ),
        (
            "def best(values):\n    class Evil(str):\n        def __eq__(self, other):\n"
            "            return True\n    return {'a': Evil('b'), 'c': (1, 2.5, None)}\n",
            "plain, depth 2, 0 chars",
        ),
    ],
)
def test_a_hostile_answer_reaches_the_checker_as_plain_data(
    grade_toy: Build, student: str, seen: str
) -> None:
    result = grade_with(grade_toy, "inspects", student)
    assert result.verdict is Verdict.WA, result.message
    assert seen in result.message
    assert "\x1b" not in result.message and "\u202e" not in result.message
    assert "\\x1b[2J\\u202e" in result.message
    assert len(result.message) < 1000


def test_an_unplain_answer_is_wa_before_any_checker(grade_toy: Build) -> None:
    result = grade_with(grade_toy, "raises", "def best(values):\n    return object()\n")
    assert result.verdict is Verdict.WA
    assert "not plain data" in result.message


def test_beside_compare_the_recorded_answer_must_match_too(grade_toy: Build) -> None:
    beside = SUITE + "    compare: equal\n"
    assert grade_with(grade_toy, "any_largest", REFERENCE, beside).verdict is Verdict.AC
    result = grade_with(grade_toy, "any_largest", LAST_OF_EQUALS, beside)
    assert result.verdict is Verdict.WA
    assert "expected 1" in result.message


def _toy(project: Path, suite: str, checks: str | None) -> list[str]:
    for part in ("exercises", "reference", "fixtures"):
        (project / part / "toy").mkdir(parents=True, exist_ok=True)
    (project / "exercises" / "toy" / "toy.py").write_text(
        "def best(values):\n    raise NotImplementedError\n"
    )
    (project / "reference" / "toy" / "toy.py").write_text(REFERENCE)
    (project / "fixtures" / "toy" / "suite.yaml").write_text(suite)
    if checks is not None:
        (project / "fixtures" / "toy" / "checks.py").write_text(checks)
    return static_problems(load_suite("toy")).messages()


@pytest.mark.parametrize(
    ("checks", "problem"),
    [
        (None, "there is no "),
        ("def other(case, answer):\n    return 'AC', ''\n", "has no function 'any_largest'"),
        ("raise ImportError('broken')\n", "checks.py does not load: ImportError: broken"),
    ],
)
def test_a_missing_checker_is_one_located_error(project: Path, checks: str | None, problem: str) -> None:
    messages = _toy(project, SUITE.format(function="any_largest"), checks)
    assert len(messages) == 1, messages
    suite = project / "fixtures" / "toy" / "suite.yaml"
    assert messages[0].startswith(f"{suite}:7: tests.best.checker: checker 'checks:any_largest': ")
    assert problem in messages[0]


def test_a_checker_that_is_not_module_function_is_refused_at_load(project: Path) -> None:
    from grader.suite.model import SuiteError

    with pytest.raises(SuiteError, match=r"suite.yaml:7: .*checker.*MODULE:FUNCTION"):
        _toy(project, SUITE.format(function="any largest"), CHECKS)


def test_a_checker_step_in_steps_is_located_at_its_step(project: Path) -> None:
    suite = textwrap.dedent("""\
        exercise: toy
        submit: [toy.py]
        tests:
          - name: best
            steps:
              - call: toy.best
                args: [[1, 2]]
              - call: toy.best
                args: [[2, 1]]
                checker: checks:nowhere
        """)
    messages = _toy(project, suite, CHECKS)
    assert len(messages) == 1, messages
    assert ":10: tests.best.steps.1.checker: checker 'checks:nowhere': " in messages[0]
    assert "has no function 'nowhere'" in messages[0]


def test_a_handout_keeps_its_checkers_out_and_says_so(tmp_path: Path) -> None:
    import yaml

    from grader.commands.handout import CHECKED_HERE, make_handout

    make_handout(load_suite("alphabeta"), tmp_path / "handout")
    fixtures = tmp_path / "handout" / "fixtures" / "alphabeta"
    assert not (fixtures / "checkers.py").exists()
    suite = yaml.safe_load((fixtures / "suite.yaml").read_text())
    bmove = next(test for test in suite["tests"] if test["name"] == "bmove")
    assert "checker" not in bmove and bmove["description"].endswith(CHECKED_HERE)
    assert "checkers:" not in (fixtures / "suite.yaml").read_text()


def test_a_changed_checker_changes_the_suites_fingerprint(project: Path) -> None:
    from grader.batch.identity import suite_fingerprint

    _toy(project, SUITE.format(function="any_largest"), CHECKS)
    before = suite_fingerprint(load_suite("toy"))
    (project / "fixtures" / "toy" / "checks.py").write_text(CHECKS + "\n# judged otherwise\n")
    assert suite_fingerprint(load_suite("toy")) != before  # a resumed batch regrades


def test_an_answer_nested_too_deeply_never_reaches_the_checker(grade_toy: Build) -> None:
    student = (
        "def best(values):\n    nested = 1\n    for _ in range(5000):\n"
        "        nested = [nested]\n    return nested\n"
    )
    result = grade_with(grade_toy, "inspects", student)
    assert result.verdict in (Verdict.WA, Verdict.RTE), result.message
    assert "plain, depth" not in result.message


STEPS_SUITE = """\
exercise: toy
submit: [toy.py]
tests:
  - name: steps
    steps:
      - let: values
        call: toy.numbers
      - call: toy.best
        args: [[1, 9, 9]]
        checker: checks:any_largest
      - call: toy.numbers
"""


@pytest.mark.parametrize(("numbers", "verdict"), [("[3, 7, 7, 1]", Verdict.AC), ("[3, 7]", Verdict.WA)])
def test_a_step_checker_sits_beside_recorded_steps(grade_toy: Build, numbers: str, verdict: Verdict) -> None:
    reference = REFERENCE + "\n\ndef numbers():\n    return [3, 7, 7, 1]\n"
    student = LAST_OF_EQUALS + f"\n\ndef numbers():\n    return {numbers}\n"
    report = grade_toy(STEPS_SUITE, reference, student, inputs={"checks.py": CHECKS})
    result = report.results[0]
    assert result.verdict is verdict, result.message
    if verdict is Verdict.WA:
        assert result.message == "toy.numbers() returned [3, 7], expected [3, 7, 7, 1]"
