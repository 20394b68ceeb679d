"""Reference helpers: a wrong helper costs only its own question, and the feedback says so."""

from __future__ import annotations

import importlib
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.cluster.bundle import bundle_files
from grader.commands.handout import visible_suite
from grader.judge.grade import grade
from grader.judge.helpers import helper_code
from grader.judge.verdicts import Verdict
from grader.report.reports import results_json
from grader.run.box.protocol import HelperCode
from grader.run.box.swap import install_helpers
from grader.suite.load import load_suite
from grader.suite.schema import Suite
from tests.conftest import Build

SUITE = """\
exercise: toy
submit: [toy.py]
tests:
  - name: mask
    call: toy.mask
    cases: [[0], [3]]
  - name: read
    call: toy.read
    cases: [[5, 0], [5, 1], [5, 2]]
    reference_helpers: {toy.mask: mask}
"""

REFERENCE = """\
from functools import lru_cache

SECRET = "the reference's other code"


def secret() -> str:
    return SECRET


@lru_cache(maxsize=None)
def mask(i: int) -> int:
    return 1 << i


def read(bits: int, i: int) -> bool:
    return bits & mask(i) != 0
"""

WRONG_MASK = """\
def mask(i):
    return 1 << (i + 1)


def read(bits, i):
    return bits & mask(i) != 0
"""


def verdicts(report: object) -> dict[str, Verdict]:
    return {r.name: r.verdict for r in report.results}  # type: ignore[attr-defined]


def test_a_wrong_helper_costs_only_its_own_question(grade_toy: Build) -> None:
    report = grade_toy(SUITE, REFERENCE, WRONG_MASK)
    assert verdicts(report) == {"mask": Verdict.WA, "read": Verdict.AC}
    read = report.results[1]
    assert read.points == read.max_points
    assert "with your own it gets WA: toy.read(5, 0) returned False, expected True" in read.message
    assert "Fix question 'mask' first" in read.message
    assert "Fix question 'mask' first" in results_json(report)["tests"][1]["output"]


def test_the_question_under_test_still_fails_on_its_own(grade_toy: Build) -> None:
    wrong_read = WRONG_MASK.replace("1 << (i + 1)", "1 << i").replace("!= 0", "== 0")
    report = grade_toy(SUITE, REFERENCE, wrong_read)
    assert verdicts(report) == {"mask": Verdict.AC, "read": Verdict.WA}
    assert "Fix question" not in report.results[1].message


def test_a_read_that_does_not_need_the_helper_gets_no_advice(grade_toy: Build) -> None:
    own_shift = WRONG_MASK.replace("bits & mask(i) != 0", "bits >> i & 1 == 1")
    report = grade_toy(SUITE, REFERENCE, own_shift)
    assert verdicts(report) == {"mask": Verdict.WA, "read": Verdict.AC}
    assert report.results[1].message == ""


def test_without_the_reference_the_student_helpers_run_and_the_failure_says_why(
    grade_toy: Build, project: Path
) -> None:
    grade_toy(SUITE, REFERENCE, WRONG_MASK)
    shutil.rmtree(project / "reference")  # as in a student's handout
    report = grade(load_suite("toy"), project / "student", sandbox="process")
    assert verdicts(report) == {"mask": Verdict.WA, "read": Verdict.WA}
    assert (
        "This test uses your toy.mask, and question 'mask' fails: fix that first" in report.results[1].message
    )


def test_only_the_named_function_of_the_reference_enters_the_test(grade_toy: Build) -> None:
    snoop = (
        WRONG_MASK
        + """

def code_names():
    import gc
    return sorted({o.__code__.co_name for o in gc.get_objects()
                   if callable(o) and hasattr(o, "__code__")
                   and o.__code__.co_filename.startswith("<reference")})
"""
    )
    suite = (
        SUITE + "  - name: snoop\n    call: toy.code_names\n    cases: [[]]\n"
        "    reference_helpers: {toy.mask: mask}\n"
    )
    reference = REFERENCE + "\n\ndef code_names():\n    return ['mask']\n"
    report = grade_toy(suite, reference, snoop)
    assert verdicts(report)["snoop"] is Verdict.AC  # it saw the reference's mask and nothing else
    code = helper_code(load_suite("toy"), load_suite("toy").suite.tests[2])
    assert [h["name"] for h in code] == ["mask"]
    assert "SECRET" not in code[0]["source"] and "secret" not in code[0]["imports"]


def test_a_submission_that_does_not_import_is_ce_not_a_grader_error(grade_toy: Build) -> None:
    report = grade_toy(SUITE, REFERENCE, "import no_such_module\n")
    assert verdicts(report) == {"mask": Verdict.CE, "read": Verdict.CE}


@pytest.fixture
def modules(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for name in ("helped", "user"):
        sys.modules.pop(name, None)


def test_install_rebinds_other_modules_and_keeps_the_students_names(modules: Path) -> None:
    (modules / "helped.py").write_text("def lru_cache(x):\n    return 'mine'\n\ndef mask(i):\n    return 0\n")
    (modules / "user.py").write_text("from helped import mask\n")
    importlib.import_module("user")
    reference = HelperCode(
        module="helped",
        name="mask",
        imports="from functools import lru_cache, reduce\n",
        source="def mask(i: Bits) -> int:\n    return 1 << i\n",
    )
    install_helpers([reference], str(modules))
    helped, user = sys.modules["helped"], sys.modules["user"]
    assert helped.mask(3) == 8 and user.mask(3) == 8  # the alias in the other module too
    assert helped.lru_cache(1) == "mine"  # the student's own name is kept
    scope = helped.mask.__globals__  # the reference's namespace: a copy of the student's module
    assert scope["lru_cache"] is helped.lru_cache
    assert scope["reduce"].__module__ == "_functools"  # a missing one is supplied
    assert not hasattr(helped, "reduce")  # and the student's module is left as it was


def test_a_bundle_carries_the_reference_only_when_a_test_names_helpers(grade_toy: Build) -> None:
    grade_toy(SUITE, REFERENCE, WRONG_MASK)
    _, files = bundle_files(load_suite("toy"))
    assert "reference/toy/toy.py" in files
    suite = load_suite("toy").path
    suite.write_text(SUITE.replace("    reference_helpers: {toy.mask: mask}\n", ""))
    _, files = bundle_files(load_suite("toy"))
    assert not [name for name in files if name.startswith("reference/")]


def test_a_handout_names_only_visible_helper_questions(grade_toy: Build) -> None:
    grade_toy(SUITE, REFERENCE, WRONG_MASK)
    visible = visible_suite(load_suite("toy"), {})
    assert visible["tests"][1]["reference_helpers"] == {"toy.mask": "mask"}
    hidden_mask = SUITE.replace("    cases: [[0], [3]]\n", "    cases: [[0], [3]]\n    visibility: hidden\n")
    load_suite("toy").path.write_text(hidden_mask)
    visible = visible_suite(load_suite("toy"), {})
    assert [t["name"] for t in visible["tests"]] == ["read"]
    assert "reference_helpers" not in visible["tests"][0]
    Suite.model_validate(visible)  # the handout's suite loads
