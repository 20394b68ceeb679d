"""Batch grading: one result per student, an interrupted batch resumes to the same CSV."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.cli import main
from grader.commands import EXIT_USAGE
from grader.commands import batch as batch_command
from grader.exercise import project_root
from grader.suite.load import load_suite

BITGRID_POINTS = load_suite("bitgrid").suite.total_points  # every test's, hidden ones too


SAMPLES = project_root() / "samples" / "bitgrid"


@pytest.fixture
def small_class(tmp_path: Path) -> Path:
    """The sample class without its slowest student (Dave loops until his time limit)."""
    folder = tmp_path / "class"
    shutil.copytree(SAMPLES, folder, ignore=shutil.ignore_patterns("dave"))
    return folder


@pytest.mark.slow
def test_batch_writes_results_csv_and_summary(small_class: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert batch_command.main(exercise="bitgrid", folder=small_class, jobs=2, out=out, sandbox="process") == 0
    students = {"alice", "bob", "carol", "erin", "frank"}
    assert {p.parent.name for p in out.glob("*/results.json")} == students
    lines = (out / "grades.csv").read_text().splitlines()
    assert lines[0].startswith("student,status,score,max_score,position,")
    rows = {line.split(",")[0]: line.split(",") for line in lines[1:]}
    assert set(rows) == students
    assert rows["alice"][2] == rows["alice"][3] == f"{BITGRID_POINTS:g}"
    assert rows["erin"][1:3] == ["not-submitted-files", "0"]
    assert rows["carol"][1:3] == ["graded", f"{BITGRID_POINTS - 3:g}"]  # her bug costs 3 points
    html = (out / "summary.html").read_text()
    assert "<svg" in html and "bob, frank" in html


@pytest.mark.slow
def test_interrupted_batch_resumes_to_the_same_csv(
    small_class: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reference_out = tmp_path / "whole"
    assert (
        batch_command.main(
            exercise="bitgrid", folder=small_class, jobs=1, out=reference_out, sandbox="process"
        )
        == 0
    )
    out = tmp_path / "interrupted"
    command = [
        sys.executable,
        "-m",
        "grader",
        "grade",
        "bitgrid",
        str(small_class),
        "--batch",
        "-j",
        "1",
        "--out",
        str(out),
        "--sandbox",
        "process",
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 60
    while not list(out.glob("*/results.json")) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    finished = {p.parent.name for p in out.glob("*/results.json")}
    students = {p.parent.name for p in reference_out.glob("*/results.json")}
    assert finished, "the batch finished nothing before it was killed"
    assert finished < students, "the batch finished everyone before it was killed: nothing resumed"
    before = {name: (out / name / "results.json").stat().st_mtime_ns for name in finished}
    capsys.readouterr()
    assert (
        batch_command.main(
            exercise="bitgrid", folder=small_class, resume=True, jobs=2, out=out, sandbox="process"
        )
        == 0
    )
    assert (
        f"resume: regrading {len(students - finished)} of {len(students)} submission(s)"
        in capsys.readouterr().out
    )
    for name, mtime in before.items():
        assert (out / name / "results.json").stat().st_mtime_ns == mtime, f"{name} was regraded"
    assert (out / "grades.csv").read_text() == (reference_out / "grades.csv").read_text()
    assert not list(out.glob("*/.results.json.*")), "a half-written result was left behind"


def test_batch_rejects_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lone = tmp_path / "lone.txt"
    lone.write_text("x")
    assert main(["batch", "bitgrid", str(lone), "--sandbox", "process"]) == 3
    assert "a batch is a folder of submissions" in capsys.readouterr().err


@pytest.mark.slow
def test_grade_dash_dash_batch_is_grader_batch(tmp_path: Path) -> None:
    """Users' scripts call `grader grade EXERCISE CLASS --batch`: the same grading, the same files."""
    folder = tmp_path / "class"
    for student in ("alice", "erin"):
        shutil.copytree(SAMPLES / student, folder / student)
    old, new = tmp_path / "old", tmp_path / "new"
    common = ["-j", "2", "--sandbox", "process", "--public"]
    assert main(["grade", "bitgrid", str(folder), "--batch", "--out", str(old), *common]) == 0
    assert main(["batch", "bitgrid", str(folder), "--out", str(new), *common]) == 0
    assert (old / "grades.csv").read_text() == (new / "grades.csv").read_text()
    assert "alice,graded" in (new / "grades.csv").read_text()
    assert sorted(p.relative_to(old) for p in old.rglob("*.json")) == sorted(
        p.relative_to(new) for p in new.rglob("*.json")
    )


@pytest.mark.slow
def test_every_row_of_a_public_batch_has_the_same_max_score(tmp_path: Path) -> None:
    """--public grades only the visible tests: a submission that could not be graded at all
    (empty, corrupt) or was never handed in (missing) is out of those same points."""
    folder = tmp_path / "class"
    shutil.copytree(SAMPLES / "alice", folder / "alice")
    (folder / "empty").mkdir()
    (folder / "corrupt.zip").write_bytes(b"not a zip at all")
    roster = tmp_path / "roster.csv"
    roster.write_text("submission\nalice\nempty\ncorrupt\nghost\n")
    out = tmp_path / "out"
    assert (
        main(
            [
                "batch",
                "bitgrid",
                str(folder),
                "--out",
                str(out),
                "--public",
                "-j",
                "1",
                "--sandbox",
                "process",
                "--roster",
                str(roster),
            ]
        )
        == 0
    )
    lines = (out / "grades.csv").read_text().splitlines()
    header = lines[0].split(",")
    rows = {
        row["student"]: row for row in (dict(zip(header, line.split(","), strict=True)) for line in lines[1:])
    }
    assert {name: row["status"] for name, row in rows.items()} == {
        "alice": "graded",
        "empty": "empty",
        "corrupt": "corrupt",
        "ghost": "missing",
    }
    assert rows["alice"]["score"] == rows["alice"]["max_score"]
    assert {row["max_score"] for row in rows.values()} == {rows["alice"]["max_score"]}


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["grade", "bitgrid", "CLASS", "--batch", "--results", "r.json"],
            "--results does not go with --batch",
        ),
        (["grade", "bitgrid", "CLASS", "--batch", "--test", "read"], "--test does not go with --batch"),
        (["grade", "bitgrid", "CLASS", "--out", "o"], "--out only goes with --batch"),
        (["grade", "bitgrid", "CLASS", "--resume"], "--resume only goes with --batch"),
        (["grade", "bitgrid", "CLASS", "-j", "2"], "--jobs only goes with --batch"),
        (
            ["batch", "bitgrid", "CLASS", "--scheduler", "tcp://h:1"],
            "--scheduler only goes with --executor dask",
        ),
        (["batch", "bitgrid", "CLASS", "-j", "0"], "-j needs at least 1"),
    ],
)
def test_flags_that_do_not_go_together_are_a_usage_error(
    argv: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(tmp_path) if arg == "CLASS" else arg for arg in argv]
    assert main(argv) == EXIT_USAGE
    captured = capsys.readouterr()
    assert f"error: {said}" in captured.err and captured.out == ""
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "flag", [["--results", "r.json"], ["--junit", "j.xml"], ["--test", "read"], ["--batch"]]
)
def test_grader_batch_has_no_single_submission_flag(flag: list[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["batch", "bitgrid", str(tmp_path), *flag])
    assert stopped.value.code == EXIT_USAGE


@pytest.mark.slow
@pytest.mark.bwrap
def test_hostile_class_under_load(tmp_path: Path) -> None:
    """One in five submissions hostile, -j 2: every row present, honest scores as graded alone."""
    from multiprocessing import forkserver

    import psutil

    from bench.batch_throughput import make_class
    from grader.batch.engine import grade_batch
    from grader.batch.results import collect
    from grader.judge.grade import grade
    from grader.suite.load import load_suite

    loaded = load_suite("bitgrid")
    folder = tmp_path / "class"
    folder.mkdir()
    origins = make_class(folder, 20, hostile_every=5)
    alone = {
        origin: grade(loaded, SAMPLES / origin).score
        for origin in set(origins.values())
        if not origin.startswith("hostile")
    }
    forkserver.ensure_running()  # the pool's forkserver (and resource tracker) live on by design
    ours_before = {p.pid for p in psutil.Process().children(recursive=True)}
    grade_batch(loaded, folder, tmp_path / "out", jobs=2, resume=False)
    results = collect(tmp_path / "out")
    assert set(results) == set(origins)
    for student, origin in origins.items():
        if not origin.startswith("hostile"):
            assert results[student]["score"] == alone[origin], student
        elif origin == "hostile:kills_server":  # alice's code: its kill reaches only its own init
            assert results[student]["score"] == grade(loaded, SAMPLES / "alice").score
        else:
            assert results[student]["score"] < results[student]["extra_data"]["max_score"]
    assert {p.pid for p in psutil.Process().children(recursive=True)} <= ours_before
