"""Snapshots of suites: what an assignment grades with, kept by the service as it was published.

A snapshot is an exercise bundle (`grader.cluster.bundle`: the suite file, its case generators,
inputs and recorded expectations, the given files, and the reference when grading reads it) plus
the stubs of the submitted modules (reference helpers read the names they declare), stored as
one .zip named by the digest of its content under the service's folder
(`STATE/suites/ab/DIGEST.zip`, like the submissions' blobs). Every read checks the content
against the digest: a snapshot changed on disk is refused, never used.
"""

from __future__ import annotations

import io
import shutil
import tempfile
import zipfile
from pathlib import Path

from grader import owners
from grader.cluster.bundle import ExerciseBundle, bundle_files, content_digest, packed
from grader.errors import UserError
from grader.service.storage import write_durably
from grader.suite.load import LoadedSuite, parse_yaml
from grader.suite.schema import Suite

SNAPSHOTS = "suites"
MAX_SNAPSHOT_BYTES = 256 * 2**20  # far above any suite: a bigger file is not one the service wrote


class SnapshotError(UserError):
    """A pinned snapshot that cannot be used: missing, unreadable, or not what its digest says."""


def snapshot_of(loaded: LoadedSuite) -> ExerciseBundle:
    """The snapshot of a suite as it is on disk now (`loaded` read from the project root)."""
    suite_name, files = bundle_files(loaded)
    for module in loaded.suite.submit:
        stub = loaded.exercise.stubs / module
        if stub.is_file():
            files.setdefault(f"exercises/{loaded.name}/{module}", stub.read_bytes())
    return packed(suite_name, files)


def snapshot_path(state: Path, digest: str) -> Path:
    return state / SNAPSHOTS / digest[:2] / f"{digest}.zip"


def store(state: Path, snapshot: ExerciseBundle) -> Path:
    """Keep `snapshot` under its digest (durably; a file there that is not it is replaced)."""
    path = snapshot_path(state, snapshot.digest)
    if path.is_file():
        try:
            read_files(state, snapshot.digest)
            return path
        except SnapshotError:
            path.unlink()
    write_durably(state, path, snapshot.archive)
    return path


def read_files(state: Path, digest: str) -> dict[str, bytes]:
    """The files of the snapshot `digest` (relative path -> bytes), checked against the digest;
    a SnapshotError in one line naming the file when it is missing, unreadable or changed."""
    path = snapshot_path(state, digest)
    refused = f"the pinned suite snapshot {digest[:16]}"
    try:
        if path.stat().st_size > MAX_SNAPSHOT_BYTES:
            raise SnapshotError(f"{refused} is larger than any suite the service stores ({path})")
        with zipfile.ZipFile(io.BytesIO(path.read_bytes())) as archive:
            files = {name: archive.read(name) for name in archive.namelist() if not name.endswith("/")}
    except FileNotFoundError:
        raise SnapshotError(
            f"{refused} is missing: refusing to grade without it ({path}: restore the service's "
            f"folder from a backup, or regrade the assignment onto the suite on disk)"
        ) from None
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as error:
        raise SnapshotError(
            f"{refused} cannot be read: refusing to grade with it ({path}: {error})"
        ) from None
    if content_digest(files) != digest:
        raise SnapshotError(
            f"{refused} does not match its fingerprint: it was changed on disk; refusing to grade "
            f"with it ({path}: restore it from a backup, or regrade the assignment onto the suite "
            f"on disk)"
        )
    return files


def suite_in(files: dict[str, bytes], suite_name: str) -> Suite:
    """The suite of a snapshot's files, validated (a snapshot holds only suites that loaded)."""
    if suite_name not in files:
        raise SnapshotError(f"the pinned suite snapshot holds no {suite_name}")
    _, data = parse_yaml(files[suite_name].decode("utf-8"))
    return Suite.model_validate(data)


_unpacked: dict[str, Path] = {}  # digest -> this process's unpacked copy


def unpacked(state: Path, digest: str) -> Path:
    """The snapshot `digest` as a project root of this process's own (a private scratch folder,
    removed when the process ends; a grader that died leaves it to the next one's sweep), after
    checking the stored snapshot against its digest: checked on every call, unpacked once."""
    files = read_files(state, digest)
    known = _unpacked.get(digest)
    if known is not None and known.is_dir():
        return known
    root = Path(tempfile.mkdtemp(prefix=owners.scratch_prefix("suite-"), dir=owners.scratch_root()))
    for name, data in files.items():
        target = root / name
        if target.resolve().is_relative_to(root.resolve()) and ".." not in Path(name).parts:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    _unpacked[digest] = root
    return root


def forget_unpacked() -> None:
    """Remove this process's unpacked snapshots (a worker's last act)."""
    for root in _unpacked.values():
        shutil.rmtree(root, ignore_errors=True)
    _unpacked.clear()
