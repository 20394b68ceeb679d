"""Known submissions that `grader verify` grades (problemtools' submissions/, exercism's
.meta/example.py):

- fixtures/NAME/mutants/VERDICT/MUTANT.diff: a small change of the reference. A unified diff
  against reference/NAME/ (paths `a/FILE`, `b/FILE`) under a header: its first line says what is
  wrong (under `AC/`: how the right variant differs), further lines may explain, and an optional
  line `tests: name, name` says exactly which tests must get VERDICT (every other test must then
  get AC); an optional line `question: ID` names the suite's question whose function the
  mutant breaks (it must then lose only that question, besides integration ones). GNU patch
  applies it.
- fixtures/NAME/solutions/SOLUTION/: a whole right submission, every submitted file as a student
  would hand it in, and a README.md whose first line says how it differs; it must get AC on
  every test (it is graded alone, without the reference's files under it).
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
from grader.suite.model import SuiteError

TESTS_LINE = "tests:"
README = "README.md"
QUESTION_LINE = "question:"


@dataclass(frozen=True)
class Mutant:
    path: Path
    verdict: Verdict
    summary: str
    failing_tests: list[str] | None
    files: list[str]
    question: str | None = None  # the question whose function it breaks (`question:` line)
    whole: bool = False  # a folder of solutions/, not a diff

    @property
    def name(self) -> str:
        """VERDICT/MUTANT, as verify reports it.

        >>> Mutant(Path("m/WA/off-by-one.diff"), Verdict.WA, "", None, []).name
        'WA/off-by-one'
        """
        return f"{self.verdict.value}/{self.path.stem}"

    @property
    def overlay(self) -> bool:
        """Whether it is graded over the reference's files (a diff holds only what it changes)."""
        return not self.whole


def header_and_files(text: str) -> tuple[list[str], list[str]]:
    """The lines before the first file of a unified diff, and the files it patches.

    >>> header_and_files("Off by one.\\n--- a/grid.py\\n+++ b/grid.py\\n@@ -1 +1 @@\\n-a\\n+b\\n")
    (['Off by one.'], ['grid.py'])
    """
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("--- ")), len(lines))
    files = [line[4:].split("\t")[0].removeprefix("b/") for line in lines[start:] if line.startswith("+++ ")]
    return lines[:start], files


def parse(
    path: Path, verdict: Verdict, test_names: set[str] | None = None, question_ids: set[str] | None = None
) -> Mutant:
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
            question = line[len(QUESTION_LINE) :].strip()
            if not question or (question_ids is not None and question not in question_ids):
                raise SuiteError(
                    f"{path}: '{line}': the suite declares no question "
                    f"'{question}' ({', '.join(sorted(question_ids or ()))})"
                )
        if line.startswith(TESTS_LINE):
            failing = [name.strip() for name in line[len(TESTS_LINE) :].split(",") if name.strip()]
            unknown = set(failing) - test_names if test_names is not None else set()
            if unknown or not failing:
                raise SuiteError(
                    f"{path}: '{line}': no test named {', '.join(sorted(unknown)) or '(none listed)'}"
                )
    return Mutant(path, verdict, header[0].strip(), failing, files, question)


def solution(folder: Path) -> Mutant:
    """A whole right submission, read and checked: a README.md whose first line says what it is,
    and at least one file beside it."""
    try:
        summary = (folder / README).read_text(encoding="utf-8").splitlines()[:1]
    except (OSError, UnicodeDecodeError) as error:
        raise SuiteError(
            f"{folder}: a solution needs a {README} saying how it differs from the "
            f"reference ({error.strerror if isinstance(error, OSError) else error})"
        ) from error
    if not summary or not summary[0].strip():
        raise SuiteError(f"{folder / README}: the first line must say how this solution differs")
    files = sorted(path.name for path in folder.iterdir() if path.is_file() and path.name != README)
    if not files:
        raise SuiteError(f"{folder}: a solution holds the files a student submits; none here")
    return Mutant(folder, Verdict.AC, summary[0].strip(), None, files, whole=True)


def mutants_of(
    exercise: Exercise, test_names: set[str] | None = None, question_ids: set[str] | None = None
) -> list[Mutant]:
    """Every known submission of the exercise: mutants/VERDICT/*.diff sorted by verdict and
    name, then solutions/* (as AC/SOLUTION) by name."""
    found = _diffs(exercise, test_names, question_ids)
    names = {mutant.name for mutant in found}
    if exercise.solutions.is_dir():
        for folder in sorted(p for p in exercise.solutions.iterdir() if p.is_dir()):
            whole = solution(folder)
            if whole.name in names:
                raise SuiteError(
                    f"{folder}: {whole.name} is also mutants/{whole.name}.diff; keep one of them"
                )
            found.append(whole)
    return found


def _diffs(exercise: Exercise, test_names: set[str] | None, question_ids: set[str] | None) -> list[Mutant]:
    found: list[Mutant] = []
    if not exercise.mutants.is_dir():
        return found
    for verdict_dir in sorted(p for p in exercise.mutants.iterdir() if p.is_dir()):
        try:
            verdict = Verdict(verdict_dir.name)
        except ValueError as error:
            raise SuiteError(
                f"{verdict_dir}: '{verdict_dir.name}' is not a verdict "
                f"({', '.join(v.value for v in Verdict)})"
            ) from error
        strays = sorted(p.name for p in verdict_dir.iterdir() if p.suffix != ".diff")
        if strays:
            raise SuiteError(f"{verdict_dir}: {', '.join(strays)}: a mutant is one MUTANT.diff file")
        found += [
            parse(path, verdict, test_names, question_ids) for path in sorted(verdict_dir.glob("*.diff"))
        ]
    return found


@contextmanager
def applied(mutant: Mutant, reference: Path) -> Iterator[Path]:
    """A temporary folder holding the reference's files that `mutant` patches, patched (or, for a
    whole solution, a copy of its files)."""
    if mutant.whole:
        with tempfile.TemporaryDirectory(prefix=owners.scratch_prefix("solution-")) as folder:
            for name in mutant.files:
                shutil.copyfile(mutant.path / name, Path(folder) / name)
            yield Path(folder)
        return
    patch = shutil.which("patch")
    if patch is None:
        raise SuiteError(
            f"{mutant.path}: GNU patch is needed to apply mutants and is not "
            "installed (apt-get install patch)"
        )
    with tempfile.TemporaryDirectory(prefix=owners.scratch_prefix("mutant-")) as folder:
        for name in mutant.files:
            original = reference / name
            if not original.is_file():
                raise SuiteError(f"{mutant.path}: patches {name}, which is not in {reference}")
            shutil.copyfile(original, Path(folder) / name)
        run = subprocess.run(
            [
                patch,
                "--batch",
                "--silent",
                "--forward",
                "--strip=1",
                "--no-backup-if-mismatch",
                "--reject-file=-",
                "--directory",
                folder,
                "--input",
                str(mutant.path.resolve()),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if run.returncode != 0:
            why = " ".join((run.stdout + run.stderr).split()) or f"exit {run.returncode}"
            raise SuiteError(f"{mutant.path}: does not apply to {reference}: {why}")
        yield Path(folder)
