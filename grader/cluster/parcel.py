"""A submission as bytes, to grade it on a machine that cannot see the class folder.

A .zip travels as it is; a folder travels as the files `grader.run.submission.prepare` would read
from it (hidden entries, `__pycache__` and symbolic links never are), each cut one byte past the
size limit so that the far side refuses an oversized file exactly as a local grading would.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from grader.run.submission import MAX_DEPTH, MAX_FILE_BYTES


@dataclass(frozen=True)
class SubmissionParcel:
    """One student's submission: a zip's bytes, or a folder's files by relative path."""

    name: str
    archive: bytes | None = None
    files: dict[str, bytes] = field(default_factory=dict)

    @property
    def digest(self) -> str:
        digest = hashlib.sha256(self.name.encode() + b"\0")
        if self.archive is not None:
            digest.update(b"zip\0" + self.archive)
        for name in sorted(self.files):
            digest.update(name.encode() + b"\0" + hashlib.sha256(self.files[name]).digest())
        return digest.hexdigest()


def _head(path: Path, limit: int) -> bytes:
    with path.open("rb") as stream:
        return stream.read(limit)


def pack(source: Path) -> SubmissionParcel:
    """The submission at `source` (a .zip or a folder) as a parcel.

    An unreadable .zip travels empty and the far side refuses it as unreadable, as here.
    """
    if source.is_file():
        try:
            return SubmissionParcel(name=source.name, archive=source.read_bytes())
        except OSError:
            return SubmissionParcel(name=source.name, archive=b"")
    files: dict[str, bytes] = {}
    if source.is_dir():
        for path in sorted(source.rglob("*")):
            relative = path.relative_to(source)
            if any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
                continue
            if path.is_symlink() or not path.is_file() or len(relative.parts) > MAX_DEPTH:
                continue
            try:
                files[relative.as_posix()] = _head(path, MAX_FILE_BYTES + 1)
            except OSError:
                continue
    return SubmissionParcel(name=source.name, files=files)


def unpack(parcel: SubmissionParcel, folder: Path) -> Path:
    """Lay the parcel out under `folder`; the path to grade (a folder or a .zip)."""
    name = PurePosixPath(parcel.name).name or "submission"
    if name in {".", ".."}:
        name = "submission"
    target = folder / name
    if parcel.archive is not None:
        target.write_bytes(parcel.archive)
        return target
    target.mkdir()
    for relative, data in parcel.files.items():
        path = PurePosixPath(relative)
        if path.is_absolute() or ".." in path.parts:
            raise ValueError(f"submission file '{relative}' points outside the submission")
        destination = target / path
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(data)
    return target
