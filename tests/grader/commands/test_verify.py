"""Every exercise's suite verifies: reference full marks, stubs NI, mutants their verdicts."""

from __future__ import annotations

import dataclasses
import difflib
from pathlib import Path
from typing import Any

import pytest

from grader.cli import main
from grader.commands import verify as verify_command
from grader.commands.verify import by_tests_line, verify
from grader.judge.grade import GradeReport
from grader.judge.preflight import static_problems
from grader.judge.verdicts import Verdict
from grader.suite.load import load_suite
from tests.conftest import Build
from tests.grader.judge.test_reference_helpers import SUITE as HELPED_SUITE
from tests.support import SUITE_NAMES


@pytest.mark.slow
@pytest.mark.bwrap
@pytest.mark.timeout(1800)  # a safety net: under heavy load ultimate takes 10+ minutes
@pytest.mark.parametrize("exercise", SUITE_NAMES)
def test_suite_verifies(exercise: str) -> None:
    outcome = verify(load_suite(exercise))
    assert outcome.ok, "\n".join(outcome.problems.lines())


def _write_mutant(project: Path, verdict: str, name: str, header: str, mutated: str) -> None:
    original = (project / "reference" / "toy" / "toy.py").read_text()
    diff = difflib.unified_diff(
        original.splitlines(keepends=True), mutated.splitlines(keepends=True), "a/toy.py", "b/toy.py"
    )
    folder = project / "fixtures" / "toy" / "mutants" / verdict
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.diff").write_text(header + "".join(diff))


def test_verify_proves_a_student_like_mutant_loses_only_its_own_question(
    grade_toy: Build, project: Path
) -> None:
    grade_toy(HELPED_SUITE, HELPED_REFERENCE, HELPED_REFERENCE)
    (project / "exercises" / "toy" / "toy.py").write_text(
        "def mask(i):\n    raise NotImplementedError\n\n\ndef read(bits, i):\n    raise NotImplementedError\n"
    )
    wrong_mask = HELPED_REFERENCE.replace("1 << i", "1 << (i + 1)")
    _write_mutant(project, "WA", "mask-off-by-one", "mask shifts one too far.\ntests: mask\n", wrong_mask)
    outcome = verify(load_suite("toy"), repeats=1, sandbox="process")
    assert outcome.ok, outcome.problems.lines()
    assert outcome.lost == {"WA/mask-off-by-one": ["mask"]}
    assert by_tests_line(outcome) == ["mask: WA/mask-off-by-one (only its own)"]

    suite = load_suite("toy").path
    suite.write_text(HELPED_SUITE.replace("    reference_helpers: {toy.mask: mask}\n", ""))
    outcome = verify(load_suite("toy"), repeats=1, sandbox="process")
    assert "mutant WA/mask-off-by-one: test read got WA, expected AC" in outcome.problems.messages()
    assert by_tests_line(outcome) == ["mask: WA/mask-off-by-one (also loses read)"]


QUESTIONED_SUITE = (
    HELPED_SUITE.replace(
        "tests:\n", "questions: [{id: q-mask, title: mask}, {id: q-read, title: read}]\ntests:\n"
    )
    .replace("    call: toy.mask\n", "    question: q-mask\n    call: toy.mask\n")
    .replace("    call: toy.read\n", "    question: q-read\n    call: toy.read\n")
    .replace("{toy.mask: mask}", "{toy.mask: q-mask}")
)


def test_verify_reports_each_mutant_by_its_question(grade_toy: Build, project: Path) -> None:
    grade_toy(QUESTIONED_SUITE, HELPED_REFERENCE, HELPED_REFERENCE)
    (project / "exercises" / "toy" / "toy.py").write_text(
        "def mask(i):\n    raise NotImplementedError\n\n\ndef read(bits, i):\n    raise NotImplementedError\n"
    )
    _write_mutant(
        project,
        "WA",
        "mask-off-by-one",
        "mask shifts one too far.\nquestion: q-mask\n",
        HELPED_REFERENCE.replace("1 << i", "1 << (i + 1)"),
    )
    outcome = verify(load_suite("toy"), repeats=1, sandbox="process")
    assert outcome.ok, outcome.problems.lines()
    assert [loss.describe() for loss in outcome.losses] == ["WA/mask-off-by-one (only its own)"]

    load_suite("toy").path.write_text(
        QUESTIONED_SUITE.replace("    reference_helpers: {toy.mask: q-mask}\n", "")
    )
    outcome = verify(load_suite("toy"), repeats=1, sandbox="process")
    assert (
        "mutant WA/mask-off-by-one (question q-mask) also loses question q-read: read"
        in outcome.problems.messages()
    )
    assert outcome.losses[0].describe() == "WA/mask-off-by-one (ALSO LOSES q-read: read)"


def test_verify_names_a_helper_the_reference_does_not_define(grade_toy: Build, project: Path) -> None:
    grade_toy(HELPED_SUITE, HELPED_REFERENCE, HELPED_REFERENCE)
    (project / "reference" / "toy" / "toy.py").write_text(
        HELPED_REFERENCE.replace("def mask(i: int) -> int:\n    return 1 << i\n", "mask = None\n")
    )
    problems = static_problems(load_suite("toy"))
    assert any("defines no top-level function 'mask'" in p for p in problems.messages()), problems.lines()


def test_verify_prints_why_a_test_got_je(
    grade_toy: Build, project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A JE under load is diagnosed from verify's output alone: each JE comes with its reason."""
    grade_toy(HELPED_SUITE, HELPED_REFERENCE, HELPED_REFERENCE)
    (project / "exercises" / "toy" / "toy.py").write_text(
        "def mask(i):\n    raise NotImplementedError\n\n\ndef read(bits, i):\n    raise NotImplementedError\n"
    )
    _write_mutant(
        project,
        "WA",
        "mask-off-by-one",
        "mask shifts one too far.\ntests: mask\n",
        HELPED_REFERENCE.replace("1 << i", "1 << (i + 1)"),
    )
    real_grade = verify_command.grade

    def grade_with_a_stall(*args: Any, **kwargs: Any) -> GradeReport:
        report = real_grade(*args, **kwargs)
        read = next(r for r in report.results if r.name == "read")
        read.verdict, read.message = Verdict.JE, "the fork server stalled [for 10 s]"
        return report

    monkeypatch.setattr(verify_command, "grade", grade_with_a_stall)
    assert main(["verify", "toy", "--sandbox", "process"]) == 4
    printed = capsys.readouterr()
    out, err = printed.out, printed.err
    reason = "read got JE (the fork server stalled [for 10 s])"
    for who in ("reference", "stubs", "mutant WA/mask-off-by-one"):
        assert f"  {who}: {reason}" in out, out
    assert "error: the reference gets JE on read: the fork server stalled [for 10 s]" in err
    assert f"error: mutant WA/mask-off-by-one: test {reason}, expected AC" in err, err
    assert "toy: not verified: 3 error(s), 0 warning(s)" in err, err


def test_verify_grades_a_whole_solution_alone(grade_toy: Build, project: Path) -> None:
    """fixtures/NAME/solutions/SOLUTION/ must get AC everywhere, graded without the reference."""
    grade_toy(HELPED_SUITE, HELPED_REFERENCE, HELPED_REFERENCE)
    (project / "exercises" / "toy" / "toy.py").write_text(
        "def mask(i):\n    raise NotImplementedError\n\n\ndef read(bits, i):\n    raise NotImplementedError\n"
    )
    folder = project / "fixtures" / "toy" / "solutions" / "powers"
    folder.mkdir(parents=True)
    (folder / "README.md").write_text("Right, with powers of two instead of shifts.\n")
    (folder / "toy.py").write_text(HELPED_REFERENCE.replace("1 << i", "2 ** i"))
    outcome = verify(load_suite("toy"), repeats=1, sandbox="process")
    assert outcome.ok, outcome.problems.lines()
    assert outcome.checks == ["2 tests, 1 mutants"]

    (folder / "toy.py").write_text(HELPED_REFERENCE.replace("1 << i", "2 ** (i + 1)"))
    outcome = verify(load_suite("toy"), repeats=1, sandbox="process")
    assert "accepted submission AC/powers gets WA on mask" in outcome.problems.messages()

    (folder / "toy.py").rename(folder / "toy_module.py")  # not the file students submit
    outcome = verify(load_suite("toy"), repeats=1, sandbox="process")
    assert any(
        message.startswith("accepted submission AC/powers gets CE on ")
        for message in outcome.problems.messages()
    ), outcome.problems.lines()


HELPED_REFERENCE = """\
def mask(i: int) -> int:
    return 1 << i


def read(bits: int, i: int) -> bool:
    return bits & mask(i) != 0
"""


@pytest.mark.parametrize("tight_twice", [False, True])
def test_a_plain_solution_under_the_margin_is_timed_again(
    grade_toy: Build, project: Path, monkeypatch: pytest.MonkeyPatch, tight_twice: bool
) -> None:
    """A busy machine inflates CPU time: a plain solution's test found under the 3x margin is graded
    again, and only when its lesser time is still under the margin does verify complain."""
    grade_toy(HELPED_SUITE, HELPED_REFERENCE, HELPED_REFERENCE)
    (project / "exercises" / "toy" / "toy.py").write_text(
        "def mask(i):\n    raise NotImplementedError\n\n\ndef read(bits, i):\n    raise NotImplementedError\n"
    )
    folder = project / "fixtures" / "toy" / "solutions" / "plain-student"
    folder.mkdir(parents=True)
    (folder / "README.md").write_text("Right, written plainly.\n")
    (folder / "toy.py").write_text(HELPED_REFERENCE)
    loaded = load_suite("toy")
    real_grade = verify_command.grade
    asked_again: list[list[str] | None] = []

    def busy_grade(loaded: Any, source: Path, *args: Any, **kwargs: Any) -> GradeReport:
        report = real_grade(loaded, source, *args, **kwargs)
        if source in (loaded.exercise.reference, loaded.exercise.stubs):
            return report
        names = kwargs.get("names")
        if names is not None:
            asked_again.append(names)
            if not tight_twice:
                return report
        for result in report.results:
            if result.name == "mask":  # half its limit: under the 3x margin
                result.usage = dataclasses.replace(result.usage, cpu_s=result.limits["cpu_s"] / 2)
        return report

    monkeypatch.setattr(verify_command, "grade", busy_grade)
    outcome = verify(loaded, repeats=1, sandbox="process")
    assert asked_again == [["mask"]]
    tight = [message for message in outcome.problems.messages() if "only 2.0x" in message]
    if tight_twice:
        assert tight and tight[0].startswith("plain solution AC/plain-student: test mask used")
    else:
        assert outcome.ok, outcome.problems.lines()
