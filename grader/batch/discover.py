"""Finding a class's submissions: every sub-folder or .zip of a folder, and nothing silently."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from grader.inert import inert_name
from grader.run.submission import SubmissionError, open_archive, special_kind

# Files a batch writes at the top of --out, beside one folder per student.
RESERVED_NAMES = frozenset(
    {"grades.csv", "summary.html", "gradebook.sqlite", "gradebook.sqlite-journal", "gradebook.sqlite-wal"}
)


class BatchInputError(SubmissionError):
    """A class folder that cannot be graded as it is (a collision, a single submission...)."""


@dataclass
class Discovery:
    """The submissions of a class folder (student id -> path) and every entry left out."""

    submissions: dict[str, Path] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # "name: why", inert


def student_id(entry: Path) -> str:
    """The id of a submission: its folder name, or its .zip name without .zip, as an inert
    name (on one line: a newline in a folder's name would start a line of the student's choosing).

    >>> student_id(Path("class/ada.zip")), student_id(Path("class/bo\\x1bb"))
    ('ada', 'bo\\\\x1bb')
    """
    name = entry.name[:-4] if entry.name.endswith(".zip") and not entry.is_dir() else entry.name
    return inert_name(name)


def discover(folder: Path, submit: list[str]) -> Discovery:
    """The submissions of `folder`; a name collision or a lone submission is a BatchInputError."""
    if not folder.is_dir():
        raise SubmissionError(f"{folder}: a batch is a folder of submissions (folders or .zip)")
    found = Discovery()
    owners: dict[str, Path] = {}
    for entry in sorted(folder.iterdir()):
        shown = inert_name(entry.name)
        if entry.name.startswith("."):
            found.skipped.append(f"{shown}: hidden")
        elif entry.is_symlink():
            found.skipped.append(f"{shown}: a symbolic link")
        elif entry.suffix == ".zip" and not entry.is_dir() and not entry.is_file():
            found.skipped.append(f"{shown}: not a regular file ({special_kind(entry)})")
        elif entry.is_dir() or (entry.suffix == ".zip" and entry.is_file()):
            student = student_id(entry)
            if student in owners:
                raise BatchInputError(
                    f"{folder}: '{inert_name(owners[student].name)}' and '{shown}' are both "
                    f"submissions of '{student}'; keep one of them and grade again"
                )
            if student in RESERVED_NAMES:
                raise BatchInputError(
                    f"{entry}: '{student}' is the name of a file the batch "
                    f"writes in --out; rename the submission"
                )
            owners[student] = entry
        else:
            found.skipped.append(f"{shown}: not a folder or a .zip")
    found.submissions = dict(owners)
    loose = [name for name in submit if (folder / name).is_file()]
    if loose and not any(holds_submitted_file(path, submit) for path in owners.values()):
        raise BatchInputError(
            f"{folder}: holds {', '.join(loose)} itself, so it is one submission, not a class; "
            f"grade it with `grader grade` (without --batch)"
        )
    return found


def holds_submitted_file(path: Path, submit: list[str]) -> bool:
    """Whether a folder or .zip holds one of the files a student submits (at any depth)."""
    wanted = set(submit)
    try:
        if path.is_dir():
            return any(item.name in wanted for item in path.rglob("*") if item.is_file())
        with open_archive(path) as bundle:
            return any(PurePosixPath(name).name in wanted for name in bundle.namelist())
    except (OSError, SubmissionError):
        return False


def looks_like_a_class(folder: Path, submit: list[str]) -> bool:
    """A folder without the submitted files of its own but with sub-folders or zips holding them."""
    if not folder.is_dir() or any((folder / name).is_file() for name in submit):
        return False
    holders = [
        entry
        for entry in folder.iterdir()
        if not entry.name.startswith(".")
        and (entry.is_dir() or entry.suffix == ".zip")
        and holds_submitted_file(entry, submit)
    ]
    return len(holders) >= 2
