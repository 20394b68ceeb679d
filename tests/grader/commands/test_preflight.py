"""An author's mistake stops every command before it grades, hands out or packs anything: one
`error:` line naming the file and what is wrong, exit 3; never a student's verdict, never a JE
with exit 0. A JE itself exits 1 wherever it happens."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grader.cli import main
from grader.commands import EXIT_BAD_INPUT, EXIT_GRADER_FAILED
from grader.judge.grade import GradeReport
from grader.judge.verdicts import Verdict
from tests.toy_class import RIGHT, add, make_toy

TYPO = "    call: toy.double\n    cases: [[1], [2], [5]]"


def _typo_in_a_function_name(project: Path) -> str:
    suite = project / "fixtures" / "toy" / "suite.yaml"
    suite.write_text(suite.read_text().replace(TYPO, TYPO.replace("toy.double", "toy.doubel")))
    main(["record", "toy"])  # records what it can: the typo's test is the reference's error
    line = suite.read_text().splitlines().index("    call: toy.doubel") + 1
    return (
        f"{suite}:{line}: tests.double: 'toy.doubel': "
        f"{project / 'reference' / 'toy' / 'toy.py'} defines no top-level 'doubel'"
    )


def _an_input_fixture_gone(project: Path) -> str:
    (project / "reference" / "toy" / "toy.py").write_text(
        RIGHT + "\n\ndef size(path):\n    with open(path) as f:\n        return len(f.read())\n"
    )
    (project / "exercises" / "toy" / "toy.py").write_text(
        "def double(n):\n    raise NotImplementedError\n\n\ndef size(path):\n    raise NotImplementedError\n"
    )
    fixture = project / "fixtures" / "toy" / "words.txt"
    fixture.write_text("three words here\n")
    suite = project / "fixtures" / "toy" / "suite.yaml"
    suite.write_text(
        suite.read_text() + "  - name: size\n    call: toy.size\n    cases: [[{fixture: words.txt}]]\n"
    )
    assert main(["record", "toy"]) == 0
    fixture.unlink()
    return f"error: {fixture}: input fixture of test 'size' does not exist"


def _a_given_file_gone(project: Path) -> str:
    given = project / "exercises" / "toy" / "helper.py"
    given.unlink()
    return f"error: {given}: the given file named in the suite does not exist"


MISTAKES: dict[str, Callable[[Path], str]] = {
    "typo": _typo_in_a_function_name,
    "fixture": _an_input_fixture_gone,
    "given": _a_given_file_gone,
}


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
@pytest.mark.parametrize("command", ["grade", "check", "batch", "gradescope", "handout"])
def test_an_authors_mistake_stops_the_command_before_anything(
    project: Path, tmp_path: Path, mistake: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    make_toy(project)
    said = MISTAKES[mistake](project)
    student = add(tmp_path / "class", "ada", RIGHT)
    made = tmp_path / "made"
    argv = {
        "grade": ["grade", "toy", str(student), "--results", str(made)],
        "check": ["check", "toy"],
        "batch": ["batch", "toy", str(student.parent), "--out", str(made)],
        "gradescope": ["gradescope", "toy", str(made)],
        "handout": ["handout", "toy", str(made)],
    }[command]
    capsys.readouterr()
    assert (
        main([*argv, *(["--sandbox", "process"] if command in ("grade", "check", "batch") else [])])
        == EXIT_BAD_INPUT
    )
    printed = capsys.readouterr()
    assert said in printed.err, printed.err
    assert "Traceback" not in printed.err and "Score" not in printed.out
    assert printed.err.rstrip().splitlines()[-1].startswith(("nothing graded: ", "nothing written: ")), (
        printed.err
    )
    assert not made.exists() or not any(made.iterdir())


def _one_je(real: Callable[..., GradeReport]) -> Callable[..., GradeReport]:
    def grade_with_a_je(*args: Any, **kwargs: Any) -> GradeReport:
        report = real(*args, **kwargs)
        report.results[0].verdict = Verdict.JE
        report.results[0].message = "the fork server stalled"
        return report

    return grade_with_a_je


@pytest.mark.parametrize("command", ["grade", "check"])
def test_a_judge_error_exits_1_after_the_report(
    project: Path,
    tmp_path: Path,
    command: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import importlib

    make_toy(project)
    module = importlib.import_module(f"grader.commands.{command}")
    monkeypatch.setattr(module, "grade", _one_je(module.grade))
    results = tmp_path / "results.json"
    student = add(tmp_path, "ada", RIGHT)
    argv = (
        ["grade", "toy", str(student), "--results", str(results)] if command == "grade" else ["check", "toy"]
    )
    assert main([*argv, "--sandbox", "process"]) == EXIT_GRADER_FAILED
    printed = capsys.readouterr()
    assert "Score:" in printed.out
    assert "grader error (JE) on double: the fork server stalled" in printed.err, printed.err
    assert command == "check" or results.is_file()
