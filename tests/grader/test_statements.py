"""Each exercise's statement (exercises/NAME/README.md) states the task of every question of its
suite, in the suite's order, and its examples are what the reference really does: every `pycon`
block's calls and every `console` block's run are made again on the reference and must print what
the statement shows. After a deliberate change of the reference, rewrite them all with

    GRADER_UPDATE_STATEMENTS=1 .venv/bin/python -m pytest -q tests/grader/test_statements.py

and review `git diff exercises/`."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.cli import main
from grader.exercise import Exercise
from grader.report.statement import read_statement, statement_html
from grader.suite.load import load_suite
from tests.support import SUITE_NAMES

UPDATE = os.environ.get("GRADER_UPDATE_STATEMENTS") == "1"
BLOCK = re.compile(r"^```(pycon|console)\n(.*?)^```\n", re.MULTILINE | re.DOTALL)

# Runs each statement of each block in one interpreter, as the Python prompt would, and prints
# what each one printed (or the last line of its traceback).
PROMPT_RUNNER = r"""
import code, contextlib, io, json, sys, traceback
blocks = json.load(sys.stdin)
shell = code.InteractiveInterpreter()
outputs = []
for statements in blocks:
    printed = []
    for source in statements:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                exec(compile(source, "<statement>", "single"), shell.locals)
            except Exception as error:
                print("Traceback (most recent call last):\n  ...")
                print("".join(traceback.format_exception_only(error)).rstrip())
        printed.append(out.getvalue())
    outputs.append(printed)
json.dump(outputs, sys.stdout)
"""


def reference_folder(name: str, folder: Path) -> Path:
    """The reference's submitted files beside the exercise's given ones: what the prompt and the
    drivers import."""
    loaded = load_suite(name)
    for submitted in loaded.suite.submit:
        shutil.copyfile(loaded.exercise.reference / submitted, folder / submitted)
    for given in loaded.suite.given:
        shutil.copyfile(loaded.exercise.stubs / given, folder / given)
    return folder


def statements_of(block: str) -> list[tuple[str, str]]:
    """(source, what it printed) of each `>>>` statement of a pycon block."""
    found: list[tuple[list[str], list[str]]] = []
    for line in block.splitlines():
        if line.startswith(">>> "):
            found.append(([line[4:]], []))
        elif line.startswith("... ") or line == "...":
            found[-1][0].append(line[4:])
        else:
            found[-1][1].append(line)
    return [("\n".join(source) + "\n", "".join(out + "\n" for out in printed)) for source, printed in found]


def pycon_text(statements: list[tuple[str, str]]) -> str:
    lines = []
    for source, printed in statements:
        first, *rest = source.rstrip("\n").split("\n")
        lines += [f">>> {first}", *(f"... {line}" if line else "..." for line in rest)]
        lines.append(printed.rstrip("\n")) if printed.strip() else None
    return "\n".join(lines) + "\n"


def run_command(name: str, command: str, folder: Path) -> str:
    """What `$ COMMAND` prints: `cat FILE` shows a fixture; `python DRIVER.py ARGS [< FILE]` runs
    a given program on the reference with a fixture as its input, and
    `printf 'LINES' | python DRIVER.py ARGS` with those lines."""
    fixtures = Exercise.named(name).fixtures
    words = shlex.split(command)
    if words[0] == "cat":
        text = (fixtures / words[1]).read_text()
        return text if text.endswith("\n") else text + "\n"  # the block's fence on a line of its own
    stdin = None
    if words[0] == "printf" and words[2] == "|":
        stdin = words[1].encode().decode("unicode_escape")
        words = words[3:]
    assert words[0] == "python", f"{name}: a console block runs `python DRIVER.py` or `cat FILE`"
    if "<" in words:
        stdin = (fixtures / words[words.index("<") + 1]).read_text()
        words = words[: words.index("<")]
    for word in words[2:]:  # an input file the program reads, such as a board
        if (fixtures / word).is_file():
            shutil.copyfile(fixtures / word, folder / word)
    run = subprocess.run(
        [sys.executable, *words[1:]], cwd=folder, input=stdin, capture_output=True, text=True, timeout=120
    )
    return as_compared(name, run.stdout)


def as_compared(name: str, output: str) -> str:
    """The output as the suite compares transcripts: its substitutions made, and the numbers of a
    masked line (a time, say) written N, so that a statement does not change from run to run."""
    normalize = load_suite(name).suite.normalize
    lines = []
    for line in output.splitlines():
        for pattern, replacement in normalize.substitute:
            line = re.sub(pattern, replacement, line)
        if any(re.search(pattern, line) for pattern in normalize.mask):
            line = re.sub(r"\d+", "N", line)
        lines.append(line.rstrip() if normalize.trailing_whitespace == "strip" else line)
    return "".join(line + "\n" for line in lines)


def checked_statement(name: str, folder: Path) -> tuple[str, str]:
    """The statement as written, and as the reference makes it."""
    text = read_statement(Exercise.named(name))
    assert not re.search(r"[^\n]```", text), f"{name}: a code fence must start its own line"
    blocks = list(BLOCK.finditer(text))
    prompts = [statements_of(block.group(2)) for block in blocks if block.group(1) == "pycon"]
    runner = subprocess.run(
        [sys.executable, "-c", PROMPT_RUNNER],
        cwd=folder,
        text=True,
        input=json.dumps([[s for s, _ in block] for block in prompts]),
        capture_output=True,
        timeout=300,
    )
    assert runner.returncode == 0, runner.stderr
    printed = iter(json.loads(runner.stdout))
    made, last = [], 0
    for block in blocks:
        made.append(text[last : block.start(2)])
        if block.group(1) == "pycon":
            sources = [source for source, _ in statements_of(block.group(2))]
            made.append(pycon_text(list(zip(sources, next(printed), strict=True))))
        else:
            command = block.group(2).split("\n", 1)[0]
            assert command.startswith("$ "), f"{name}: a console block starts with `$ COMMAND`"
            made.append(f"{command}\n{run_command(name, command[2:], folder)}")
        last = block.end(2)
    made.append(text[last:])
    return text, "".join(made)


@pytest.mark.parametrize("name", SUITE_NAMES)
def test_the_statement_shows_what_the_reference_does(name: str, tmp_path: Path) -> None:
    written, made = checked_statement(name, reference_folder(name, tmp_path))
    for mistake in ("NameError", "ImportError", "ModuleNotFoundError"):
        assert mistake not in made, f"{name}: an example of the statement cannot run"
    if UPDATE and written != made:
        (Exercise.named(name).stubs / "README.md").write_text(made, encoding="utf-8")
        written = made
    assert written == made, f"{name}: the statement's examples are not what the reference does"


@pytest.mark.parametrize("name", SUITE_NAMES)
def test_the_statement_states_every_question_in_the_suites_order(name: str) -> None:
    loaded = load_suite(name)
    text = read_statement(loaded.exercise)
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    places = []
    for question in loaded.suite.questions:
        title = question.title or question.id
        place = next((i for i, heading in enumerate(headings) if title in heading), None)
        assert place is not None, f"{name}: no `## ...` heading names {title!r}"
        places.append(place)
        points = sum(t.points for t in loaded.suite.tests if t.question == question.id)
        row = re.search(rf"^\|[^\n]*{re.escape(title)}[^\n]*\| {points:g} \|", text, re.MULTILINE)
        assert row is not None, f"{name}: the table of questions gives {title!r} {points:g} points"
    assert places == sorted(places), f"{name}: the questions are not in the suite's order"
    assert "<h2>" in statement_html(text)


@pytest.mark.parametrize("name", SUITE_NAMES)
def test_grader_statement_prints_it(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["statement", name]) == 0
    first_question = load_suite(name).suite.questions[0]
    assert (first_question.title or first_question.id) in capsys.readouterr().out
    assert main(["statement", name, "--html"]) == 0
    page = capsys.readouterr().out
    assert page.startswith("<!doctype html>") and "<script" not in page


def test_an_unknown_exercise_has_no_statement(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["statement", "../../etc"]) == 3
    assert "no exercise named" in capsys.readouterr().err
