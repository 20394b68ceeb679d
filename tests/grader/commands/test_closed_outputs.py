"""Issue 29: what the grader writes is closed (folders 0700, files 0600), and at the container
level a batch refuses a class folder or an existing --out that the tests' uids could enter.

A container-level test sees the host's process list: the batch's command line names the class
folder and --out, where earlier students' instructor feedback (hidden cases, expected values),
the gradebook and their code lie.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.cli import main
from tests.toy_class import RIGHT, add, make_toy

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="the container level needs root")
DOCKER_LIKE = Path(__file__).with_name("docker_like.py")

# The batch's --out from its command line in /proc: everything below it that can be read.
SNOOP = """\
import os
def _snoop():
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as line:
                words = line.read().decode("utf-8", "replace").split("\\0")
        except OSError:
            continue
        if "batch" not in words or "--out" not in words:
            continue
        out = words[words.index("--out") + 1]
        targets = [out, os.path.join(out, "gradebook.sqlite"), os.path.join(out, "grades.csv")]
        for student in ("aaa", "bbb"):
            for name in ("feedback-instructor.html", "results.json", "junit.xml"):
                targets.append(os.path.join(out, student, name))
        for target in targets:
            try:
                if os.path.isdir(target):
                    found.append(target + ": " + ",".join(os.listdir(target)))
                else:
                    with open(target, "rb") as stolen:
                        found.append(target + ": " + repr(stolen.read(40)))
            except OSError:
                pass
    return found

def double(n):
    found = _snoop()
    if found:
        return found
    if n < 0:
        raise ValueError(f"no negative numbers, got {n}")
    return 2 * n
"""


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder anyone may enter and list, as a course's results folder often is."""
    folder = Path(tempfile.mkdtemp(prefix="closed-outputs-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _container_batch(project: Path, folder: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """`grader batch` at the container level, as under Docker's seccomp profile."""
    command = [
        sys.executable,
        str(DOCKER_LIKE),
        sys.executable,
        "-m",
        "grader",
        "batch",
        "toy",
        str(folder),
        "-j",
        "1",
        "--out",
        str(out),
        "--sandbox",
        "container",
    ]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "GRADER_ROOT": str(project)},
    )


@root_only
def test_a_test_reads_nothing_the_batch_wrote_for_earlier_students(project: Path, open_folder: Path) -> None:
    make_toy(project)
    folder = project / "class"
    add(folder, "aaa", RIGHT)
    add(folder, "bbb", RIGHT)
    add(folder, "zzz", SNOOP)
    out = open_folder / "out"
    done = _container_batch(project, folder, out)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((out / "zzz" / "results.json").read_text())
    assert results["extra_data"]["sandbox"] == "container"
    failed = [t["output"] for t in results["tests"] if t["status"] != "passed"]
    assert not failed, failed


@root_only
@pytest.mark.parametrize("which", ["class folder", "--out"])
def test_at_the_container_level_a_batch_refuses_folders_others_can_enter(
    project: Path, open_folder: Path, which: str
) -> None:
    make_toy(project)
    folder = (open_folder if which == "class folder" else project) / "class"
    add(folder, "aaa", RIGHT)
    out = project / "out" if which == "class folder" else open_folder / "out"
    if which == "--out":
        out.mkdir(mode=0o755)
        out.chmod(0o755)
    done = _container_batch(project, folder, out)
    assert done.returncode == 3, done.stdout + done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    named = folder if which == "class folder" else out
    assert len(errors) == 1 and str(named) in errors[0], done.stderr
    assert "chmod" in errors[0]
    assert not (out / "aaa").exists()


def _modes(top: Path) -> dict[str, int]:
    return {str(path.relative_to(top)): stat.S_IMODE(path.stat().st_mode) for path in [top, *top.rglob("*")]}


def test_what_the_grader_writes_is_its_own(project: Path, tmp_path: Path) -> None:
    make_toy(project)
    folder = project / "class"
    add(folder, "aaa", RIGHT)
    out = tmp_path / "results" / "out"
    assert main(["batch", "toy", str(folder), "-j", "1", "--out", str(out), "--sandbox", "process"]) == 0
    results = tmp_path / "one" / "results.json"
    assert (
        main(
            [
                "grade",
                "toy",
                str(folder / "aaa"),
                "--sandbox",
                "process",
                "--results",
                str(results),
                "--junit",
                str(tmp_path / "one" / "junit.xml"),
            ]
        )
        == 0
    )
    written = {
        **_modes(out),
        **{f"one/{k}": v for k, v in _modes(tmp_path / "one").items()},
        "results": stat.S_IMODE((tmp_path / "results").stat().st_mode),
    }
    assert "gradebook.sqlite" in written and "aaa/feedback-instructor.html" in written
    for name, mode in written.items():
        assert mode & 0o077 == 0, f"{name} is open to others ({mode:o})"


def test_a_dask_workers_copy_of_the_exercise_is_its_own(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unpacked bundle holds the reference and the hidden expectations."""
    from grader.cluster.bundle import build_bundle, unpack
    from grader.run.sandbox import enterable
    from grader.suite.load import load_suite

    make_toy(project)
    monkeypatch.setenv("GRADER_CACHE", str(tmp_path / "cache"))
    unpacked = unpack(build_bundle(load_suite("toy")))
    assert stat.S_IMODE(unpacked.stat().st_mode) == 0o700
    assert stat.S_IMODE(unpacked.parent.stat().st_mode) == 0o700
    assert not enterable([unpacked])
