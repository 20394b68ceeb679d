"""A batch on a Dask cluster: the same grades as the local pool, and a dead worker loses nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from grader.batch.engine import BatchProgress, grade_batch
from grader.batch.results import write_class_reports
from grader.cli import main
from grader.commands import batch
from grader.exercise import project_root
from grader.report.gradebook import Gradebook
from grader.suite.load import LoadedSuite, load_suite
from tests.grader.cluster.workers import kill_a_busy_worker

distributed = pytest.importorskip("distributed")

SAMPLES = project_root() / "samples" / "bitgrid"


@pytest.fixture
def small_class(tmp_path: Path) -> Path:
    """The sample class without its slowest student (Dave loops until his time limit)."""
    folder = tmp_path / "class"
    shutil.copytree(SAMPLES, folder, ignore=shutil.ignore_patterns("dave"))
    return folder


def grades_csv(loaded: LoadedSuite, out: Path) -> str:
    """grades.csv as the batch command writes it from the gradebook in `out`."""
    students = sorted(p.parent.name for p in out.glob("*/results.json"))
    with Gradebook.of(out) as book:
        write_class_reports(loaded, out, book, students)
    return (out / "grades.csv").read_text()


def verdicts(out: Path) -> dict[str, list[tuple[str, str]]]:
    """Student -> (test, verdict) in order, from every results.json under `out`."""
    found = {}
    for path in sorted(out.glob("*/results.json")):
        data = json.loads(path.read_text())
        found[path.parent.name] = [(t["name"], t["extra_data"]["verdict"]) for t in data["tests"]]
    return found


@pytest.mark.slow
def test_a_local_cluster_of_two_writes_the_same_grades_as_j_2(small_class: Path, tmp_path: Path) -> None:
    local, cluster = tmp_path / "local", tmp_path / "cluster"
    common: dict[str, Any] = {"exercise": "bitgrid", "folder": small_class, "jobs": 2, "sandbox": "process"}
    assert batch.main(**common, out=local) == 0
    assert batch.main(**common, executor="dask", out=cluster) == 0
    assert (cluster / "grades.csv").read_text() == (local / "grades.csv").read_text()
    assert verdicts(cluster) == verdicts(local)
    assert len(verdicts(local)) == 5
    assert (cluster / "summary.html").is_file()


@pytest.mark.slow
def test_resume_on_a_cluster_grades_only_what_has_no_result(small_class: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    whole = tmp_path / "whole"
    first = tmp_path / "first"  # the class before two more submissions came in
    first.mkdir()
    for entry in small_class.iterdir():
        if entry.name.split(".")[0] in ("alice", "carol", "frank"):
            (shutil.copytree if entry.is_dir() else shutil.copy)(entry, first / entry.name)
    common: dict[str, Any] = {"exercise": "bitgrid", "jobs": 2, "sandbox": "process"}
    assert batch.main(**common, folder=small_class, out=whole) == 0
    assert batch.main(**common, folder=first, out=out) == 0
    before = {p.parent.name: p.stat().st_mtime_ns for p in out.glob("*/results.json")}
    assert set(before) == {"alice", "carol", "frank"}
    assert batch.main(**common, folder=small_class, executor="dask", resume=True, out=out) == 0
    after = {p.parent.name: p.stat().st_mtime_ns for p in out.glob("*/results.json")}
    assert {s: after[s] for s in before} == before, "a finished result was graded again"
    assert set(after) == {"alice", "bob", "carol", "erin", "frank"}
    assert (out / "grades.csv").read_text() == (whole / "grades.csv").read_text()


def test_dask_options_are_refused_where_they_mean_nothing(
    small_class: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "out")
    assert main(["grade", "bitgrid", str(SAMPLES / "alice"), "--executor", "dask"]) == 2
    assert "--executor only goes with --batch" in capsys.readouterr().err
    assert main(["batch", "bitgrid", str(small_class), "--out", out, "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert "--scheduler only goes with --executor dask" in capsys.readouterr().err
    assert (
        main(
            [
                "batch",
                "bitgrid",
                str(small_class),
                "--out",
                out,
                "--executor",
                "dask",
                "--scheduler",
                "tcp://127.0.0.1:1",
                "-j",
                "2",
            ]
        )
        == 2
    )
    assert "with --scheduler the cluster's workers decide" in capsys.readouterr().err


def test_an_unreachable_scheduler_is_one_line(
    small_class: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("grader.cluster.dask_cluster.CONNECT_TIMEOUT", "1s")
    assert (
        main(
            [
                "batch",
                "bitgrid",
                str(small_class),
                "--out",
                str(tmp_path / "out"),
                "--executor",
                "dask",
                "--scheduler",
                "tcp://127.0.0.1:1",
                "--sandbox",
                "process",
            ]
        )
        == 3
    )
    error = capsys.readouterr().err
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in error
    assert "Traceback" not in error
    assert not list((tmp_path / "out").glob("*/results.json"))


@pytest.mark.slow
def test_a_worker_killed_mid_batch_loses_nothing(tmp_path: Path) -> None:
    """The whole sample class (Dave runs into his time limits, so grading him takes a while);
    after the first result, a worker that is grading is killed; every student ends up with
    exactly one result, the same as in a local batch, and none of them a grader error."""
    loaded = load_suite("bitgrid")
    reference = tmp_path / "local"
    grade_batch(loaded, SAMPLES, reference, jobs=2, resume=False, sandbox="process")
    killed: list[tuple[str, list[str]]] = []
    calls: list[str] = []
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, memory_limit=0
    ) as cluster:

        def on_done(student: str, data: dict[str, Any], progress: BatchProgress) -> None:
            calls.append(student)
            if not killed and (victim := kill_a_busy_worker(cluster, "")):
                killed.append(victim)

        out = tmp_path / "cluster"
        progress = grade_batch(
            loaded,
            SAMPLES,
            out,
            jobs=None,
            resume=False,
            sandbox="process",
            on_done=on_done,
            executor="dask",
            scheduler=cluster.scheduler_address,
        )
    assert killed, "no worker was grading when the first result came back"
    students = sorted(p.stem if p.suffix == ".zip" else p.name for p in SAMPLES.iterdir())
    assert sorted(calls) == students, "a submission was lost or counted twice"
    assert progress.done == progress.total == len(students)
    assert grades_csv(loaded, out) == grades_csv(loaded, reference)
    assert verdicts(out) == verdicts(reference)
    assert not [s for s, tests in verdicts(out).items() if any(v == "JE" for _, v in tests)]
