"""Known submissions: fixtures/NAME/mutants/VERDICT/MUTANT.diff, patches of the reference.

A mutant file is a unified diff against reference/NAME/ (paths `a/FILE`, `b/FILE`) under a header:
its first line says what is wrong (under `AC/`: how the right variant differs), further lines may
explain, an optional line `tests: name, name` says exactly which tests must get VERDICT (every
other test must then get AC), and an optional line `question: ID` names the suite's question whose
function the mutant breaks (it must then lose only that question, besides integration ones).
GNU patch applies it.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from grader import owners
from grader.exercise import Exercise
from grader.judge.verdicts import Verdict
from grader.suite.schema import SuiteError

TESTS_LINE = "tests:"
QUESTION_LINE = "question:"


@dataclass(frozen=True)
class Mutant:
    path: Path
    verdict: Verdict
    summary: str
    failing_tests: list[str] | None
    files: list[str]
    question: str | None = None  # the question whose function it breaks (`question:` line)

    @property
    def name(self) -> str:
        """VERDICT/MUTANT, as verify reports it.

        >>> Mutant(Path("m/WA/off-by-one.diff"), Verdict.WA, "", None, []).name
        'WA/off-by-one'
        """
        return f"{self.verdict.value}/{self.path.stem}"


def header_and_files(text: str) -> tuple[list[str], list[str]]:
    """The lines before the first file of a unified diff, and the files it patches.

    >>> header_and_files("Off by one.\\n--- a/grid.py\\n+++ b/grid.py\\n@@ -1 +1 @@\\n-a\\n+b\\n")
    (['Off by one.'], ['grid.py'])
    """
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("--- ")), len(lines))
    files = [line[4:].split("\t")[0].removeprefix("b/") for line in lines[start:]
             if line.startswith("+++ ")]
    return lines[:start], files


def parse(path: Path, verdict: Verdict, test_names: set[str] | None = None,
          question_ids: set[str] | None = None) -> Mutant:
    """A mutant file read and checked: a header line first, a diff of at least one file.

    `test_names` and `question_ids`, when given, are the suite's: a `tests:` line may name only
    those tests, a `question:` line only one of those questions.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SuiteError(f"{path}: cannot read: {error}") from error
    header, files = header_and_files(text)
    if not header or not header[0].strip() or header[0].startswith((TESTS_LINE, QUESTION_LINE)):
        raise SuiteError(f"{path}: the first line must say what is wrong with this submission")
    if not files:
        raise SuiteError(f"{path}: no unified diff (--- a/FILE, +++ b/FILE) after the header")
    failing = None
    question = None
    for line in header:
        if line.startswith(QUESTION_LINE):
            question = line[len(QUESTION_LINE):].strip()
            if not question or (question_ids is not None and question not in question_ids):
                raise SuiteError(f"{path}: '{line}': the suite declares no question "
                                 f"'{question}' ({', '.join(sorted(question_ids or ()))})")
        if line.startswith(TESTS_LINE):
            failing = [name.strip() for name in line[len(TESTS_LINE):].split(",") if name.strip()]
            unknown = set(failing) - test_names if test_names is not None else set()
            if unknown or not failing:
                raise SuiteError(f"{path}: '{line}': no test named "
                                 f"{', '.join(sorted(unknown)) or '(none listed)'}")
    return Mutant(path, verdict, header[0].strip(), failing, files, question)


def mutants_of(exercise: Exercise, test_names: set[str] | None = None,
               question_ids: set[str] | None = None) -> list[Mutant]:
    """Every mutants/VERDICT/*.diff of the exercise, sorted by verdict and name."""
    found: list[Mutant] = []
    if not exercise.mutants.is_dir():
        return found
    for verdict_dir in sorted(p for p in exercise.mutants.iterdir() if p.is_dir()):
        try:
            verdict = Verdict(verdict_dir.name)
        except ValueError as error:
            raise SuiteError(f"{verdict_dir}: '{verdict_dir.name}' is not a verdict "
                             f"({', '.join(v.value for v in Verdict)})") from error
        strays = sorted(p.name for p in verdict_dir.iterdir() if p.suffix != ".diff")
        if strays:
            raise SuiteError(f"{verdict_dir}: {', '.join(strays)}: a mutant is one MUTANT.diff file")
        found += [parse(path, verdict, test_names, question_ids)
                  for path in sorted(verdict_dir.glob("*.diff"))]
    return found


@contextmanager
def applied(mutant: Mutant, reference: Path) -> Iterator[Path]:
    """A temporary folder holding the reference's files that `mutant` patches, patched."""
    patch = shutil.which("patch")
    if patch is None:
        raise SuiteError(f"{mutant.path}: GNU patch is needed to apply mutants and is not "
                         "installed (apt-get install patch)")
    with tempfile.TemporaryDirectory(prefix=owners.scratch_prefix("mutant-")) as folder:
        for name in mutant.files:
            original = reference / name
            if not original.is_file():
                raise SuiteError(f"{mutant.path}: patches {name}, which is not in {reference}")
            shutil.copyfile(original, Path(folder) / name)
        run = subprocess.run([patch, "--batch", "--silent", "--forward", "--strip=1",
                              "--no-backup-if-mismatch", "--reject-file=-", "--directory", folder,
                              "--input", str(mutant.path.resolve())],
                             capture_output=True, text=True, check=False)
        if run.returncode != 0:
            why = " ".join((run.stdout + run.stderr).split()) or f"exit {run.returncode}"
            raise SuiteError(f"{mutant.path}: does not apply to {reference}: {why}")
        yield Path(folder)
