"""--roster: hostile rosters are one clear line; roster columns go in front of grades.csv."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from grader.report.roster import RosterError, read_roster
from tests.toy_class import RIGHT, WRONG, add, grade_class, make_toy

RESERVED = ["student", "status", "score", "max_score"]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "the roster is empty"),
        (b"id,name\n1,ada\n", ":1: the header has no 'submission' column"),
        (b"submission,id,id\nada,1,2\n", "column names must be unique"),
        (b"submission,score\nada,1\n", "column names must be unique"),
        (b"submission,id\nada,1\nada.zip,2\n", ":3: submission 'ada' is listed twice"),
        (b"submission\nada\n\n\nada\n", ":5: submission 'ada' is listed twice"),
        (b"submission,id\nada,1,extra\n", ":2: 3 cells where the header has 2"),
        (b"submission,id\n,1\n", ":2: the 'submission' cell is empty"),
        (b"submission,name\nada,\xe9l\xe8ve\n", "not UTF-8"),
        (b'submission,name\nada,"unclosed\n', "not a readable CSV"),
    ],
)
def test_a_bad_roster_is_one_line_naming_it(tmp_path: Path, content: bytes, problem: str) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_bytes(content)
    with pytest.raises(RosterError) as raised:
        read_roster(roster, RESERVED)
    message = str(raised.value)
    assert message.startswith(str(roster)) and problem in message and "\n" not in message


def test_a_spreadsheet_roster_with_bom_and_zip_names_reads(tmp_path: Path) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_bytes("\ufeffid,submission,email\r\n7,ada.zip ,ada@x\r\n\r\n8,bob,bob@x\r\n".encode())
    read = read_roster(roster, RESERVED)
    assert read.columns == ["id", "email"]
    assert read.rows == {"ada": ["7", "ada@x"], "bob": ["8", "bob@x"]}


def test_roster_columns_statuses_and_strangers(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Formula cells stay text, a student without submission is `missing`, strangers listed."""
    make_toy(project)
    folder = tmp_path / "class"
    add(folder, "ada", RIGHT)
    add(folder, "bob", WRONG, as_zip=True)
    add(folder, "zed", RIGHT)
    roster = tmp_path / "roster.csv"
    roster.write_text(
        'id,submission,name\n=HYPERLINK("http://x"),bob,"Bob, Jr."\n2,ada,@SUM(A1)\n3,cy,\x1b[31mCy\n'
    )
    out = tmp_path / "out"
    assert grade_class(folder, out, roster=roster) == 0
    assert "warning: not in the roster" in capsys.readouterr().err
    rows = list(csv.reader((out / "grades.csv").open()))
    assert rows[0][:6] == ["id", "name", "student", "status", "score", "max_score"]
    by_student = {row[2]: row for row in rows[1:]}
    assert [row[2] for row in rows[1:]] == ["bob", "ada", "cy", "zed"]  # roster order, then strangers
    assert by_student["bob"][:4] == ['\'=HYPERLINK("http://x")', "Bob, Jr.", "bob", "graded"]
    assert by_student["ada"][1] == "'@SUM(A1)" and by_student["ada"][4] == "3"
    assert by_student["cy"][1:5] == ["\\x1b[31mCy", "cy", "missing", "0"]
    assert by_student["zed"][:2] == ["", ""] and by_student["zed"][3] == "graded"
