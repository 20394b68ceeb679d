"""A class roster: a CSV with a `submission` column naming each student's folder or .zip."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias

from grader.errors import UserError
from grader.inert import inert_name, inert_text
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
    return inert_name(name[:-4] if name.endswith(".zip") else name)


Record: TypeAlias = tuple[int, list[str]]
"""A CSV record: the line where it ends, and its cells."""


def read_table(path: Path, key_column: str, error_type: type[UserError]) -> tuple[list[str], list[Record]]:
    """A roster-like CSV's header (cells stripped) and records (blank lines left out), read
    whole; every problem is one `error_type` line naming the file (and line)."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise error_type(f"{path}: cannot read the roster ({error.strerror or error})") from error
    if len(data) > MAX_ROSTER_BYTES:
        raise error_type(f"{path}: the roster is larger than {MAX_ROSTER_BYTES // 2**20} MB")
    try:
        text = data.decode("utf-8-sig")  # spreadsheets often start their UTF-8 with a BOM
    except UnicodeDecodeError as error:
        raise error_type(
            f"{path}: the roster is not UTF-8 text (byte {error.start}); save it as CSV UTF-8"
        ) from error
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        records = [(reader.line_num, record) for record in reader if any(cell.strip() for cell in record)]
    except csv.Error as error:
        raise error_type(f"{path}:{reader.line_num}: not a readable CSV file ({error})") from error
    if not records:
        raise error_type(f"{path}: the roster is empty; it needs a header with a '{key_column}' column")
    header = [cell.strip() for cell in records[0][1]]
    if key_column not in header:
        raise error_type(
            f"{path}:1: the header has no '{key_column}' column (it has: {inert_text(', '.join(header))})"
        )
    for line, record in records[1:]:
        if len(record) != len(header):
            raise error_type(f"{path}:{line}: {len(record)} cells where the header has {len(header)}")
    return header, records[1:]


def read_roster(path: Path, reserved: list[str]) -> Roster:
    """Read a roster; every problem is one RosterError line naming the file (and row)."""
    header, records = read_table(path, SUBMISSION_COLUMN, RosterError)
    problems = [name for name in header if not name or header.count(name) > 1 or name in reserved]
    if problems:
        raise RosterError(
            f"{path}:1: column names must be unique, non-empty and other than "
            f"{', '.join(reserved)} (found '{inert_text(problems[0])}')"
        )
    where = header.index(SUBMISSION_COLUMN)
    roster = Roster(columns=[inert_text(name) for i, name in enumerate(header) if i != where])
    for line, record in records:
        key = roster_key(record[where])
        if not key:
            raise RosterError(f"{path}:{line}: the '{SUBMISSION_COLUMN}' cell is empty")
        if key in roster.rows:
            raise RosterError(f"{path}:{line}: submission '{key}' is listed twice")
        roster.rows[key] = [cell for i, cell in enumerate(record) if i != where]
    return roster
