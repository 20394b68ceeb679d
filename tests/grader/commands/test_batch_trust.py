"""A batch an instructor can trust: checks before grading, statuses, exact resume, the gradebook,
every format per student, and a judge error that does not pass as a zero."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.cli import main
from tests.grader.run.test_submissions import BROKEN_KINDS, broken_zip
from tests.toy_class import BROKEN, RIGHT, STUB, WRONG, add, grade_class, make_toy


@pytest.fixture
def toy_class(project: Path, tmp_path: Path) -> Path:
    make_toy(project)
    folder = tmp_path / "class"
    add(folder, "ada", RIGHT)
    add(folder, "bob", WRONG, as_zip=True)
    return folder


def _statuses(out: Path) -> dict[str, list[str]]:
    rows = list(csv.DictReader((out / "grades.csv").open()))
    return {row["student"]: [row["status"], row["score"]] for row in rows}


@pytest.mark.parametrize("break_it", ["given", "expectation", "stale", "out"])
def test_problems_are_found_before_anyone_is_graded(
    toy_class: Path, project: Path, tmp_path: Path, break_it: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    expected = project / "fixtures" / "toy" / "expected" / "double.json"
    if break_it == "given":
        (project / "exercises" / "toy" / "helper.py").unlink()
        named = "helper.py: the given file named in the suite does not exist"
    elif break_it == "expectation":
        expected.unlink()
        named = "double.json: the expectation of test 'double' is not recorded"
    elif break_it == "stale":
        (project / "reference" / "toy" / "toy.py").write_text(RIGHT + "\n# changed\n")
        named = "double.json: the expectation of test 'double' is stale"
    else:
        out.write_text("a file where the folder should be")
        named = f"{out}: cannot write the results there"
    assert grade_class(toy_class, out) == 3
    printed = capsys.readouterr().err
    assert f"error: {named}" in printed or named in printed
    assert "nothing graded" in printed and "Traceback" not in printed
    assert not list(tmp_path.glob("out/*/results.json"))


def test_statuses_say_why_a_score_is_zero(toy_class: Path, tmp_path: Path) -> None:
    add(toy_class, "cy", STUB)
    add(toy_class, "dee", BROKEN)
    add(toy_class, "eve", None)  # an empty folder
    add(toy_class, "fay", None, as_zip=True)  # an empty zip
    (toy_class / "gil.zip").write_bytes(b"PK\x03\x04 not really a zip")
    (toy_class / "hal").mkdir()
    (toy_class / "hal" / "notes.txt").write_text("forgot my code")
    out = tmp_path / "out"
    assert grade_class(toy_class, out) == 0
    assert _statuses(out) == {
        "ada": ["graded", "3"],
        "bob": ["graded", "0"],
        "cy": ["graded", "0"],
        "dee": ["CE", "0"],
        "eve": ["empty", "0"],
        "fay": ["empty", "0"],
        "gil": ["corrupt", "0"],
        "hal": ["not-submitted-files", "0"],
    }


def test_every_format_per_student_is_the_graders_alone(toy_class: Path, tmp_path: Path) -> None:
    """Issue 29: whatever the umask, what the batch writes is closed to others (docs/isolation.md,
    "What the grader writes"): instructor feedback holds hidden cases and expected values."""
    out = tmp_path / "out"
    os.umask(0o022)
    assert grade_class(toy_class, out) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    for student in ("ada", "bob"):
        assert stat.S_IMODE((out / student).stat().st_mode) == 0o700
        for name in ("results.json", "junit.xml", "feedback.html", "feedback-instructor.html"):
            mode = stat.S_IMODE((out / student / name).stat().st_mode)
            assert mode == 0o600, (student, name, oct(mode))
    data = json.loads((out / "bob" / "results.json").read_text())
    assert set(data["extra_data"]) >= {
        "exercise",
        "suite_fingerprint",
        "expectations_fingerprint",
        "submission_hash",
        "grader_version",
        "status",
        "student",
    }
    for name in ("grades.csv", "summary.html", "gradebook.sqlite"):
        assert stat.S_IMODE((out / name).stat().st_mode) == 0o600


def test_results_and_junit_flags_are_refused_with_batch(
    toy_class: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "grade",
                "toy",
                str(toy_class),
                "--batch",
                "--out",
                str(tmp_path / "out"),
                "--junit",
                str(tmp_path / "j.xml"),
            ]
        )
        == 2
    )
    assert "error: --junit does not go with --batch" in capsys.readouterr().err


@pytest.mark.slow
def test_resume_regrades_exactly_what_changed(
    toy_class: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert grade_class(toy_class, out) == 0
    times = {s: (out / s / "results.json").stat().st_mtime_ns for s in ("ada", "bob")}
    assert grade_class(toy_class, out, resume=True) == 0
    assert "regrading 0 of 2" in capsys.readouterr().out
    assert times == {s: (out / s / "results.json").stat().st_mtime_ns for s in ("ada", "bob")}
    (toy_class / "ada" / "toy.py").write_text(WRONG)  # ada resubmits
    assert grade_class(toy_class, out, resume=True) == 0
    assert "regrading 1 of 2" in capsys.readouterr().out
    assert (out / "bob" / "results.json").stat().st_mtime_ns == times["bob"]
    assert _statuses(out)["ada"] == ["graded", "0"]
    suite = project / "fixtures" / "toy" / "suite.yaml"
    suite.write_text(suite.read_text().replace("points: 2", "points: 4"))  # a test's points change
    assert grade_class(toy_class, out, resume=True) == 0
    assert "regrading 2 of 2" in capsys.readouterr().out
    rows = list(csv.DictReader((out / "grades.csv").open()))
    assert {row["max_score"] for row in rows} == {"5"}


def test_an_out_of_another_exercise_is_refused(
    toy_class: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    with sqlite3.connect(out / "gradebook.sqlite") as connection:
        connection.executescript(
            "CREATE TABLE about (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
            "INSERT INTO about VALUES ('exercise', 'bitgrid');"
        )
    assert grade_class(toy_class, out, resume=True) == 3
    printed = capsys.readouterr().err
    assert "holds the grades of exercise 'bitgrid', not 'toy'" in printed


@pytest.mark.slow
def test_gradebook_changes_name_the_students_and_tests(
    toy_class: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert grade_class(toy_class, out) == 0
    expected = project / "fixtures" / "toy" / "expected" / "rejects-negative.json"
    suite = project / "fixtures" / "toy" / "suite.yaml"
    suite.write_text(suite.read_text().replace("points: 1", "points: 3"))
    assert grade_class(toy_class, out, resume=True) == 0
    capsys.readouterr()
    assert main(["gradebook", str(out), "--changes"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("ada: 3/3 -> 5/5 (graded ")
    assert printed[1] == "  rejects-negative: AC 1/1 -> AC 3/3"
    assert not any(line.startswith("bob") for line in printed)
    assert expected.is_file()
    assert main(["gradebook", str(tmp_path / "nowhere"), "--changes"]) == 3


def test_a_judge_error_ends_the_batch_non_zero_naming_the_student(
    toy_class: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from grader.cluster import grading, pool

    real = grading.grade

    def breaks_on_bob(loaded, source, **options):  # type: ignore[no-untyped-def]
        if source.name.startswith("bob"):
            raise RuntimeError("the grader broke")
        return real(loaded, source, **options)

    monkeypatch.setattr(grading, "grade", breaks_on_bob)
    monkeypatch.setattr(pool, "start_pool", _InlinePool)  # so the patch applies
    assert grade_class(toy_class, tmp_path / "out") == 1
    printed = capsys.readouterr().out
    assert "grader error (JE) for 1 submission(s): bob" in printed
    assert _statuses(tmp_path / "out")["bob"] == ["JE", "0"]


class _InlinePool:
    """A pool that runs each job in this process (so a test can replace what it runs)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def submit(self, function, *args):  # type: ignore[no-untyped-def]
        from concurrent.futures import Future

        future: Future[object] = Future()
        future.set_result(function(*args))
        return future

    def shutdown(self, *args: object, **kwargs: object) -> None:
        pass


@pytest.mark.slow
def test_ctrl_c_ends_the_batch_keeping_finished_results(project: Path, tmp_path: Path) -> None:
    """SIGINT to the batch's process group, as a terminal sends it: exit 130, results kept."""
    make_toy(project)
    folder = tmp_path / "class"
    for index in range(4):
        add(folder, f"s{index}", RIGHT)
    for index in range(4, 8):
        add(folder, f"s{index}", "while True:\n    pass\n" + RIGHT)  # TLE after 2 s of CPU
    out = tmp_path / "out"
    command = [
        sys.executable,
        "-m",
        "grader",
        "grade",
        "toy",
        str(folder),
        "--batch",
        "-j",
        "2",
        "--out",
        str(out),
        "--sandbox",
        "process",
    ]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env={**os.environ, "GRADER_ROOT": str(project)},
    )
    deadline = time.monotonic() + 120
    while len(list(out.glob("*/results.json"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)
    printed, _ = process.communicate(timeout=60)  # a safety net; the report gives the time taken
    assert process.returncode == 130, printed
    assert b"Traceback" not in printed and b"InvalidStateError" not in printed
    finished = {p.parent.name for p in out.glob("*/results.json")}
    assert 2 <= len(finished) < 8, f"not cut short: {sorted(finished)}"
    assert f"interrupted: {len(finished)} result(s) kept in {out}".encode() in printed, printed
    with sqlite3.connect(out / "gradebook.sqlite") as connection:
        stored = {row[0] for row in connection.execute("SELECT student FROM attempts")}
    assert finished <= stored
    before = {name: (out / name / "results.json").stat().st_mtime_ns for name in finished}
    assert grade_class(folder, out, resume=True) == 0
    assert len(list(out.glob("*/results.json"))) == 8
    assert {name: (out / name / "results.json").stat().st_mtime_ns for name in finished} == before
    shutil.rmtree(out)


def test_the_student_page_withholds_hidden_failures_and_the_instructor_page_shows_them(
    project: Path, toy_class: Path, tmp_path: Path
) -> None:
    suite = project / "fixtures" / "toy" / "suite.yaml"
    text = suite.read_text()
    suite.write_text(
        text.replace(
            "  - name: double\n    points: 2\n",
            "  - name: double\n    points: 2\n    visibility: hidden\n",
            1,
        )
    )
    assert suite.read_text() != text
    out = tmp_path / "out"
    assert grade_class(toy_class, out) == 0
    student = (out / "bob" / "feedback.html").read_text()
    instructor = (out / "bob" / "feedback-instructor.html").read_text()
    assert "double (hidden)" in student and "0/2" in student
    assert "toy.double(1)" in instructor and "toy.double(1)" not in student
    assert "bob/feedback-instructor.html" in (out / "summary.html").read_text()


@pytest.mark.timeout(120)
def test_unreadable_zips_are_corrupt_and_everyone_else_is_graded(
    toy_class: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for kind in BROKEN_KINDS:
        broken_zip(toy_class / f"z-{kind}.zip", kind, member="toy.py", code=RIGHT.encode())
    os.mkfifo(toy_class / "fifo.zip")
    out = tmp_path / "out"
    assert grade_class(toy_class, out) == 0
    statuses = _statuses(out)
    assert statuses == {
        "ada": ["graded", "3"],
        "bob": ["graded", "0"],
        **{f"z-{kind}": ["corrupt", "0"] for kind in BROKEN_KINDS},
    }
    printed = capsys.readouterr()
    assert "warning: skipped fifo.zip: not a regular file (a FIFO)" in printed.err
    assert "Traceback" not in printed.out + printed.err
    said = json.loads((out / "z-encrypted" / "results.json").read_text())["output"]
    assert said == (
        "No test could run: z-encrypted.zip: not a readable .zip file ('toy.py' is "
        "encrypted: zip it again without a password)"
    )  # once, not in every test
