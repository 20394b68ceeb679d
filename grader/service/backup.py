"""A course's backup (`grader backup`) and its restore into a new folder (`grader restore`).

A backup is a .tar.gz holding the course file and its roster (and suites kept in the course's
folder), the SQLite database, and the service's folder: its secret key (the tokens and sessions
are keyed by it), every gradebook and every submission's .zip. It is taken while the service
runs: the database first (SQLite's online backup API: one consistent snapshot), then the
gradebooks (also by the backup API), then the blobs. The service writes a blob before the row that
names it and a grading into its gradebook before the row says graded, so whatever the database's
snapshot holds, the later copies hold too; a job running at the snapshot is queued again by the
restored service and its gradebook keeps one attempt per grading.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import tarfile
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from grader.errors import UserError
from grader.service.course import Course, load_course

MANIFEST = "grader-backup.json"
FORMAT = 1
PRIVATE_FOLDER, PRIVATE_FILE = 0o700, 0o600


class BackupError(UserError):
    """A backup or restore that cannot be done: one line naming the file and what is wrong."""


@dataclass(frozen=True)
class Restored:
    course: Path
    submissions: int


def _inside(path: Path, folder: Path) -> Path | None:
    """`path` relative to `folder`, if it lies there."""
    try:
        return path.resolve().relative_to(folder.resolve())
    except ValueError:
        return None


def _sqlite_copy(source: Path, target: Path) -> None:
    """A consistent copy of a live SQLite database (the online backup API, one step)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    live, copy = sqlite3.connect(source, timeout=60), sqlite3.connect(target)
    try:
        live.backup(copy)
    finally:
        copy.close()
        live.close()


def _count(database: Path) -> int:
    """How many submissions a copy of the service's database holds."""
    db = sqlite3.connect(database)
    try:
        return int(db.execute("SELECT COUNT(*) FROM service_submission").fetchone()[0])
    finally:
        db.close()


def _course_files(course: Course) -> list[tuple[Path, Path]]:
    """The course's own files: the course file, the roster and suites in its folder, each with
    its place in the backup."""
    wanted = [course.path, course.folder / course.spec.roster]
    for assignment in course.spec.assignments:
        if assignment.exercise.endswith((".yaml", ".yml")):
            wanted.append((course.folder / assignment.exercise).parent)
    files = []
    for path in wanted:
        relative = _inside(path, course.folder)
        if relative is None:
            raise BackupError(
                f"{course.path}: {path} lies outside the course's folder: keep the roster and "
                f"suites beside the course file to back it up"
            )
        files.append((path, Path("course") / relative))
    return files


def backup(course_path: Path, target: Path) -> int:
    """Write a backup of the course at `course_path` to `target`; returns how many submissions
    its database held."""
    if not course_path.is_file():
        raise BackupError(f"{course_path}: no such course file")
    course = load_course(course_path, check_suites=False)
    if "://" in course.database:
        raise BackupError(
            f"{course_path}: database: {course.database.split('://')[0]}://...: `grader backup` "
            f"copies SQLite databases only; back a PostgreSQL course up with pg_dump and a copy "
            f"of {course.state.name}/"
        )
    database = Path(course.database)
    if not database.is_file():
        raise BackupError(f"{database}: no database: the service has not run on this course yet")
    if not target.parent.is_dir():
        raise BackupError(f"{target}: its folder {target.parent} does not exist")
    with tempfile.TemporaryDirectory(prefix="grader-backup-") as staging_name:
        staging = Path(staging_name)
        state = Path("course") / course.state.name
        _sqlite_copy(database, staging / "database.sqlite")
        count = _count(staging / "database.sqlite")
        books = course.state / "gradebooks"
        for book in sorted(books.glob("*/gradebook.sqlite")) if books.is_dir() else []:
            _sqlite_copy(book, staging / state / "gradebooks" / book.parent.name / book.name)
        blobs = course.state / "blobs"
        for blob in sorted(blobs.glob("*/*.zip")) if blobs.is_dir() else []:
            place = staging / state / "blobs" / blob.parent.name / blob.name
            place.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(blob, place)
        (staging / state).mkdir(parents=True, exist_ok=True)
        if (course.state / "secret_key").is_file():
            shutil.copyfile(course.state / "secret_key", staging / state / "secret_key")
        manifest = {
            "format": FORMAT,
            "course": course.path.name,
            "database": str(_inside(database, course.folder) or "") or None,
            "submissions": count,
            "taken_at": datetime.now(UTC).isoformat(),
        }
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=1))
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=".backup-")
        try:
            with os.fdopen(fd, "wb") as handle, tarfile.open(fileobj=handle, mode="w:gz") as archive:
                archive.add(staging / MANIFEST, MANIFEST)
                archive.add(staging / "database.sqlite", "database.sqlite")
                skipped = {database.name, f"{database.name}-wal", f"{database.name}-shm", course.state.name}

                def not_the_service(member: tarfile.TarInfo) -> tarfile.TarInfo | None:
                    # a suite kept in the course's folder itself: not its database nor service
                    parts = Path(member.name).parts
                    return None if len(parts) > 1 and parts[1] in skipped else member

                for source, inside in _course_files(course):
                    archive.add(source, str(inside), filter=not_the_service)
                archive.add(staging / state, str(state))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    return count


def _opened(source: Path) -> tarfile.TarFile:
    try:
        return tarfile.open(source, mode="r:*")
    except (tarfile.TarError, OSError) as failure:
        raise BackupError(f"{source}: not a grader backup (not a .tar.gz archive)") from failure


def _manifest(archive: tarfile.TarFile, source: Path) -> dict[str, object]:
    try:
        member = archive.extractfile(MANIFEST)
        data = json.loads(member.read()) if member is not None else None
    except (KeyError, ValueError, tarfile.TarError, OSError):
        data = None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("course"), str):
        raise BackupError(f"{source}: not a grader backup (no {MANIFEST} of format {FORMAT})")
    return data


def restore(source: Path, folder: Path) -> Restored:
    """Unpack the backup `source` into `folder` (new or empty): the course file there, its
    database beside it as the course file names it, the service's folder; all private."""
    if not source.is_file():
        raise BackupError(f"{source}: no such file")
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise BackupError(f"{folder}: not an empty folder: restore into a new or empty one")
    with _opened(source) as archive:
        manifest = _manifest(archive, source)
        names = archive.getnames()
        if "database.sqlite" not in names or not all(
            name in (MANIFEST, "database.sqlite") or name == "course" or name.startswith("course/")
            for name in names
        ):
            raise BackupError(f"{source}: not a grader backup (unexpected members)")
        folder.mkdir(parents=True, exist_ok=True)
        folder.chmod(PRIVATE_FOLDER)
        with tempfile.TemporaryDirectory(dir=folder, prefix=".restore-") as unpacking:
            try:
                archive.extractall(unpacking, filter="data")
            except (tarfile.TarError, OSError) as failure:
                raise BackupError(f"{source}: a damaged backup ({failure})") from failure
            unpacked = Path(unpacking)
            for item in (unpacked / "course").iterdir():
                os.replace(item, folder / item.name)
            course_path = folder / str(manifest["course"])
            database = _database_place(course_path, manifest)
            database.parent.mkdir(parents=True, exist_ok=True)
            os.replace(unpacked / "database.sqlite", database)
    for root, subfolders, files in os.walk(folder):
        for name in subfolders:
            (Path(root) / name).chmod(PRIVATE_FOLDER)
        for name in files:
            (Path(root) / name).chmod(PRIVATE_FILE)
    return Restored(course_path, _count(database))


DATABASE_LINE = re.compile(r"^database:.*$", re.MULTILINE)


def _database_place(course_path: Path, manifest: dict[str, object]) -> Path:
    """Where the restored database goes: the course file's `database:` when it named a path in
    its folder; else (an absolute path elsewhere) the default beside the course file, its
    `database:` line commented out."""
    named = manifest.get("database")
    if isinstance(named, str) and named:
        return course_path.parent / named
    text = course_path.read_text()
    if DATABASE_LINE.search(text):
        course_path.write_text(
            DATABASE_LINE.sub(lambda line: f"# {line.group(0)}  (restored: the default, beside)", text)
        )
    return course_path.parent / f"{course_path.stem}.sqlite"
