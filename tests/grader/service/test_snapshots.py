"""Suite snapshots (the suites assignments are pinned to): the same suite gives the same digest,
a stored one reads back only as it was written, unpacked it grades as the suite on disk does, and
the differences an instructor is warned of name what changed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.batch import identity as ids
from grader.service import snapshots
from grader.suite.load import load_suite
from grader.suite.schema import Suite

ROOT = Path(__file__).resolve().parents[3]


def differences(old: Suite, new: Suite) -> list[str]:
    from grader.service.setup import configure_without_course

    configure_without_course()  # pins reads the service's tables
    from grader.service.pins import suite_differences

    return suite_differences(old, new)


def test_a_snapshot_is_named_by_its_content_and_read_back_only_unchanged(tmp_path: Path) -> None:
    loaded = load_suite("bitgrid")
    snapshot = snapshots.snapshot_of(loaded)
    assert snapshots.snapshot_of(load_suite("bitgrid")).digest == snapshot.digest
    names = set(snapshot.files())
    assert "fixtures/bitgrid/suite.yaml" in names and "exercises/bitgrid/grid.py" in names
    assert not any("/mutants/" in name or "/solutions/" in name for name in names)
    path = snapshots.store(tmp_path, snapshot)
    assert path == snapshots.snapshot_path(tmp_path, snapshot.digest)
    assert snapshots.read_files(tmp_path, snapshot.digest) == snapshot.files()

    path.write_bytes(b"not a zip")
    with pytest.raises(snapshots.SnapshotError, match="cannot be read: refusing to grade with it"):
        snapshots.read_files(tmp_path, snapshot.digest)
    snapshots.store(tmp_path, snapshot)  # a file there that is not the snapshot is replaced
    assert snapshots.read_files(tmp_path, snapshot.digest) == snapshot.files()
    path.unlink()
    with pytest.raises(snapshots.SnapshotError, match="is missing: refusing to grade without it"):
        snapshots.read_files(tmp_path, snapshot.digest)


def test_a_snapshot_from_another_suite_is_refused(tmp_path: Path) -> None:
    """A stored file whose content is another suite's (a valid .zip) does not match the digest."""
    bitgrid = snapshots.snapshot_of(load_suite("bitgrid"))
    weighted = snapshots.snapshot_of(load_suite("weighted"))
    path = snapshots.store(tmp_path, bitgrid)
    path.write_bytes(weighted.archive)
    with pytest.raises(snapshots.SnapshotError, match="does not match its fingerprint"):
        snapshots.read_files(tmp_path, bitgrid.digest)


def test_unpacked_it_is_the_suite_as_on_disk(tmp_path: Path) -> None:
    """The snapshot as a project root loads the same suite, with the same fingerprints: a
    grading with it is a grading with the suite it was taken from."""
    loaded = load_suite("bitgrid")
    snapshot = snapshots.snapshot_of(loaded)
    snapshots.store(tmp_path, snapshot)
    root = snapshots.unpacked(tmp_path, snapshot.digest)
    try:
        pinned = load_suite(str(root / snapshot.suite), root)
        assert pinned.exercise.root == root and pinned.exercise.reference.is_relative_to(root)
        assert ids.suite_fingerprint(pinned) == ids.suite_fingerprint(loaded)
        assert ids.expectations_fingerprint(pinned) == ids.expectations_fingerprint(loaded)
        assert snapshots.snapshot_of(pinned).digest == snapshot.digest
    finally:
        snapshots.forget_unpacked()
    assert not root.exists()


def test_a_suite_copied_elsewhere_snapshots_under_fixtures(tmp_path: Path) -> None:
    """A course's own suite file (outside the project) keeps its files under fixtures/NAME."""
    shutil.copytree(
        ROOT / "fixtures" / "bitgrid", tmp_path / "mine", ignore=shutil.ignore_patterns("mutants")
    )
    snapshot = snapshots.snapshot_of(load_suite(str(tmp_path / "mine" / "suite.yaml")))
    assert snapshot.suite == "fixtures/bitgrid/suite.yaml"
    assert "fixtures/bitgrid/expected/position.json" in snapshot.files()


def test_the_differences_name_the_maximum_tests_and_points() -> None:
    old = load_suite("bitgrid").suite
    tests = [
        test.model_copy(update={"points": test.points + 2}) if test.name == "is-full" else test
        for test in old.tests
        if test.name != "position"
    ]
    new = old.model_copy(update={"tests": tests})
    removed = next(test for test in old.tests if test.name == "position").points
    lines = differences(old, new)
    assert lines == [
        f"max score {old.total_points:g} -> {old.total_points - removed + 2:g}",
        "tests removed: position",
        "points changed: is-full 1 -> 3",
    ]
    assert differences(new, old)[1:] == ["tests added: position", "points changed: is-full 3 -> 1"]
    assert differences(old, old) == []
