"""An exercise as one content-addressed parcel: what grading needs, to carry to another machine.

The bundle holds the suite, its case generators, the given files, the fixtures (inputs and
recorded expectations, not the mutants nor the solutions) and, when a time limit is relative to
the reference or a test runs with reference helpers, the reference; each under its path in the
project, so that
unpacked it is a project root (`GRADER_ROOT`) of its own. The digest names the content, never
where or when it was made.
"""

from __future__ import annotations

import hashlib
import io
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from grader.atomic import make_private
from grader.exercise import cache_folder
from grader.suite.load import LoadedSuite
from grader.suite.model import SuiteError

SKIPPED_PARTS = frozenset({"__pycache__", "mutants", "solutions"})


@dataclass(frozen=True)
class ExerciseBundle:
    """The files of one exercise (zip bytes), the suite's path among them, and their digest."""

    digest: str
    suite: str
    archive: bytes

    def files(self) -> dict[str, bytes]:
        """Relative path -> content."""
        with zipfile.ZipFile(io.BytesIO(self.archive)) as bundle:
            return {name: bundle.read(name) for name in bundle.namelist()}


def content_digest(files: dict[str, bytes]) -> str:
    """sha256 over every (path, content) in path order.

    >>> content_digest({"a": b"1"}) == content_digest({"a": b"1"})
    True
    >>> content_digest({"a": b"1"}) == content_digest({"b": b"1"})
    False
    """
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    return digest.hexdigest()


def _relative(path: Path, root: Path, fallback: str) -> str:
    """`path` relative to the project root, or `fallback` for a file that lives elsewhere."""
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return fallback


def _tree(folder: Path, root: Path, fallback: str) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if (
            path.is_file()
            and not path.is_symlink()
            and not SKIPPED_PARTS & set(relative.parts)
            and path.suffix != ".pyc"
        ):
            files[_relative(path, root, f"{fallback}/{relative.as_posix()}")] = path.read_bytes()
    return files


def _needs_reference(loaded: LoadedSuite) -> bool:
    """Whether grading reads the reference: to time relative limits, or for reference helpers."""
    return any(
        loaded.suite.limits.merged(test.limits).relative or test.reference_helpers
        for test in loaded.suite.tests
    )


def bundle_files(loaded: LoadedSuite) -> tuple[str, dict[str, bytes]]:
    """(the suite's path in the bundle, every file of the bundle)."""
    root = loaded.exercise.root
    suite = loaded.suite
    name = suite.exercise
    exercise = loaded.exercise
    suite_name = _relative(loaded.path, root, f"fixtures/{name}/{loaded.path.name}")
    files = {suite_name: loaded.path.read_bytes()}
    wanted = [(exercise.given_file(given), f"exercises/{name}/{given}") for given in suite.given]
    if _needs_reference(loaded):
        wanted += [
            (exercise.reference / submitted, f"reference/{name}/{submitted}") for submitted in suite.submit
        ]
    for path, fallback in wanted:
        if not path.is_file():
            raise SuiteError(f"{path}: named by {loaded.path} and not there to bundle")
        files[_relative(path, root, fallback)] = path.read_bytes()
    if loaded.fixtures.is_dir():
        files.update(_tree(loaded.fixtures, root, f"fixtures/{name}"))
    return suite_name, files


def build_bundle(loaded: LoadedSuite) -> ExerciseBundle:
    """The exercise of `loaded` as one bundle."""
    return packed(*bundle_files(loaded))


def packed(suite_name: str, files: dict[str, bytes]) -> ExerciseBundle:
    """`files` as one bundle whose suite is `suite_name`: the same files, the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
        for name in sorted(files):
            bundle.writestr(
                zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)),
                files[name],
                compress_type=zipfile.ZIP_DEFLATED,
            )
    return ExerciseBundle(digest=content_digest(files), suite=suite_name, archive=buffer.getvalue())


def bundles_dir() -> Path:
    """Where unpacked bundles are kept: the cache folder's bundles/."""
    return cache_folder() / "bundles"


def _safe_name(name: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts:
        raise ValueError(f"bundle member '{name}' points outside the bundle")
    return path


def unpack(bundle: ExerciseBundle) -> Path:
    """The bundle as a project root on this machine, unpacked once per digest and checked."""
    target = bundles_dir() / bundle.digest
    if target.is_dir():
        return target
    files = bundle.files()
    if content_digest(files) != bundle.digest:
        raise ValueError(f"exercise bundle {bundle.digest[:12]}: its content does not match its digest")
    make_private(target.parent)  # it holds the reference and the hidden expectations
    staging = Path(tempfile.mkdtemp(prefix=f".{bundle.digest[:12]}-", dir=target.parent))
    try:
        for name, data in files.items():
            path = staging / _safe_name(name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        try:
            staging.rename(target)
        except OSError:
            if not target.is_dir():  # another task unpacked the same bundle meanwhile
                raise
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return target
