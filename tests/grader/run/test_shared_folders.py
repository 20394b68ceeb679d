"""At the container level a test's files in the host's world-writable folders are removed before
the next test of its slot: only what its uid owns, links never followed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.run.shared_folders import remove_owned, world_writable_folders

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="files of another uid need root")
TEST_UID = 0x4FFFFFF0


@root_only
def test_only_what_the_test_uid_owns_is_removed_and_links_are_not_followed(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    kept = shared / "somebody-elses"
    kept.write_text("stays")
    target = tmp_path / "target"
    target.mkdir()
    (target / "precious").write_text("stays too")
    left_file = shared / "stash"
    left_file.write_text("state for the next test")
    left_folder = shared / "folder"
    (left_folder / "deeper").mkdir(parents=True)
    (left_folder / "deeper" / "stash").write_text("state")
    (left_folder / "to-target").symlink_to(target)
    link = shared / "link"
    link.symlink_to(target)
    for path in (
        left_file,
        left_folder,
        left_folder / "deeper",
        left_folder / "deeper" / "stash",
        left_folder / "to-target",
        link,
    ):
        os.lchown(path, TEST_UID, TEST_UID)

    assert remove_owned(TEST_UID, (str(shared),)) == []
    assert sorted(p.name for p in shared.iterdir()) == ["somebody-elses"]
    assert (target / "precious").read_text() == "stays too"


def test_the_shared_folders_include_tmp_and_skip_proc_and_sys() -> None:
    folders = world_writable_folders()
    assert "/tmp" in folders
    assert not any(f.startswith(("/proc/", "/sys/")) for f in folders)
