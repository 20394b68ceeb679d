"""`grader backup COURSE FILE` and `grader restore FILE DIR` (issue 30): a backup taken during a
burst, restored into a new folder, where the service shows every submission and grade; bad input
is one line and exit 3."""

from __future__ import annotations

import io
import json
import stat
import tarfile
from pathlib import Path

import pytest

from tests.grader.service.conftest import (
    REFERENCE,
    STUB,
    grader,
    running,
    signed_in,
    tokens,
    write_course,
)

STUDENTS = ["bob", "carol", "dave", "erin"]


@pytest.mark.slow
def test_a_backup_during_a_burst_restores_every_submission_and_grade(tmp_path: Path) -> None:
    course = write_course(tmp_path / "live")
    keys = tokens(course)
    before: list[tuple[str, str]] = []
    everyone: list[tuple[str, str]] = []
    with running(course) as service:
        for index, login in enumerate(STUDENTS * 2):
            code = REFERENCE if index % 2 else STUB
            reply = service.post("open", [("grid.py", code.read_bytes())], keys[login])
            assert reply.status_code == 202, reply.text
            everyone.append((login, reply.json()["id"]))
            if index == 3:  # in the middle of the burst, jobs queued and running
                before = list(everyone)
                taken = grader("backup", str(course), str(tmp_path / "middle.tar.gz"))
                assert taken.returncode == 0, taken.stderr
                assert "(4 submission(s))" in taken.stdout
        graded = {ident: service.wait(ident, keys["alice"]) for _, ident in everyone}
        final = grader("backup", str(course), str(tmp_path / "final.tar.gz"))
        assert final.returncode == 0, final.stderr
        grades = signed_in(service.url, keys["alice"]).get(f"{service.url}/instructor/open/grades.csv").text
    assert stat.S_IMODE((tmp_path / "final.tar.gz").stat().st_mode) == 0o600
    for name, expected in (("middle", before), ("final", everyone)):
        folder = tmp_path / f"restored-{name}"
        done = grader("restore", str(tmp_path / f"{name}.tar.gz"), str(folder))
        assert done.returncode == 0, done.stderr
        assert f"({len(expected)} submission(s))" in done.stdout
        with running(folder / "course.yaml") as again:  # the same tokens sign in
            for login, ident in expected:
                shown = again.wait(ident, keys["alice"])
                assert shown["status"] == "graded" and shown["login"] == login
                assert shown["final_score"] == graded[ident]["final_score"]
                assert again.get(ident, keys[login]).status_code == 200
            unknown = [ident for _, ident in everyone if (_, ident) not in expected]
            assert all(again.get(ident, keys["alice"]).status_code == 404 for ident in unknown)
            if name == "final":
                table = signed_in(again.url, keys["alice"]).get(f"{again.url}/instructor/open/grades.csv")
                assert table.text == grades
    assert stat.S_IMODE((tmp_path / "restored-final").stat().st_mode) == 0o700


def one_line(done: object) -> str:
    stderr = str(getattr(done, "stderr", ""))
    assert getattr(done, "returncode", None) == 3, stderr
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr, stderr
    return stderr


def test_bad_input_is_one_line_and_exit_3(tmp_path: Path) -> None:
    course = write_course(tmp_path / "c")
    assert "no database" in one_line(grader("backup", str(course), str(tmp_path / "b.tar.gz")))
    assert "no such course file" in one_line(grader("backup", str(tmp_path / "no.yaml"), "b.tar.gz"))
    tokens(course)  # the database now exists
    nowhere = tmp_path / "missing" / "b.tar.gz"
    assert "does not exist" in one_line(grader("backup", str(course), str(nowhere)))
    assert "no such file" in one_line(grader("restore", str(tmp_path / "none.tar.gz"), str(tmp_path / "r")))
    assert "not a grader backup" in one_line(grader("restore", str(course), str(tmp_path / "r")))
    bare = tmp_path / "bare.tar.gz"
    with tarfile.open(bare, "w:gz") as archive:
        archive.add(course, "course/course.yaml")
    assert "not a grader backup" in one_line(grader("restore", str(bare), str(tmp_path / "r")))
    good = tmp_path / "good.tar.gz"
    assert grader("backup", str(course), str(good)).returncode == 0
    full = tmp_path / "full"
    full.mkdir()
    (full / "kept.txt").write_text("mine")
    assert "not an empty folder" in one_line(grader("restore", str(good), str(full)))
    assert (full / "kept.txt").read_text() == "mine"
    assert not (tmp_path / "r").exists()


def test_a_hostile_archive_writes_nothing_outside_its_folder(tmp_path: Path) -> None:
    hostile = tmp_path / "hostile.tar.gz"
    manifest = json.dumps({"format": 1, "course": "course.yaml", "database": "course.sqlite"}).encode()
    with tarfile.open(hostile, "w:gz") as archive:
        for name, data in (
            ("grader-backup.json", manifest),
            ("database.sqlite", b""),
            ("course/../../escaped.txt", b"x"),
        ):
            member = tarfile.TarInfo(name)
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))
    done = grader("restore", str(hostile), str(tmp_path / "into" / "r"))
    assert "damaged backup" in one_line(done) or "not a grader backup" in done.stderr
    assert not (tmp_path / "escaped.txt").exists() and not (tmp_path / "into" / "escaped.txt").exists()


def test_a_postgresql_course_is_said_unsupported(tmp_path: Path) -> None:
    course = write_course(tmp_path / "pg")
    course.write_text(course.read_text() + "database: postgresql://u:p@127.0.0.1:1/x\n")
    line = one_line(grader("backup", str(course), str(tmp_path / "b.tar.gz")))
    assert "SQLite databases only" in line and "pg_dump" in line and "u:p" not in line
