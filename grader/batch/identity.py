"""What a grade depends on: the suite, the recorded expectations, the submission, the grader.

A result records these fingerprints; `--resume` regrades exactly the submissions whose
fingerprints differ from their last grading.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path

from grader.run.submission import submission_files
from grader.suite import expectations
from grader.suite.load import LoadedSuite

GRADER_PACKAGE = "gametree-grader"
SHORT = 16


@dataclass(frozen=True)
class Identity:
    """Everything a grading's outcome depends on."""

    exercise: str
    suite_fingerprint: str
    expectations_fingerprint: str
    submission_hash: str
    grader_version: str

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def _digest(parts: list[bytes]) -> str:
    """A short hash of a sequence of byte strings (each length-prefixed, so none can blur)."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()[:SHORT]


def suite_fingerprint(loaded: LoadedSuite) -> str:
    """The suite as validated (points, limits, steps...), the given files graded with it and the
    modules of its checkers (which judge answers)."""
    suite = loaded.suite
    parts = [suite.model_dump_json().encode()]
    for name in suite.given:
        path = loaded.exercise.given_file(name)
        parts += [name.encode(), path.read_bytes() if path.is_file() else b"<missing>"]
    for module in sorted(_checker_modules(loaded)):
        path = loaded.exercise.generator(module)
        parts += [module.encode(), path.read_bytes() if path.is_file() else b"<missing>"]
    return _digest(parts)


def _checker_modules(loaded: LoadedSuite) -> set[str]:
    """The fixtures modules holding the suite's checkers (`checker: MODULE:FUNCTION`) and game
    referees (`game: {matches: MODULE:FUNCTION}`)."""
    modules: set[str] = set()
    for test in loaded.suite.tests:
        if test.interactive is not None:
            modules.add(test.interactive.referee.partition(":")[0])
        if test.transcript is not None or test.interactive is not None:
            continue
        sources = [test.checker] + [step.checker for step in expectations.steps_of(test, loaded)]
        sources.append(test.game.matches if test.game is not None else None)
        modules.update(source.partition(":")[0] for source in sources if source is not None)
    return modules


def expectations_fingerprint(loaded: LoadedSuite) -> str:
    """Every recorded expectation of the suite's tests (values, transcripts, exit codes)."""
    parts: list[bytes] = []
    for test in loaded.suite.tests:
        files = [expectations.call_file(loaded, test)]
        if test.transcript is not None:
            files.append(loaded.fixtures / test.transcript.expected)
        for path in files:
            parts += [test.name.encode(), path.read_bytes() if path.is_file() else b"<missing>"]
    return _digest(parts)


@functools.cache
def grader_version() -> str:
    """The package version and a hash of the grader's own source (a fix changes grades)."""
    try:
        version = metadata.version(GRADER_PACKAGE)
    except metadata.PackageNotFoundError:
        version = "unknown"
    source = Path(__file__).resolve().parent.parent
    parts = [
        b
        for path in sorted(source.rglob("*.py"))
        for b in (str(path.relative_to(source)).encode(), path.read_bytes())
    ]
    return f"{version}+{_digest(parts)[:10]}"


def submission_hash(source: Path) -> str:
    """The content of a submission: a .zip's bytes, or a folder's file names and bytes."""
    if source.is_file():
        return _digest([source.read_bytes()])
    parts: list[bytes] = []
    for path in submission_files(source):
        parts += [path.relative_to(source).as_posix().encode(), path.read_bytes()]
    return _digest(parts)


def identity_of(loaded: LoadedSuite, source: Path, suite_fp: str, expected_fp: str) -> Identity:
    return Identity(
        exercise=loaded.name,
        suite_fingerprint=suite_fp,
        expectations_fingerprint=expected_fp,
        submission_hash=submission_hash(source),
        grader_version=grader_version(),
    )
