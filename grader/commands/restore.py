"""`grader restore FILE DIR`: a backup unpacked into a new folder, ready for `grader serve`."""

from __future__ import annotations

from pathlib import Path

from grader.commands import EXIT_OK


def main(*, file: Path, folder: Path) -> int:
    """Restore the backup `file` into `folder` (new or empty)."""
    from grader.service.backup import restore

    restored = restore(file, folder)
    print(
        f"{restored.course}: restored from {file} ({restored.submissions} submission(s)); "
        f"`grader serve {restored.course}` runs it"
    )
    return EXIT_OK
