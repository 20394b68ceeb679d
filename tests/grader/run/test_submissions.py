"""Submitted archives and folders: hostile or broken ones get a clear rejection, never an escape."""

from __future__ import annotations

import io
import json
import os
import re
import socket
import stat
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from grader.cli import main
from grader.exercise import Exercise, project_root
from grader.run.submission import SubmissionError, files_of, is_empty, prepare

REFERENCE = project_root() / "reference" / "bitgrid" / "grid.py"


def _zip(path: Path, members: dict[str, bytes], symlinks: dict[str, str] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as bundle:
        for name, data in members.items():
            bundle.writestr(name, data)
        for name, target in (symlinks or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            bundle.writestr(info, target)
    return path


def _prepare(source: Path, tmp_path: Path) -> None:
    prepare(source, Exercise.named("bitgrid"), ["grid.py"], ["play.py"], tmp_path / "code")


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ({"../grid.py": b"x"}, "points outside the archive"),
        ({"/etc/grid.py": b"x"}, "points outside the archive"),
        ({"a/" * 20 + "grid.py": b"x"}, "nested too deeply"),
        ({"grid.py": b"0" * (3 * 1024 * 1024)}, "too large"),
        ({f"f{i}.txt": b"" for i in range(1001)}, "more than 1000 files"),
    ],
)
def test_hostile_archive_is_rejected(tmp_path: Path, members: dict[str, bytes], message: str) -> None:
    archive = _zip(tmp_path / "sub.zip", members)
    with pytest.raises(SubmissionError, match=message):
        _prepare(archive, tmp_path)
    assert not (tmp_path / "grid.py").exists() and not Path("/etc/grid.py").exists()


def test_symlink_in_archive_is_rejected(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "sub.zip", {}, symlinks={"grid.py": "/etc/passwd"})
    with pytest.raises(SubmissionError, match="symbolic link"):
        _prepare(archive, tmp_path)


def test_zip_bomb_is_rejected(tmp_path: Path) -> None:
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
        for index in range(12):
            bundle.writestr(f"part{index}.txt", b"\0" * (2 * 1024 * 1024 - 1))
    assert archive.stat().st_size < 200_000
    with pytest.raises(SubmissionError, match="unpacks to too much data"):
        _prepare(archive, tmp_path)


def test_not_a_zip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake = tmp_path / "sub.zip"
    fake.write_bytes(b"this is not a zip")
    assert main(["grade", "bitgrid", str(fake), "--sandbox", "process"]) == 3
    assert "not a readable .zip file" in capsys.readouterr().err


def test_symlink_in_a_folder_is_not_followed(tmp_path: Path) -> None:
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "grid.py").symlink_to(REFERENCE)
    prepared = prepare(folder, Exercise.named("bitgrid"), ["grid.py"], ["play.py"], tmp_path / "code")
    assert prepared.missing == ["grid.py"]


def test_nested_folder_missing_and_extra_files(tmp_path: Path) -> None:
    archive = _zip(
        tmp_path / "sub.zip",
        {"homework/grid.py": REFERENCE.read_bytes(), "homework/notes.txt": b"hi", "play.py": b"evil()"},
    )
    prepared = prepare(archive, Exercise.named("bitgrid"), ["grid.py"], ["play.py"], tmp_path / "code")
    assert not prepared.missing
    assert prepared.ignored == ["homework/notes.txt"]
    given = (project_root() / "exercises" / "bitgrid" / "play.py").read_bytes()
    assert (tmp_path / "code" / "play.py").read_bytes() == given, "a given file was replaced"


def test_wrong_encoding_is_a_compile_error(tmp_path: Path) -> None:
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "grid.py").write_bytes("def position(x, y):\n    return 'é'\n".encode("latin-1"))
    prepared = prepare(folder, Exercise.named("bitgrid"), ["grid.py"], ["play.py"], tmp_path / "code")
    assert "grid.py" in prepared.syntax_errors
    assert "utf-8" in prepared.syntax_errors["grid.py"].lower()


def test_missing_file_gives_ce_for_every_test(tmp_path: Path) -> None:
    from grader.judge.grade import grade
    from grader.suite.load import load_suite

    (tmp_path / "sub").mkdir()
    report = grade(load_suite("bitgrid"), tmp_path / "sub", sandbox="process")
    assert {r.verdict.value for r in report.results} == {"CE"}
    assert report.results[0].message == "missing file(s): grid.py"


CODE = b"def f():\n    return 1\n" * 200


def broken_zip(path: Path, kind: str, member: str = "grid.py", code: bytes = CODE) -> Path:
    """A .zip (of `member`) that zipfile fails to read in one of the ways a hostile or damaged
    upload can."""
    buffer = io.BytesIO()
    compression = zipfile.ZIP_DEFLATED if kind == "bad-deflate" else zipfile.ZIP_STORED
    with zipfile.ZipFile(buffer, "w", compression=compression) as bundle:
        bundle.writestr("BADNAME.py" if kind == "bad-utf8-name" else member, code)
        info = bundle.filelist[0]  # changed before close: the central directory says so
        if kind == "bad-utf8-name":
            info.flag_bits |= 0x800  # the name is said to be UTF-8
        elif kind == "encrypted":
            info.flag_bits |= 0x1
        elif kind == "method-99":
            info.compress_type = 99
        elif kind == "ends-early":
            info.compress_size = info.file_size = 100_000
    raw = bytearray(buffer.getvalue())
    start = 30 + len(member)  # the first member's data, after its local header
    if kind == "bad-utf8-name":
        raw = bytearray(bytes(raw).replace(b"BADNAME", b"\xff\xfe\xfd\xfc\xfb\xfa\xf9"))
    elif kind == "bad-deflate":
        raw[start + 5 : start + 25] = b"\xff" * 20
    elif kind == "bad-crc":
        raw[start + 3] ^= 0xFF
    elif kind == "truncated":
        raw = raw[: len(raw) // 2]
    path.write_bytes(bytes(raw))
    return path


BROKEN_KINDS = [
    "bad-utf8-name",
    "encrypted",
    "method-99",
    "bad-deflate",
    "bad-crc",
    "truncated",
    "ends-early",
]


@pytest.mark.parametrize("kind", BROKEN_KINDS)
def test_an_unreadable_archive_is_a_submission_error(tmp_path: Path, kind: str) -> None:
    archive = broken_zip(tmp_path / "sub.zip", kind)
    with pytest.raises(SubmissionError, match=r"^sub\.zip: not a readable \.zip file \(.+\)$"):
        _prepare(archive, tmp_path)
    with pytest.raises(SubmissionError, match=r"^sub\.zip: not a readable \.zip file"):
        files_of(archive)
    assert is_empty(archive) is False  # never raises: grading then says why


@pytest.mark.parametrize("kind", BROKEN_KINDS)
def test_grading_an_unreadable_archive_says_so_in_one_line(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = broken_zip(tmp_path / "sub.zip", kind)
    assert main(["grade", "bitgrid", str(archive), "--sandbox", "process"]) == 3
    printed = capsys.readouterr()
    assert printed.err.startswith("error: sub.zip: not a readable .zip file (")
    assert printed.err.count("\n") == 1 and "Traceback" not in printed.err + printed.out


def test_an_encrypted_member_is_named(tmp_path: Path) -> None:
    archive = broken_zip(tmp_path / "sub.zip", "encrypted")
    with pytest.raises(
        SubmissionError,
        match=r"^sub\.zip: not a readable \.zip file \('grid\.py' is "
        r"encrypted: zip it again without a password\)$",
    ):
        files_of(archive)


@pytest.mark.parametrize(
    "make", [os.mkfifo, lambda path: socket.socket(socket.AF_UNIX).bind(str(path))], ids=["fifo", "socket"]
)
@pytest.mark.timeout(20)
def test_a_zip_that_is_not_a_regular_file_is_refused_at_once(
    tmp_path: Path, make: Callable[[Path], None], capsys: pytest.CaptureFixture[str]
) -> None:
    special = tmp_path / "sub.zip"
    make(special)
    assert main(["grade", "bitgrid", str(special), "--sandbox", "process"]) == 3
    printed = capsys.readouterr().err
    assert printed.startswith("error: sub.zip: not a regular file (a ")
    assert printed.count("\n") == 1
    assert is_empty(special) is False
    with pytest.raises(SubmissionError, match="not a regular file"):
        files_of(special)


SCORE_FORGERY = "\x1b[2J\nScore 19 of 19\r\u202e"


def test_member_names_are_inert_wherever_shown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    archive = _zip(
        tmp_path / "sub.zip", {"grid.py": REFERENCE.read_bytes(), f"notes{SCORE_FORGERY}.txt": b"hi"}
    )
    prepared = prepare(archive, Exercise.named("bitgrid"), ["grid.py"], ["play.py"], tmp_path / "code")
    assert prepared.ignored == ["notes\\x1b[2J\\nScore 19 of 19\\r\\u202e.txt"]
    assert main(
        ["grade", "bitgrid", str(archive), "--sandbox", "process", "--results", str(tmp_path / "r.json")]
    ) in (0, 1)
    lines = capsys.readouterr().out.splitlines()
    assert sum(line.startswith("Score") for line in lines) == 1, lines  # the real one only
    shown = json.loads((tmp_path / "r.json").read_text())["output"]
    assert not any(line.startswith("Score") for line in shown.splitlines()), shown
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f\u202e]", shown), shown


@pytest.mark.parametrize(
    "members",
    [
        {f"../{SCORE_FORGERY}.py": b"x"},
        {"a/" * 20 + f"{SCORE_FORGERY}.py": b"x"},
        {f"{SCORE_FORGERY}.py": b"0" * (3 * 1024 * 1024)},
    ],
)
def test_member_names_in_errors_are_inert(tmp_path: Path, members: dict[str, bytes]) -> None:
    archive = _zip(tmp_path / "sub.zip", members)
    with pytest.raises(SubmissionError) as raised:
        _prepare(archive, tmp_path)
    assert not re.search("[\x00-\x1f\x7f\u202e]", str(raised.value)), str(raised.value)
