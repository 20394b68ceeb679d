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
from grader.exercise import project_root

SAMPLES = project_root() / "samples" / "bitgrid"


@pytest.fixture
def small_class(tmp_path: Path) -> Path:
    """The sample class without its slowest student (Dave loops until his time limit)."""
    folder = tmp_path / "class"
    shutil.copytree(SAMPLES, folder, ignore=shutil.ignore_patterns("dave"))
    return folder


def test_batch_writes_results_csv_and_summary(small_class: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["grade", "bitgrid", str(small_class), "--batch", "-j", "2", "--out", str(out),
                 "--sandbox", "process"]) == 0
    students = {"alice", "bob", "carol", "erin", "frank"}
    assert {p.parent.name for p in out.glob("*/results.json")} == students
    lines = (out / "grades.csv").read_text().splitlines()
    assert lines[0].startswith("student,status,score,max_score,position,")
    rows = {line.split(",")[0]: line.split(",") for line in lines[1:]}
    assert set(rows) == students
    assert rows["alice"][2] == rows["alice"][3] == "19"
    assert rows["erin"][1:3] == ["not-submitted-files", "0"]
    assert rows["carol"][1:3] == ["graded", "16"]
    html = (out / "summary.html").read_text()
    assert "<svg" in html and "bob, frank" in html


def test_interrupted_batch_resumes_to_the_same_csv(small_class: Path, tmp_path: Path) -> None:
    reference_out = tmp_path / "whole"
    assert main(["grade", "bitgrid", str(small_class), "--batch", "-j", "1",
                 "--out", str(reference_out), "--sandbox", "process"]) == 0
    out = tmp_path / "interrupted"
    command = [sys.executable, "-m", "grader", "grade", "bitgrid", str(small_class), "--batch",
               "-j", "1", "--out", str(out), "--sandbox", "process"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    deadline = time.monotonic() + 60
    while not list(out.glob("*/results.json")) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    finished = {p.parent.name for p in out.glob("*/results.json")}
    assert finished, "the batch finished nothing before it was killed"
    before = {name: (out / name / "results.json").stat().st_mtime_ns for name in finished}
    assert main(["grade", "bitgrid", str(small_class), "--batch", "--resume", "-j", "2",
                 "--out", str(out), "--sandbox", "process"]) == 0
    for name, mtime in before.items():
        assert (out / name / "results.json").stat().st_mtime_ns == mtime, f"{name} was regraded"
    assert (out / "grades.csv").read_text() == (reference_out / "grades.csv").read_text()
    assert not list(out.glob("*/.results.json.*")), "a half-written result was left behind"


def test_batch_rejects_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lone = tmp_path / "lone.txt"
    lone.write_text("x")
    assert main(["grade", "bitgrid", str(lone), "--batch", "--sandbox", "process"]) == 3
    assert "a batch is a folder of submissions" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.bwrap
def test_hostile_class_under_load(tmp_path: Path) -> None:
    """One in five submissions hostile, -j 2: every row present, honest scores as graded alone."""
    import psutil

    from bench.batch_throughput import make_class
    from grader.commands.batch import collect, grade_batch
    from grader.judge.grade import grade
    from grader.suite.load import load_suite

    loaded = load_suite("bitgrid")
    folder = tmp_path / "class"
    folder.mkdir()
    origins = make_class(folder, 20, hostile_every=5)
    alone = {origin: grade(loaded, SAMPLES / origin).score
             for origin in set(origins.values()) if not origin.startswith("hostile")}
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
