"""The gradebook: every graded attempt of a batch in one SQLite file, `gradebook.sqlite`.

Only the batch's main process writes it, one transaction per attempt, so an interrupted batch
keeps every attempt it finished. Student text is always a bound parameter, never SQL.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.errors import UserError
from grader.inert import inert_text

GRADEBOOK_NAME = "gradebook.sqlite"
SCHEMA_VERSION = "1"

SCHEMA = """
CREATE TABLE IF NOT EXISTS about (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS attempts (
    attempt INTEGER PRIMARY KEY AUTOINCREMENT,
    student TEXT NOT NULL,
    exercise TEXT NOT NULL,
    suite_fingerprint TEXT NOT NULL,
    expectations_fingerprint TEXT NOT NULL,
    submission_hash TEXT NOT NULL,
    grader_version TEXT NOT NULL,
    status TEXT NOT NULL,
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    notes TEXT NOT NULL,
    graded_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS attempts_by_student ON attempts (student, attempt);
CREATE TABLE IF NOT EXISTS keys (key TEXT PRIMARY KEY, attempt INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tests (
    attempt INTEGER NOT NULL REFERENCES attempts (attempt),
    position INTEGER NOT NULL,
    test TEXT NOT NULL,
    kind TEXT NOT NULL,
    verdict TEXT NOT NULL,
    points REAL NOT NULL,
    max_points REAL NOT NULL,
    cpu_s REAL NOT NULL,
    wall_s REAL NOT NULL,
    peak_mb REAL NOT NULL,
    resident_mb REAL NOT NULL,
    output TEXT NOT NULL,
    question TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (attempt, position)
);
"""

IDENTITY_KEYS = (
    "exercise",
    "suite_fingerprint",
    "expectations_fingerprint",
    "submission_hash",
    "grader_version",
)


class GradebookError(UserError):
    """A gradebook that belongs elsewhere or cannot be read."""


@dataclass
class TestRow:
    test: str
    kind: str
    verdict: str
    points: float
    max_points: float
    cpu_s: float
    wall_s: float
    peak_mb: float
    resident_mb: float
    output: str
    question: str = ""  # the question of the suite the test belongs to ('' if none declared)


@dataclass
class Attempt:
    """One grading of one student's submission."""

    attempt: int
    student: str
    identity: dict[str, str]
    status: str
    score: float
    max_score: float
    notes: str
    graded_at: str
    tests: list[TestRow] = field(default_factory=list)
    boundary: str = ""  # the sandbox level and what its tests got (results.json's extra_data)
    question_titles: dict[str, str] = field(default_factory=dict)  # by id, in the suite's order
    hidden_points_not_run: float = 0.0  # hidden tests' points still to be graded (a --public run)


def attempt_from_results(
    student: str, identity: dict[str, str], status: str, data: dict[str, Any], graded_at: str
) -> Attempt:
    """An attempt from Gradescope's results.json of the grading (texts already inert)."""
    tests = []
    for test in data["tests"]:
        extra = test.get("extra_data", {})
        tests.append(
            TestRow(
                test=test["name"],
                kind=str(extra.get("kind", "call")),
                verdict=str(extra.get("verdict", "")),
                points=float(test["score"]),
                max_points=float(test["max_score"]),
                cpu_s=float(extra.get("cpu_s", 0.0)),
                wall_s=float(extra.get("wall_s", 0.0)),
                peak_mb=float(extra.get("peak_mb") or 0.0),
                resident_mb=float(extra.get("resident_mb", 0.0)),
                output=str(test.get("output", "")),
                question=str(extra.get("question", "") or ""),
            )
        )
    return Attempt(
        attempt=0,
        student=student,
        identity=identity,
        status=status,
        score=float(data["score"]),
        max_score=float(data["extra_data"]["max_score"]),
        notes=str(data.get("output", "")),
        graded_at=graded_at,
        tests=tests,
        boundary=_boundary_of(data),
        question_titles=_question_titles(data),
        hidden_points_not_run=float(data["extra_data"].get("hidden_points_not_run", 0.0)),
    )


def _question_titles(data: dict[str, Any]) -> dict[str, str]:
    questions = data.get("extra_data", {}).get("questions", [])
    return {str(question["id"]): str(question.get("title") or question["id"]) for question in questions}


def _boundary_of(data: dict[str, Any]) -> str:
    extra = data.get("extra_data", {})
    sandbox, boundary = str(extra.get("sandbox", "") or ""), str(extra.get("boundary", "") or "")
    return f"{sandbox}: {boundary}" if sandbox and boundary else sandbox or boundary


def _create_closed(path: Path) -> None:
    """A new gradebook file is the grader's alone (0600; SQLite gives its journal the same)."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))


class Gradebook:
    """The gradebook of one --out folder, for one exercise."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            _create_closed(path)
            self.connection = sqlite3.connect(path, isolation_level=None)
            self.connection.executescript(SCHEMA)
            columns = {row[1] for row in self.connection.execute("PRAGMA table_info(attempts)")}
            if "boundary" not in columns:  # gradebooks written before the boundary was recorded
                self.connection.execute("ALTER TABLE attempts ADD COLUMN boundary TEXT NOT NULL DEFAULT ''")
            test_columns = {row[1] for row in self.connection.execute("PRAGMA table_info(tests)")}
            if "question" not in test_columns:  # gradebooks written before questions were kept
                self.connection.execute("ALTER TABLE tests ADD COLUMN question TEXT NOT NULL DEFAULT ''")
        except (sqlite3.Error, OSError) as error:
            raise GradebookError(f"{path}: not a usable gradebook ({error})") from error

    @classmethod
    def of(cls, out: Path) -> Gradebook:
        return cls(out / GRADEBOOK_NAME)

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> Gradebook:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def exercise(self) -> str | None:
        row = self.connection.execute("SELECT value FROM about WHERE key = 'exercise'").fetchone()
        return str(row[0]) if row else None

    def claim(self, exercise: str) -> None:
        """Mark the gradebook as `exercise`'s; one holding another exercise is a GradebookError."""
        owner = self.exercise()
        if owner is not None and owner != exercise:
            raise GradebookError(
                f"{self.path}: this --out holds the grades of exercise "
                f"'{inert_text(owner)}', not '{exercise}'; choose another --out"
            )
        with self.connection:
            self.connection.execute("INSERT OR IGNORE INTO about VALUES ('exercise', ?)", (exercise,))
            self.connection.execute("INSERT OR IGNORE INTO about VALUES ('schema', ?)", (SCHEMA_VERSION,))

    def add(self, attempt: Attempt, key: str | None = None) -> int:
        """Store one attempt and its tests in one transaction; returns its number. With a `key`
        (the service's submission and grading), an attempt already stored under it is kept and
        its number returned: a grading repeated after a crash is stored once."""
        identity = [attempt.identity[name] for name in IDENTITY_KEYS]
        connection = self.connection
        try:
            connection.execute("BEGIN IMMEDIATE")
            if key is not None:
                row = connection.execute("SELECT attempt FROM keys WHERE key = ?", (key,)).fetchone()
                if row is not None:
                    connection.execute("COMMIT")
                    attempt.attempt = int(row[0])
                    return attempt.attempt
            cursor = connection.execute(
                "INSERT INTO attempts (student, exercise, suite_fingerprint, "
                "expectations_fingerprint, submission_hash, grader_version, status, score, "
                "max_score, notes, graded_at, boundary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    attempt.student,
                    *identity,
                    attempt.status,
                    attempt.score,
                    attempt.max_score,
                    attempt.notes,
                    attempt.graded_at,
                    attempt.boundary,
                ),
            )
            number = int(cursor.lastrowid or 0)
            connection.executemany(
                "INSERT INTO tests (attempt, position, test, kind, verdict, points, max_points, "
                "cpu_s, wall_s, peak_mb, resident_mb, output, question) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        number,
                        position,
                        t.test,
                        t.kind,
                        t.verdict,
                        t.points,
                        t.max_points,
                        t.cpu_s,
                        t.wall_s,
                        t.peak_mb,
                        t.resident_mb,
                        t.output,
                        t.question,
                    )
                    for position, t in enumerate(attempt.tests)
                ],
            )
            if key is not None:
                connection.execute("INSERT INTO keys VALUES (?, ?)", (key, number))
            connection.execute("COMMIT")
        except BaseException:
            # A Ctrl-C can land after COMMIT: the attempt is stored then, and there is nothing to
            # roll back (a ROLLBACK would raise over the interrupt).
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
        attempt.attempt = number
        return number

    def keyed(self, key: str) -> Attempt | None:
        """The attempt stored under `key` (`add(attempt, key)`), if any."""
        row = self.connection.execute(
            "SELECT attempts.* FROM keys JOIN attempts USING (attempt) WHERE key = ?", (key,)
        ).fetchone()
        return self._attempt(row) if row is not None else None

    def history(self, student: str, count: int = 2) -> list[Attempt]:
        """The student's last `count` attempts (-1: all of them), newest first."""
        rows = self.connection.execute(
            "SELECT * FROM attempts WHERE student = ? ORDER BY attempt DESC LIMIT ?", (student, count)
        ).fetchall()
        return [self._attempt(row) for row in rows]

    def latest(self, students: Iterable[str] | None = None) -> dict[str, Attempt]:
        """Each student's newest attempt (only `students`, when given)."""
        rows = self.connection.execute(
            "SELECT * FROM attempts WHERE attempt IN (SELECT MAX(attempt) FROM attempts "
            "GROUP BY student) ORDER BY student"
        ).fetchall()
        wanted = set(students) if students is not None else None
        return {row[1]: self._attempt(row) for row in rows if wanted is None or row[1] in wanted}

    def attempt_count(self, student: str) -> int:
        row = self.connection.execute(
            "SELECT COUNT(*) FROM attempts WHERE student = ?", (student,)
        ).fetchone()
        return int(row[0])

    def students(self) -> list[str]:
        rows = self.connection.execute("SELECT DISTINCT student FROM attempts ORDER BY student")
        return [str(row[0]) for row in rows]

    def _attempt(self, row: tuple[Any, ...]) -> Attempt:
        (
            number,
            student,
            exercise,
            suite_fp,
            expected_fp,
            submission,
            version,
            status,
            score,
            max_score,
            notes,
            graded_at,
            boundary,
        ) = row
        identity = dict(
            zip(IDENTITY_KEYS, (exercise, suite_fp, expected_fp, submission, version), strict=True)
        )
        tests = [
            TestRow(*values)
            for values in self.connection.execute(
                "SELECT test, kind, verdict, points, max_points, cpu_s, wall_s, peak_mb, resident_mb, "
                "output, question FROM tests WHERE attempt = ? ORDER BY position",
                (number,),
            )
        ]
        return Attempt(
            attempt=number,
            student=student,
            identity=identity,
            status=status,
            score=score,
            max_score=max_score,
            notes=notes,
            graded_at=graded_at,
            tests=tests,
            boundary=boundary,
        )


@dataclass
class Change:
    """A student whose score changed between their last two attempts, and the tests that did."""

    student: str
    before: Attempt
    after: Attempt
    tests: list[tuple[str, TestRow | None, TestRow | None]]  # name, before, after


def changes(book: Gradebook) -> list[Change]:
    """Whose score changed between the last grading and the one before it of the same
    submission (a regrade: a new submission is not a change), and which tests caused it."""
    found = []
    for student in book.students():
        after, *earlier = book.history(student, count=-1)
        submitted = after.identity.get("submission_hash")
        before = next(
            (attempt for attempt in earlier if attempt.identity.get("submission_hash") == submitted), None
        )
        if submitted is None or before is None or before.score == after.score:
            continue
        found.append(change(student, before, after))
    return found


def change(student: str, before: Attempt, after: Attempt) -> Change:
    """The tests whose points differ between two gradings."""
    old = {t.test: t for t in before.tests}
    new = {t.test: t for t in after.tests}
    names = [t.test for t in after.tests] + [n for n in old if n not in new]
    moved = [
        (name, old.get(name), new.get(name))
        for name in names
        if (old[name].points if name in old else None) != (new[name].points if name in new else None)
    ]
    return Change(student=student, before=before, after=after, tests=moved)


def _points(row: TestRow | None) -> str:
    return "absent" if row is None else f"{row.verdict} {row.points:g}/{row.max_points:g}"


def change_lines(found: list[Change]) -> list[str]:
    """One line per student whose score changed, then one indented line per test that moved
    (`grader gradebook --changes` and the service's regrade page)."""
    lines = []
    for moved in found:
        lines.append(
            f"{moved.student}: {moved.before.score:g}/{moved.before.max_score:g} -> "
            f"{moved.after.score:g}/{moved.after.max_score:g} (graded "
            f"{moved.before.graded_at} -> {moved.after.graded_at})"
        )
        lines += [f"  {name}: {_points(before)} -> {_points(after)}" for name, before, after in moved.tests]
    return lines
