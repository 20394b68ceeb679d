"""What travels to a worker: the exercise bundle and the submission parcel, hostile cases first."""

from __future__ import annotations

import shutil
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from grader.cluster import bundle as bundles
from grader.cluster import parcel as parcels
from grader.cluster.task import GradingTask, run_task
from grader.exercise import Exercise, project_root
from grader.run.submission import MAX_FILE_BYTES, SubmissionError, prepare
from grader.suite.load import load_suite

SAMPLES = project_root() / "samples" / "bitgrid"


def test_a_symlink_or_hidden_folder_in_a_submission_never_travels(tmp_path: Path) -> None:
    folder = tmp_path / "mallory"
    shutil.copytree(SAMPLES / "alice", folder)
    (folder / "passwd.py").symlink_to("/etc/passwd")
    (folder / ".git").mkdir()
    (folder / ".git" / "config").write_text("secret")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "grid.cpython-311.pyc").write_bytes(b"\0")
    parcel = parcels.pack(folder)
    assert set(parcel.files) == {p.name for p in (SAMPLES / "alice").iterdir() if p.is_file()}


def test_an_oversized_file_is_refused_on_the_far_side_as_here(tmp_path: Path) -> None:
    folder = tmp_path / "big"
    folder.mkdir()
    (folder / "grid.py").write_bytes(b"#" * (MAX_FILE_BYTES + 5000))
    parcel = parcels.pack(folder)
    assert len(parcel.files["grid.py"]) == MAX_FILE_BYTES + 1
    (tmp_path / "far").mkdir()
    laid_out = parcels.unpack(parcel, tmp_path / "far")
    for source in (folder, laid_out):
        with pytest.raises(SubmissionError, match="too large"):
            prepare(
                source, Exercise.named("bitgrid"), ["grid.py"], [], tmp_path / f"code-{source.parent.name}"
            )


def test_a_zip_travels_byte_for_byte_and_a_parcel_cannot_climb_out(tmp_path: Path) -> None:
    archive = tmp_path / "eve.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("../../escape.py", "x = 1\n")
    parcel = parcels.pack(archive)
    far = tmp_path / "far"
    far.mkdir()
    assert parcels.unpack(parcel, far).read_bytes() == archive.read_bytes()
    with pytest.raises(SubmissionError, match="points outside the archive"):
        prepare(far / "eve.zip", "bitgrid", ["grid.py"], [], tmp_path / "code")
    climbing = parcels.SubmissionParcel(name="x", files={"../outside.py": b"x"})
    with pytest.raises(ValueError, match="outside the submission"):
        parcels.unpack(climbing, far)
    assert not (tmp_path / "outside.py").exists()


def test_the_bundle_is_named_by_its_content_and_checked_when_unpacked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRADER_CACHE", str(tmp_path / "cache"))
    loaded = load_suite("bitgrid")
    first, second = bundles.build_bundle(loaded), bundles.build_bundle(loaded)
    assert first == second
    files = first.files()
    assert first.suite in files
    assert not [name for name in files if "/mutants/" in name]
    assert all(f"fixtures/bitgrid/expected/{t.name}.json" in files for t in loaded.suite.tests)
    tampered = replace(first, digest=bundles.content_digest({"other": b""}))
    with pytest.raises(ValueError, match="does not match its digest"):
        bundles.unpack(tampered)
    root = bundles.unpack(first)
    assert root.name == first.digest
    assert (root / first.suite).read_bytes() == loaded.path.read_bytes()


def test_a_task_grades_from_its_bundle_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No project on the far side: GRADER_ROOT points nowhere useful, the bundle is all there is."""
    monkeypatch.setenv("GRADER_CACHE", str(tmp_path / "cache"))
    exercise = bundles.build_bundle(load_suite("bitgrid"))
    monkeypatch.setenv("GRADER_ROOT", str(tmp_path / "nothing-here"))
    task = GradingTask(
        student="alice",
        parcel=parcels.pack(SAMPLES / "alice"),
        bundle=exercise,
        public_only=False,
        sandbox="process",
    )
    graded = run_task(task)
    data = graded.payload["results"]
    assert graded.student == "alice" and graded.payload["status"] == "graded"
    assert data["score"] == data["extra_data"]["max_score"] == 20
    with pytest.raises(ValueError, match="cannot name"):
        run_task(replace(task, student="../alice"))


def test_the_doctests_of_the_bundle_pass() -> None:
    import doctest

    outcome = doctest.testmod(bundles)
    assert outcome.attempted > 0 and outcome.failed == 0


@pytest.mark.bwrap
def test_a_submission_on_a_worker_cannot_read_the_unpacked_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hidden expectations now also lie in the worker's bundle cache: out of the test's sight."""
    monkeypatch.delenv("GRADER_CACHE", raising=False)
    exercise = bundles.build_bundle(load_suite("bitgrid"))
    hidden = bundles.unpack(exercise) / "fixtures" / "bitgrid" / "expected" / "winner-hidden.json"
    assert hidden.is_file()
    folder = tmp_path / "mallory"
    shutil.copytree(SAMPLES / "alice", folder)
    probe = (
        f"try:\n    _leak = open({str(hidden)!r}).read()\nexcept OSError:\n    _leak = ''\n"
        f"if _leak:\n    raise RuntimeError('read the hidden expectations')\n"
    )
    (folder / "grid.py").write_text(probe + (SAMPLES / "alice" / "grid.py").read_text())
    task = GradingTask(
        student="mallory", parcel=parcels.pack(folder), bundle=exercise, public_only=False, sandbox="bwrap"
    )
    data = run_task(task).payload["results"]
    assert data["score"] == data["extra_data"]["max_score"] == 20, data.get("output")
