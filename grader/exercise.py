"""Where an exercise's files are: three mirrors under one project root.

- `exercises/NAME/`: what students get (stubs and given files);
- `reference/NAME/`: the solution (the submitted files only);
- `fixtures/NAME/`: `suite.yaml`, its case generators, inputs, `expected/` (recorded from the
  reference) and `mutants/VERDICT/MUTANT.diff` (submissions known to get VERDICT).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

SUITE_FILE = "suite.yaml"
GIVEN_COPIES = "given"  # a handout's pristine given files, in fixtures/NAME/


def project_root() -> Path:
    """The checkout holding exercises/, reference/ and fixtures/ ($GRADER_ROOT overrides)."""
    override = os.environ.get("GRADER_ROOT")
    if override:
        return Path(override).resolve()
    return Path(__file__).resolve().parent.parent


def cache_folder() -> Path:
    """Where the grader keeps what it can make again ($GRADER_CACHE, else
    ~/.cache/gametree-grader): reference timings, unpacked exercise bundles."""
    override = os.environ.get("GRADER_CACHE")
    return Path(override) if override else Path.home() / ".cache" / "gametree-grader"


@dataclass(frozen=True)
class Exercise:
    """Every path of one exercise; `suite` may sit outside fixtures/NAME (a suite file named by path).

    >>> exercise = Exercise.named("bitgrid", Path("/course"))
    >>> exercise.suite.as_posix(), exercise.stubs.as_posix(), exercise.reference.as_posix()
    ('/course/fixtures/bitgrid/suite.yaml', '/course/exercises/bitgrid', '/course/reference/bitgrid')
    >>> exercise.expected_file("position").as_posix()
    '/course/fixtures/bitgrid/expected/position.json'
    """

    name: str
    root: Path
    suite: Path

    @classmethod
    def named(cls, name: str, root: Path | None = None) -> Exercise:
        """The exercise NAME of the project at `root` (default: `project_root()`)."""
        root = root if root is not None else project_root()
        return cls(name, root, root / "fixtures" / name / SUITE_FILE)

    @classmethod
    def all(cls, root: Path | None = None) -> list[Exercise]:
        """Every exercise of the project: each folder of fixtures/ holding a suite.yaml."""
        root = root if root is not None else project_root()
        return [
            cls.named(path.parent.name, root) for path in sorted((root / "fixtures").glob(f"*/{SUITE_FILE}"))
        ]

    @property
    def stubs(self) -> Path:
        """exercises/NAME: the stubs students fill in and the given files."""
        return self.root / "exercises" / self.name

    @property
    def reference(self) -> Path:
        """reference/NAME: the solution, the same submitted files."""
        return self.root / "reference" / self.name

    @property
    def fixtures(self) -> Path:
        """The folder of the suite file: inputs, generators, expectations, mutants."""
        return self.suite.parent

    @property
    def expected(self) -> Path:
        return self.fixtures / "expected"

    def expected_file(self, test: str) -> Path:
        """The recorded expectation of one test (its meta data, for a transcript test)."""
        return self.expected / f"{test}.json"

    def input_file(self, name: str) -> Path:
        """An input fixture (stdin file, file argument, recorded transcript)."""
        return self.fixtures / name

    def generator(self, module: str) -> Path:
        """The Python file of a `cases_from`/`steps_from: MODULE:FUNCTION` generator."""
        return self.fixtures / f"{module}.py"

    @property
    def mutants(self) -> Path:
        """mutants/VERDICT/MUTANT.diff: submissions known to get VERDICT, as patches of the reference."""
        return self.fixtures / "mutants"

    @property
    def solutions(self) -> Path:
        """solutions/SOLUTION/: whole right submissions (their files and a README.md saying how
        each differs from the reference), which must get full marks."""
        return self.fixtures / "solutions"

    def given_file(self, name: str) -> Path:
        """A given file as the grader uses it: a handout's pristine copy (fixtures/NAME/given/,
        out of the student's working copy, which they may edit), else exercises/NAME's."""
        pristine = self.fixtures / GIVEN_COPIES / name
        return pristine if pristine.is_file() else self.stubs / name
