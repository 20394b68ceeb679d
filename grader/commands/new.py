"""`grader new EXERCISE`: an exercise's skeleton that `grader verify` passes as it is.

What it writes, for the author to change (docs/suites.md says what each part may hold): a stub and
its reference (one function, the value of a game tree given as nested lists), a driver, a
statement, input fixtures and a suite with one question, a visible test, a hidden test and a
transcript through the driver; then it records the expectations from the reference.
"""

from __future__ import annotations

import re
from pathlib import Path

from rich.console import Console

from grader.commands import EXIT_CHECK_FAILED, EXIT_OK
from grader.commands.output import stdout_console
from grader.commands.record import record
from grader.errors import UserError
from grader.exercise import Exercise, project_root
from grader.suite.load import load_suite

NAME = re.compile(r"^[a-z][a-z0-9_]*$")  # also the module's name, so a Python identifier

STUB = '''\
"""{title}: the value of a game tree.

A game tree is an int (a finished game: its value for the first player) or a list of game trees
(the positions one move away). The first player moves at the root and picks the largest value;
the second player picks the smallest; they take turns all the way down.
"""

from __future__ import annotations

from typing import TypeAlias

Tree: TypeAlias = int | list["Tree"]


def value(tree: Tree, maximizing: bool = True) -> int:
    """The value of `tree` when both players play their best (minimax), the player to move
    maximizing if `maximizing`. A list of no positions is worth 0."""
    raise NotImplementedError
'''

REFERENCE = '''\
"""{title}: the value of a game tree (the reference)."""

from __future__ import annotations

from typing import TypeAlias

Tree: TypeAlias = int | list["Tree"]


def value(tree: Tree, maximizing: bool = True) -> int:
    if isinstance(tree, int):
        return tree
    if not tree:
        return 0
    values = [value(child, not maximizing) for child in tree]
    return max(values) if maximizing else min(values)
'''

DRIVER = '''\
"""Read a game tree (a Python literal of nested lists of ints) on stdin, print its value."""

from __future__ import annotations

import ast
import sys

import {module}

if __name__ == "__main__":
    tree = ast.literal_eval(sys.stdin.read())
    print(f"value: {{{module}.value(tree)}}")
'''

STATEMENT = """\
# {title}

A game tree is an `int` (a finished game, worth that much to the first player) or a list of
game trees (the positions one move away). Write `value(tree)` in `{module}.py`: the value of the
game when both players play their best, the first player taking the largest value and the second
the smallest, in turn.

| tree | value |
| --- | --- |
| `3` | 3 |
| `[1, 5]` | 5 |
| `[[1, 5], [2, 4]]` | 2 |
"""

SUITE = """\
# {title}: written by `grader new {name}`; change everything (docs/suites.md).
exercise: {name}
title: "{title}"
submit: [{module}.py]
given: [play.py]
limits: {{cpu_s: 2, wall_s: 10, memory_mb: 128}}
questions:
  - {{id: q1-value, title: "Question 1: the value of a game tree"}}
tests:
  - name: value
    question: q1-value
    description: the value of small trees, both players to move
    call: {module}.value
    cases: [[3], [[1, 5]], [[[1, 5], [2, 4]]], [[]], [[[3, 1], [2, 7]], false]]
  - name: value-hidden
    question: q1-value
    visibility: hidden
    call: {module}.value
    cases: [[[[[2, 9], [4]], [[1], [8, 3]]]], [[-1, [0, [5, -3]]]]]
  - name: play
    question: q1-value
    description: the driver prints the value of the tree it reads
    transcript: {{driver: play, stdin: tree.txt, expected: tree.out.txt}}
"""

TREE = "[[3, [4, 1]], [[2, 8], 5]]\n"


class ExerciseExists(UserError):
    """`grader new` would overwrite an exercise's files."""


def skeleton(name: str, title: str) -> dict[Path, str]:
    """Every file of the new exercise, by its path under the project root."""
    exercise = Exercise.named(name)
    values = {"name": name, "module": name, "title": title}
    return {
        exercise.stubs / f"{name}.py": STUB.format(**values),
        exercise.stubs / "play.py": DRIVER.format(**values),
        exercise.stubs / "README.md": STATEMENT.format(**values),
        exercise.reference / f"{name}.py": REFERENCE.format(**values),
        exercise.suite: SUITE.format(**values),
        exercise.fixtures / "tree.txt": TREE,
    }


def main(*, exercise: str, title: str | None = None, console: Console | None = None) -> int:
    """Write the skeleton of `exercise` (refused, one line, when its name is not a module name
    or any of its folders exists) and record its expectations."""
    if not NAME.match(exercise):
        raise UserError(
            f"{exercise}: an exercise's name is also its module's: lower-case "
            "letters, digits and _, starting with a letter"
        )
    target = Exercise.named(exercise)
    taken = [folder for folder in (target.stubs, target.reference, target.fixtures) if folder.exists()]
    if taken:
        raise ExerciseExists(f"{taken[0]}: exists; `grader new` writes only a new exercise")
    files = skeleton(exercise, title or exercise.replace("_", " ").capitalize())
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    console = stdout_console(console)
    recording = record(load_suite(exercise))
    for failure in recording.failures:
        console.print(f"not recorded: {failure}", markup=False)
    root = project_root()
    console.print(
        f"wrote {len(files)} files and {len(recording.written)} expectations: "
        f"{', '.join(str(path.relative_to(root)) for path in files)}; next: "
        f"`grader verify {exercise}`",
        markup=False,
        soft_wrap=True,
    )
    return EXIT_CHECK_FAILED if recording.failures else EXIT_OK
