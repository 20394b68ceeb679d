"""`grader backup COURSE FILE`: the course's database, submissions, gradebooks and files in one
archive, taken while the service runs."""

from __future__ import annotations

from pathlib import Path

from grader.commands import EXIT_OK


def main(*, course: Path, file: Path) -> int:
    """Write `course`'s backup to `file` (a .tar.gz, 0600: it holds the secret key)."""
    from grader.service.backup import backup

    count = backup(course, file)
    print(f"{file}: backup of {course} ({count} submission(s)); `grader restore {file} DIR` restores it")
    return EXIT_OK
