"""A class roster: a CSV with a `submission` column naming each student's folder or .zip."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

from grader.inert import inert_text
from grader.run.submission import SubmissionError

SUBMISSION_COLUMN = "submission"
MAX_ROSTER_BYTES = 16 * 1024 * 1024


class RosterError(SubmissionError):
    """A roster that cannot be read as one."""


@dataclass
class Roster:
    """The roster's other columns (file order) and each submission's values for them."""

    columns: list[str] = field(default_factory=list)
    rows: dict[str, list[str]] = field(default_factory=dict)


def roster_key(cell: str) -> str:
    """The student id a roster cell names: spaces around it and a final .zip dropped.

    >>> roster_key(" ada.zip "), roster_key("bob")
    ('ada', 'bob')
    """
    name = cell.strip()
    return inert_text(name[:-4] if name.endswith(".zip") else name)


def read_roster(path: Path, reserved: list[str]) -> Roster:
    """Read a roster; every problem is one RosterError line naming the file (and row)."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise RosterError(f"{path}: cannot read the roster ({error.strerror or error})") from error
    if len(data) > MAX_ROSTER_BYTES:
        raise RosterError(f"{path}: the roster is larger than {MAX_ROSTER_BYTES // 2**20} MB")
    try:
        text = data.decode("utf-8-sig")  # spreadsheets often start their UTF-8 with a BOM
    except UnicodeDecodeError as error:
        raise RosterError(f"{path}: the roster is not UTF-8 text (byte {error.start}); save it "
                          f"as CSV UTF-8") from error
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:  # (line where the record ends, cells), blank lines left out
        records = [(reader.line_num, record) for record in reader
                   if any(cell.strip() for cell in record)]
    except csv.Error as error:
        raise RosterError(f"{path}:{reader.line_num}: not a readable CSV file ({error})") from error
    if not records:
        raise RosterError(f"{path}: the roster is empty; it needs a header with a "
                          f"'{SUBMISSION_COLUMN}' column")
    header = [cell.strip() for cell in records[0][1]]
    if SUBMISSION_COLUMN not in header:
        raise RosterError(f"{path}:1: the header has no '{SUBMISSION_COLUMN}' column (it has: "
                          f"{inert_text(', '.join(header))})")
    problems = [name for name in header if not name or header.count(name) > 1 or name in reserved]
    if problems:
        raise RosterError(f"{path}:1: column names must be unique, non-empty and other than "
                          f"{', '.join(reserved)} (found '{inert_text(problems[0])}')")
    where = header.index(SUBMISSION_COLUMN)
    roster = Roster(columns=[inert_text(name) for i, name in enumerate(header) if i != where])
    for line, record in records[1:]:
        if len(record) != len(header):
            raise RosterError(f"{path}:{line}: {len(record)} cells where the header has "
                              f"{len(header)}")
        key = roster_key(record[where])
        if not key:
            raise RosterError(f"{path}:{line}: the '{SUBMISSION_COLUMN}' cell is empty")
        if key in roster.rows:
            raise RosterError(f"{path}:{line}: submission '{key}' is listed twice")
        roster.rows[key] = [cell for i, cell in enumerate(record) if i != where]
    return roster
