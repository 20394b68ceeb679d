"""Submitted archives and folders: hostile or broken ones get a clear rejection, never an escape."""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path

import pytest

from grader.cli import main
from grader.exercise import project_root
from grader.run.submission import SubmissionError, prepare

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
    prepare(source, "bitgrid", ["grid.py"], ["play.py"], tmp_path / "code")


@pytest.mark.parametrize(("members", "message"), [
    ({"../grid.py": b"x"}, "points outside the archive"),
    ({"/etc/grid.py": b"x"}, "points outside the archive"),
    ({"a/" * 20 + "grid.py": b"x"}, "nested too deeply"),
    ({"grid.py": b"0" * (3 * 1024 * 1024)}, "too large"),
    ({f"f{i}.txt": b"" for i in range(1001)}, "more than 1000 files"),
])
def test_hostile_archive_is_rejected(tmp_path: Path, members: dict[str, bytes],
                                     message: str) -> None:
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
    prepared = prepare(folder, "bitgrid", ["grid.py"], ["play.py"], tmp_path / "code")
    assert prepared.missing == ["grid.py"]


def test_nested_folder_missing_and_extra_files(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "sub.zip", {"homework/grid.py": REFERENCE.read_bytes(),
                                          "homework/notes.txt": b"hi", "play.py": b"evil()"})
    prepared = prepare(archive, "bitgrid", ["grid.py"], ["play.py"], tmp_path / "code")
    assert not prepared.missing
    assert prepared.ignored == ["homework/notes.txt"]
    given = (project_root() / "exercises" / "bitgrid" / "play.py").read_bytes()
    assert (tmp_path / "code" / "play.py").read_bytes() == given, "a given file was replaced"


def test_wrong_encoding_is_a_compile_error(tmp_path: Path) -> None:
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "grid.py").write_bytes("def position(x, y):\n    return 'é'\n".encode("latin-1"))
    prepared = prepare(folder, "bitgrid", ["grid.py"], ["play.py"], tmp_path / "code")
    assert "grid.py" in prepared.syntax_errors
    assert "utf-8" in prepared.syntax_errors["grid.py"].lower()


def test_missing_file_gives_ce_for_every_test(tmp_path: Path) -> None:
    from grader.judge.grade import grade
    from grader.suite.load import load_suite

    (tmp_path / "sub").mkdir()
    report = grade(load_suite("bitgrid"), tmp_path / "sub", sandbox="process")
    assert {r.verdict.value for r in report.results} == {"CE"}
    assert report.results[0].message == "missing file(s): grid.py"
