"""What a failure says: the call or driver run that went over a limit, the driver's arguments and
stdin of a wrong transcript, 'returned None' rather than 'raised', where NotImplementedError came
from."""

from __future__ import annotations

import json

from grader.judge.verdicts import Verdict
from grader.report.reports import junit_xml, results_json
from tests.conftest import Build

REFERENCE = """\
import helper


class Record:
    score = 3


def quick() -> int:
    return 1


def slow(n: int) -> int:
    return n


def find(key: str) -> Record:
    return Record()


def uses_helper() -> int:
    return helper.twice(2)
"""

GIVEN_HELPER = {"helper.py": "def twice(n):\n    return 2 * n\n"}


def test_a_time_limit_names_the_call_that_ran_too_long(grade_toy: Build) -> None:
    suite = """\
    exercise: toy
    submit: [toy.py]
    given: [helper.py]
    limits: {cpu_s: 1}
    tests:
      - name: calls
        steps:
          - {call: toy.quick}
          - {call: toy.slow, args: [5]}
          - {call: toy.quick}
    """
    endless = REFERENCE.replace("    return n\n", "    while True:\n        n += 1\n")
    report = grade_toy(suite, REFERENCE, endless, given=GIVEN_HELPER)
    result = report.results[0]
    assert result.verdict is Verdict.TLE
    assert result.message.endswith("while running toy.slow(5)"), result.message


DRIVER = {
    "play.py": "import sys\nimport toy\n\nprint(sys.stdin.read().strip(), toy.slow(int(sys.argv[1])))\n",
    **GIVEN_HELPER,
}
TRANSCRIPT_SUITE = """\
exercise: toy
submit: [toy.py]
given: [play.py, helper.py]
limits: {cpu_s: 1}
tests:
  - name: game
    transcript: {driver: play, args: ["7"], stdin: moves.txt, expected: game.out.txt}
"""


def test_a_time_limit_names_the_driver_run(grade_toy: Build) -> None:
    endless = REFERENCE.replace("    return n\n", "    while True:\n        n += 1\n")
    report = grade_toy(TRANSCRIPT_SUITE, REFERENCE, endless, given=DRIVER, inputs={"moves.txt": "a b\n"})
    result = report.results[0]
    assert result.verdict is Verdict.TLE
    assert result.message.endswith("while running play 7 < moves.txt"), result.message


def test_a_wrong_transcript_names_the_driver_its_arguments_and_stdin(grade_toy: Build) -> None:
    off_by_one = REFERENCE.replace("    return n\n", "    return n + 1\n")
    report = grade_toy(TRANSCRIPT_SUITE, REFERENCE, off_by_one, given=DRIVER, inputs={"moves.txt": "a b\n"})
    result = report.results[0]
    assert result.verdict is Verdict.WA
    assert result.message.startswith("play 7 < moves.txt: the output differs"), result.message


def test_returning_none_is_a_wrong_answer_not_a_raise(grade_toy: Build) -> None:
    suite = """\
    exercise: toy
    submit: [toy.py]
    given: [helper.py]
    tests:
      - name: attrs
        steps:
          - {call: toy.find, args: [k], show: attrs, attrs: [score]}
    """
    returns_none = REFERENCE.replace("    return Record()\n", "    return None\n")
    report = grade_toy(suite, REFERENCE, returns_none, given=GIVEN_HELPER)
    result = report.results[0]
    assert result.verdict is Verdict.WA
    assert "toy.find('k') returned None, which has no attribute 'score'" in result.message
    assert "raised" not in result.message


def test_not_implemented_names_the_function_and_file_that_raised(grade_toy: Build) -> None:
    suite = """\
    exercise: toy
    submit: [toy.py]
    given: [helper.py]
    tests:
      - name: uses
        call: toy.uses_helper
        cases: [[]]
    """
    unfinished = REFERENCE.replace(
        "    return helper.twice(2)\n",
        "    return _table_lookup()\n\n\ndef _table_lookup():\n    raise NotImplementedError\n",
    )
    report = grade_toy(suite, REFERENCE, unfinished, given=GIVEN_HELPER)
    result = report.results[0]
    assert result.verdict is Verdict.NI
    assert result.message == (
        "toy.uses_helper(): not implemented yet (toy.py, in _table_lookup raises NotImplementedError)"
    ), result.message


def test_a_huge_exception_type_name_is_cut_in_every_report(grade_toy: Build) -> None:
    suite = """\
    exercise: toy
    submit: [toy.py]
    given: [helper.py]
    tests:
      - name: quick
        call: toy.quick
        cases: [[]]
    """
    raising = REFERENCE.replace(
        "    return 1\n", "    raise type('E' * 1_000_000, (Exception,), {})('boom')\n"
    )
    report = grade_toy(suite, REFERENCE, raising, given=GIVEN_HELPER)
    result = report.results[0]
    assert result.verdict is Verdict.RTE
    assert "E" * 200 + "...: boom" in result.message, result.message[:300]
    assert len(json.dumps(results_json(report))) < 30_000
    assert len(junit_xml(report)) < 30_000


def test_a_number_too_large_for_approx_is_a_wrong_answer(grade_toy: Build) -> None:
    suite = """\
    exercise: toy
    submit: [toy.py]
    given: [helper.py]
    tests:
      - name: quick
        call: toy.quick
        compare: approx
        cases: [[]]
    """
    huge = REFERENCE.replace("    return 1\n", "    return 10 ** 400\n", 1)
    report = grade_toy(suite, REFERENCE, huge, given=GIVEN_HELPER)
    result = report.results[0]
    assert result.verdict is Verdict.WA, result.message
    assert result.message.startswith("toy.quick() returned 1000"), result.message
    assert result.message.endswith(", expected 1"), result.message
