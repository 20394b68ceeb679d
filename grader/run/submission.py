"""Turning a submitted folder or .zip into the folder a test runs in."""

from __future__ import annotations

import lzma
import os
import shutil
import stat
import struct
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from grader.errors import UserError
from grader.exercise import Exercise
from grader.inert import inert_name
from grader.run.compiling import CompileLimits, compile_files

MAX_ARCHIVE_MEMBERS = 1000
MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_ARCHIVE_BYTES = 20 * 1024 * 1024
MAX_DEPTH = 8


class SubmissionError(UserError):
    """A submission that cannot be graded at all (unreadable, hostile archive, not found)."""


@dataclass
class Prepared:
    """A submission laid out for running: submitted files, then the given files over them."""

    code_dir: Path
    missing: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    syntax_errors: dict[str, str] = field(default_factory=dict)
    compile_problem: str | None = None  # the grader could not compile the files (its fault)


def _safe_member(name: str) -> PurePosixPath:
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
        raise SubmissionError(f"archive member '{inert_name(name)}' points outside the archive")
    if len(path.parts) > MAX_DEPTH:
        raise SubmissionError(f"archive member '{inert_name(name)}' is nested too deeply")
    return path


# What zipfile (and the decompressors under it) raise on a damaged or hostile archive: a name
# that is not the UTF-8 it claims (UnicodeDecodeError, a ValueError), an encrypted member
# (RuntimeError), an unknown compression method (NotImplementedError), corrupted deflate, bzip2
# or lzma data, a member that ends before its stated size (EOFError), a bad CRC (BadZipFile)...
UNREADABLE_ZIP = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    OSError,
    EOFError,
    RuntimeError,
    NotImplementedError,
    ValueError,
    zlib.error,
    lzma.LZMAError,
    struct.error,
    IndexError,
    KeyError,
    OverflowError,
)
_SPECIAL_FILES = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a folder"),
)


def _not_regular(mode: int) -> str | None:
    """What a file of this mode is when it is not a regular file (None when it is one)."""
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _SPECIAL_FILES if test(mode)), "not a plain file")


def special_kind(path: Path) -> str:
    """What a path that is neither a folder nor a regular file is ("a FIFO", "a socket"...)."""
    try:
        return _not_regular(path.stat().st_mode) or "a regular file"
    except OSError as error:
        return inert_name(error.strerror or type(error).__name__)


def _reason(error: BaseException) -> str:
    """Why zipfile failed, on one line of inert text (its message may quote member names)."""
    if isinstance(error, EOFError):
        return "a file in it ends before its stated size"
    if isinstance(error, UnicodeDecodeError):
        return f"a file name in it is not the UTF-8 it says it is: {error.reason}"
    said = inert_name(str(error)) or type(error).__name__
    return said if len(said) <= 200 else said[:200] + "..."


@contextmanager
def open_archive(archive: Path) -> Iterator[zipfile.ZipFile]:
    """A submitted .zip opened for reading, or a SubmissionError in one line naming it.

    Only a regular file is opened (a FIFO named x.zip would block the open forever): the file is
    opened without blocking and checked by its descriptor, so it cannot be swapped in between.
    Whatever zipfile raises while the archive is read inside this block is a SubmissionError."""
    name = inert_name(archive.name)
    try:
        kind = _not_regular(archive.stat().st_mode)
        if kind is not None:
            raise SubmissionError(f"{name}: not a regular file ({kind})")
        fd = os.open(archive, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise SubmissionError(f"{name}: cannot be read ({inert_name(error.strerror or '')})") from error
    with os.fdopen(fd, "rb") as handle:
        kind = _not_regular(os.fstat(handle.fileno()).st_mode)
        if kind is not None:
            raise SubmissionError(f"{name}: not a regular file ({kind})")
        try:
            with zipfile.ZipFile(handle) as bundle:
                yield bundle
        except UNREADABLE_ZIP as error:
            raise SubmissionError(f"{name}: not a readable .zip file ({_reason(error)})") from error


def _files_from_zip(archive: Path) -> dict[str, bytes]:
    name = inert_name(archive.name)
    with open_archive(archive) as bundle:
        members = bundle.infolist()
        if len(members) > MAX_ARCHIVE_MEMBERS:
            raise SubmissionError(f"{name}: more than {MAX_ARCHIVE_MEMBERS} files")
        total = 0
        files: dict[str, bytes] = {}
        for member in members:
            path = _safe_member(member.filename)
            shown = inert_name(member.filename)
            if member.is_dir():
                continue
            if stat.S_ISLNK(member.external_attr >> 16):
                raise SubmissionError(f"{name}: '{shown}' is a symbolic link")
            if member.flag_bits & 0x1:
                raise SubmissionError(
                    f"{name}: not a readable .zip file ('{shown}' is encrypted: "
                    f"zip it again without a password)"
                )
            if member.file_size > MAX_FILE_BYTES:
                raise SubmissionError(f"{name}: '{shown}' is too large")
            total += member.file_size
            if total > MAX_ARCHIVE_BYTES:
                raise SubmissionError(f"{name}: the archive unpacks to too much data")
            data = bundle.read(member)
            if len(data) > MAX_FILE_BYTES:
                raise SubmissionError(f"{name}: '{shown}' is too large")
            files[str(path)] = data
        return files


def _files_from_folder(folder: Path) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
            continue
        if path.is_symlink():
            continue
        if path.is_file() and len(relative.parts) <= MAX_DEPTH:
            if path.stat().st_size > MAX_FILE_BYTES:
                raise SubmissionError(f"{inert_name(str(path))}: the file is too large")
            files[relative.as_posix()] = path.read_bytes()
    return files


def _pick(files: dict[str, bytes], wanted: str) -> bytes | None:
    """A submitted file at the top, or in exactly one sub-folder (students zip folders)."""
    if wanted in files:
        return files[wanted]
    nested = [name for name in files if PurePosixPath(name).name == wanted]
    return files[nested[0]] if len(nested) == 1 else None


def prepare(
    source: Path,
    exercise: Exercise,
    submit: list[str],
    given: list[str],
    destination: Path,
    overlay: Path | None = None,
    compile_limits: CompileLimits | None = None,
) -> Prepared:
    """Lay out `source` (folder or .zip) in `destination`; `overlay` fills files it lacks.

    The modules are compiled in a child process under `compile_limits` (`grader.run.compiling`),
    never in this one."""
    if not source.exists():
        raise SubmissionError(f"{inert_name(str(source))}: no such file or folder")
    if source.is_dir():
        files = _files_from_folder(source)
    elif source.suffix == ".zip":
        files = _files_from_zip(source)
    else:
        raise SubmissionError(f"{inert_name(str(source))}: a submission is a folder or a .zip file")
    destination.mkdir(parents=True, exist_ok=True)
    prepared = Prepared(code_dir=destination)
    for name in submit:
        data = _pick(files, name)
        if data is None and overlay is not None and (overlay / name).exists():
            data = (overlay / name).read_bytes()
        if data is None:
            prepared.missing.append(name)
            continue
        (destination / name).write_bytes(data)
    wanted = set(submit)
    prepared.ignored = sorted(
        inert_name(n)
        for n in files
        if PurePosixPath(n).name not in wanted and PurePosixPath(n).name not in given
    )
    for name in given:
        origin = exercise.given_file(name)
        if not origin.exists():
            raise SubmissionError(f"{origin}: the given file named in the suite does not exist")
        shutil.copyfile(origin, destination / name)
    modules = {
        name: destination / name
        for name in [*submit, *given]
        if name.endswith(".py") and (destination / name).exists()
    }
    compiled = compile_files(modules, compile_limits)
    prepared.syntax_errors = compiled.errors
    prepared.compile_problem = compiled.problem
    for path in destination.rglob("*"):
        path.chmod(0o700 if path.is_dir() else 0o600)
    destination.chmod(0o700)  # the grader's: its fork server opens it to its tests alone
    return prepared


def files_of(source: Path) -> dict[str, bytes]:
    """The files of a submitted folder or .zip, with the same checks and caps as grading uses."""
    if source.is_dir():
        return _files_from_folder(source)
    return _files_from_zip(source)


def submission_files(source: Path) -> list[Path]:
    """The files of a submitted folder that grading reads (no hidden ones, caches, links)."""
    files = []
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
            continue
        if path.is_file() and not path.is_symlink():
            files.append(path)
    return files


def is_empty(source: Path) -> bool:
    """A folder without a file that grading reads, or a readable .zip without a file."""
    if source.is_dir():
        return not submission_files(source)
    try:
        with open_archive(source) as bundle:
            return not any(not info.is_dir() for info in bundle.infolist())
    except SubmissionError:  # grading says why
        return False
