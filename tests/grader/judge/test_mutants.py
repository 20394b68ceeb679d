"""Known submissions, as patches of the reference or whole solutions: read, applied, and right
variants graded.

Right variants get full marks: alphabeta's `bval-variants` (mutants/AC/, a diff) evaluates with
other (equivalent) alpha-beta conventions; every exercise's `plain-student` (solutions/, whole
files) is written the plain way the stubs suggest, and shows that the time limits leave room for
it (bench/plain_limits.py compares each test's CPU with its limit).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.exercise import Exercise
from grader.judge.grade import grade
from grader.judge.mutants import applied, mutants_of
from grader.judge.verdicts import Verdict
from grader.suite.load import load_suite
from grader.suite.model import SuiteError

DIFF = "--- a/toy.py\n+++ b/toy.py\n@@ -1,2 +1,2 @@\n def answer(n):\n-    return n\n+    return n + 1\n"


def _toy(project: Path, verdict: str, text: str) -> Exercise:
    exercise = Exercise.named("toy", project)
    exercise.reference.mkdir(parents=True)
    (exercise.reference / "toy.py").write_text("def answer(n):\n    return n\n")
    (exercise.mutants / verdict).mkdir(parents=True)
    (exercise.mutants / verdict / "plus-one.diff").write_text(text)
    return exercise


def test_a_mutant_is_its_reference_patched(project: Path) -> None:
    exercise = _toy(project, "WA", "answer is one too many.\ntests: call\n" + DIFF)
    (mutant,) = mutants_of(exercise, {"call", "other"})
    assert (mutant.name, mutant.summary, mutant.failing_tests) == (
        "WA/plus-one",
        "answer is one too many.",
        ["call"],
    )
    with applied(mutant, exercise.reference) as folder:
        assert (folder / "toy.py").read_text() == "def answer(n):\n    return n + 1\n"
    assert (exercise.reference / "toy.py").read_text() == "def answer(n):\n    return n\n"


@pytest.mark.parametrize(
    ("verdict", "text", "problem"),
    [
        ("WA", DIFF, "the first line must say what is wrong"),
        ("WA", "tests: call\n" + DIFF, "the first line must say what is wrong"),
        ("WA", "Off by one.\n", "no unified diff"),
        ("WA", "Off by one.\ntests: nosuch\n" + DIFF, "no test named nosuch"),
        ("WRONG", "Off by one.\n" + DIFF, "'WRONG' is not a verdict"),
    ],
)
def test_a_malformed_mutant_is_one_line_naming_its_file(
    project: Path, verdict: str, text: str, problem: str
) -> None:
    exercise = _toy(project, verdict, text)
    with pytest.raises(SuiteError, match=problem) as raised:
        mutants_of(exercise, {"call"})
    assert str(exercise.mutants / verdict) in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_mutant_that_does_not_apply_says_so(project: Path) -> None:
    exercise = _toy(project, "WA", "Off by one.\n" + DIFF.replace("return n\n", "return 0\n"))
    (mutant,) = mutants_of(exercise, {"call"})
    with pytest.raises(SuiteError, match="does not apply"), applied(mutant, exercise.reference):
        pass


def test_a_mutant_cannot_patch_outside_the_reference(project: Path) -> None:
    hostile = DIFF.replace("a/toy.py", "a/../../outside.py").replace("b/toy.py", "b/../../outside.py")
    exercise = _toy(project, "WA", "Escapes.\n" + hostile)
    (mutant,) = mutants_of(exercise, {"call"})
    with pytest.raises(SuiteError), applied(mutant, exercise.reference):
        pass
    assert not (project / "outside.py").exists()


def _solution(project: Path, files: dict[str, str]) -> Exercise:
    exercise = _toy(project, "WA", "answer is one too many.\n" + DIFF)
    folder = exercise.solutions / "plain"
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return exercise


def test_a_solution_is_a_whole_folder_of_files(project: Path) -> None:
    exercise = _solution(
        project,
        {"README.md": "Right, written plainly.\nMore.\n", "toy.py": "def answer(n):\n    return 0 + n\n"},
    )
    wrong, plain = mutants_of(exercise, {"call"})
    assert (wrong.name, wrong.whole, plain.name, plain.whole) == ("WA/plus-one", False, "AC/plain", True)
    assert (plain.summary, plain.files, plain.verdict) == ("Right, written plainly.", ["toy.py"], Verdict.AC)
    with applied(plain, exercise.reference) as folder:
        assert sorted(p.name for p in folder.iterdir()) == ["toy.py"]
        assert (folder / "toy.py").read_text() == "def answer(n):\n    return 0 + n\n"


@pytest.mark.parametrize(
    ("files", "problem"),
    [
        ({"toy.py": "def answer(n):\n    return n\n"}, "a solution needs a README.md"),
        ({"README.md": "\n", "toy.py": "x = 1\n"}, "the first line must say how this solution differs"),
        ({"README.md": "Right.\n"}, "a solution holds the files a student submits; none here"),
    ],
)
def test_a_malformed_solution_is_one_line_naming_its_folder(
    project: Path, files: dict[str, str], problem: str
) -> None:
    exercise = _solution(project, files)
    with pytest.raises(SuiteError, match=problem) as raised:
        mutants_of(exercise, {"call"})
    assert str(exercise.solutions / "plain") in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_solution_and_an_ac_diff_of_one_name_are_refused(project: Path) -> None:
    exercise = _toy(project, "AC", "Right, the same.\n" + DIFF.replace("n + 1", "n + 0"))
    (exercise.mutants / "AC" / "plus-one.diff").rename(exercise.mutants / "AC" / "plain.diff")
    folder = exercise.solutions / "plain"
    folder.mkdir(parents=True)
    (folder / "README.md").write_text("Right.\n")
    (folder / "toy.py").write_text("def answer(n):\n    return n\n")
    with pytest.raises(SuiteError, match=r"AC/plain is also mutants/AC/plain\.diff"):
        mutants_of(exercise, {"call"})


def _full_marks(exercise: str, name: str) -> None:
    loaded = load_suite(exercise)
    (mutant,) = [m for m in mutants_of(loaded.exercise) if m.name == f"AC/{name}"]
    with applied(mutant, loaded.exercise.reference) as folder:
        report = grade(loaded, folder, overlay=loaded.exercise.reference, sandbox="process")
    verdicts = {result.name: result.verdict for result in report.results}
    assert set(verdicts.values()) == {Verdict.AC}, verdicts
    assert report.score == loaded.suite.total_points


def test_alphabeta_variants_get_full_marks() -> None:
    _full_marks("alphabeta", "bval-variants")


@pytest.mark.parametrize("exercise", ["alphabeta", "bitgrid"])
def test_plain_student_gets_full_marks(exercise: str) -> None:
    _full_marks(exercise, "plain-student")


# The heavy suites' plain solutions (gametree ~24 s, boardgame ~6 s, weighted ~8 s, ultimate ~140 s
# of CPU) are graded once per test run, by `grader verify` in tests/grader/commands/test_verify.py,
# which fails when a known right solution loses a point.
