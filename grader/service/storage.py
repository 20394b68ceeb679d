"""Submitted files, checked and stored durably by content (a .zip named by its SHA-256)."""

from __future__ import annotations

import hashlib
import io
import os
import re
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from grader.errors import UserError
from grader.inert import inert_name, inert_text
from grader.run.submission import MAX_FILE_BYTES, SubmissionError, files_of
from grader.service.setup import MAX_UPLOAD_FILES, private_folder

PLAIN_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$")
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


class UploadError(UserError):
    """An upload that cannot be accepted: one line for the student."""

    status = 400


class UploadTooLarge(UploadError):
    """An upload, or one of its files, over the size the service takes."""

    status = 413


def bundle(files: list[tuple[str, bytes]]) -> tuple[bytes, list[str]]:
    """The submission as one .zip and its file names: one .zip as sent (after the same checks as
    grading), or plain files zipped in a fixed order with fixed times (same files, same bytes)."""
    if not files:
        raise UploadError("no file: send one or more 'files' (or one .zip)")
    if len(files) > MAX_UPLOAD_FILES:
        raise UploadError(f"too many files: at most {MAX_UPLOAD_FILES}")
    names = [name for name, _ in files]
    for name, data in files:
        if not PLAIN_NAME.match(name):
            raise UploadError(
                f"'{inert_text(name)[:100]}' is not a plain file name (letters, "
                f"digits, '_', '-' and '.', no folder)"
            )
        if len(data) > MAX_FILE_BYTES:
            raise UploadTooLarge(f"{name}: larger than {MAX_FILE_BYTES // 2**20} MB")
    if len(set(names)) != len(names):
        raise UploadError("the same file name was sent twice")
    archives = [name for name in names if name.lower().endswith(".zip")]
    if archives:
        if len(files) > 1:
            raise UploadError("send one .zip alone, or plain files without a .zip")
        name, data = files[0]
        with tempfile.TemporaryDirectory(prefix="grader-upload-") as scratch:
            path = Path(scratch) / name  # a plain name (checked above): errors name the upload
            path.write_bytes(data)
            try:
                inside = files_of(path)
            except SubmissionError as error:
                raise UploadError(str(error).replace(f"{scratch}/", "")) from error
        if not inside:
            raise UploadError(f"{name}: the archive holds no file")
        return data, sorted(inert_name(member) for member in inside)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in sorted(files):
            archive.writestr(zipfile.ZipInfo(name, FIXED_TIME), data)
    return buffer.getvalue(), sorted(names)


def file_names_problem(
    assignment: str, expected: list[str], given: list[str], uploaded: list[str], archive: bool
) -> str | None:
    """What is wrong with the names of an upload to `assignment`, whose suite's `submit:` list
    is `expected` (and `given:` the files it provides itself), in one line; None when nothing.

    A file of `expected` must be there as grading finds it (at the top, or in exactly one
    folder of a .zip); plain files must each be one of `expected` (or `given`); a .zip may hold
    more. Names are case-sensitive (as on the graders' machines): a case-different name is
    pointed out.

    >>> print(file_names_problem("a1", ["grid.py"], [], ["Grid.py"], archive=False))
    Grid.py is not a file of a1, which expects grid.py (names are case-sensitive: grid.py, not Grid.py)
    >>> file_names_problem("a1", ["grid.py"], [], ["src/grid.py", "notes.txt"], archive=True)
    """
    wanted = ", ".join(expected)
    for name in uploaded if not archive else []:
        if name not in expected and name not in given:
            return f"{name} is not a file of {assignment}, which expects {wanted}" + _case_hint(
                name, expected
            )
    missing = []
    for name in expected:
        found = [one for one in uploaded if PurePosixPath(one).name == name]
        if name not in uploaded and len(found) > 1:
            return (
                f"{name} is in more than one folder of the .zip ({', '.join(found[:3])}): "
                f"{assignment} expects {wanted}, each once"
            )
        if not found:
            missing.append(name)
    if not missing:
        return None
    listed = ", ".join(missing)
    where = "the .zip" if archive else "the upload"
    hints = "".join(
        _case_hint(PurePosixPath(one).name, missing)
        for one in uploaded
        if PurePosixPath(one).name not in expected
    )[:300]
    return f"{listed} missing from {where}: {assignment} expects {wanted}{hints}"


def _case_hint(name: str, expected: list[str]) -> str:
    same = [one for one in expected if one.lower() == name.lower() and one != name]
    return f" (names are case-sensitive: {same[0]}, not {name})" if same else ""


def blob_path(state: Path, sha: str) -> Path:
    return state / "blobs" / sha[:2] / f"{sha}.zip"


def store_blob(state: Path, data: bytes) -> str:
    """Write `data` under its SHA-256 (once; fsynced, then renamed in place; 0600 in folders
    0700, as mkstemp creates it); returns the hash."""
    sha = hashlib.sha256(data).hexdigest()
    write_durably(state, blob_path(state, sha), data)
    return sha


def write_durably(state: Path, path: Path, data: bytes) -> None:
    """Write `data` at `path` under the service's folder `state`, once (a file of that size
    there is kept): fsynced, renamed in place, the folder fsynced; 0600 in folders 0700."""
    if path.is_file() and path.stat().st_size == len(data):
        return
    private_folder(path.parent, state)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".incoming-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
