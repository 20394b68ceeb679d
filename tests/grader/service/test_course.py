"""The course file and roster: every problem one line naming the file and line; `grader tokens`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader.service.course import CourseError, PerDay, PerMinute, late_minutes, load_course
from tests.grader.service.conftest import COURSE, ROSTER, grader, write_course

GOOD = """\
title: t
roster: roster.csv
instructors: [alice]
assignments:
  - name: bitgrid-1
    exercise: bitgrid
    due: 2026-12-01T23:59:00Z
"""


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        (GOOD.replace("title: t", "title: t\ncolour: red"), 2, "colour: unknown key"),
        (GOOD.replace("due: 2026-12-01T23:59:00Z", "due: tomorrow"), 7, "assignments.0.due"),
        (GOOD.replace("due: 2026-12-01T23:59:00Z", "due: 2026-12-01T23:59:00"), 7, "timezone"),
        (
            GOOD.replace("due: 2026-12-01T23:59:00Z", "due: 9999-12-31T23:59:59-14:00"),
            7,
            "assignments.0.due: a date between 1970 and 2999",
        ),
        (GOOD + "    opens: 0001-01-01T00:00:00+14:00\n", 8, "assignments.0.opens: a date between"),
        (GOOD.replace("[alice]", "[alice, mallory]"), 3, "'mallory' is not a login of the roster"),
        (GOOD.replace("exercise: bitgrid", "exercise: nosuch"), 6, "assignments.0.exercise"),
        (GOOD.replace("name: bitgrid-1", "name: ../etc"), 5, "assignments.0.name"),
        (GOOD + "    late: {per_minute: 1, max: 100, extra: 1}\n", 8, "assignments.0.late"),
        (GOOD + "    counts: first\n", 8, "assignments.0.counts"),
        (GOOD + "    attempts: 0\n", 8, "assignments.0.attempts"),
        (
            GOOD + "  - name: bitgrid-1\n    exercise: bitgrid\n    due: 2026-12-02T00:00:00Z\n",
            8,
            "named twice",
        ),
        (GOOD + "    opens: 2026-12-05T00:00:00Z\n", 5, "opens must come before due"),
        ("title: t\nroster: [unclosed\n", 3, "malformed YAML"),
        (
            GOOD.replace("title: t", "title: t\ntimezone: Mars/Olympus"),
            2,
            "timezone: 'Mars/Olympus' is not a time zone name zoneinfo knows",
        ),
        (
            GOOD.replace("title: t", "title: t\ntimezone: ../../etc/passwd"),
            2,
            "timezone: '../../etc/passwd' is not a time zone name",
        ),
        (GOOD.replace("title: t", "title: t\ntimezone: 3"), 2, "timezone: "),
        (GOOD + "    tournament: {games: 0}\n", 8, "assignments.0.tournament.games"),
        (GOOD + "    tournament: {games: 2, rounds: 3}\n", 8, "assignments.0.tournament.rounds: unknown key"),
        (GOOD + "    tournament: {standings: everyone}\n", 8, "assignments.0.tournament.standings"),
        (GOOD + "    tournament: yes\n", 8, "assignments.0.tournament"),
        (GOOD + "    tournament: {games: 2}\n", 8, "assignments.0.tournament: bitgrid has no tournament"),
    ],
)
def test_a_bad_course_file_is_one_located_line(tmp_path: Path, text: str, line: int, says: str) -> None:
    path = write_course(tmp_path, text, "login,name\nalice,A\n")
    with pytest.raises(CourseError) as caught:
        load_course(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:{line}: "), message
    assert says in message and "\n" not in message


@pytest.mark.parametrize(
    ("roster", "says"),
    [
        ("name\nalice\n", "roster.csv:1: the header has no 'login' column"),
        ("login\nalice\nalice\n", "roster.csv:3: login 'alice' is listed twice"),
        ("login,name\nalice\n", "roster.csv:2: 1 cells where the header has 2"),
        ("login\n../alice\n", "roster.csv:2: login '../alice' is not a plain login"),
        ("login\n<b>x\n", "is not a plain login"),
    ],
)
def test_a_bad_roster_is_one_located_line(tmp_path: Path, roster: str, says: str) -> None:
    path = write_course(tmp_path, GOOD, roster)
    with pytest.raises(CourseError, match="roster"):
        load_course(path)
    with pytest.raises(CourseError) as caught:
        load_course(path)
    assert says in str(caught.value)


def test_the_issue_s_example_loads(tmp_path: Path) -> None:
    course = load_course(write_course(tmp_path, COURSE, ROSTER))
    assert [a.name for a in course.spec.assignments][:2] == ["open", "past"]
    assert course.database == str(tmp_path / "course.sqlite")
    assert course.people["alice"].instructor and not course.people["bob"].instructor


def test_late_rules() -> None:
    per_minute = PerMinute(per_minute=1, max=100)
    assert per_minute.per_minute == 1
    from datetime import UTC, datetime, timedelta

    due = datetime(2026, 12, 1, 23, 59, tzinfo=UTC)
    assert late_minutes(due, due) == 0
    assert late_minutes(due + timedelta(seconds=1), due) == 1
    assert late_minutes(due + timedelta(minutes=150), due) == 150
    assert late_minutes(due - timedelta(days=1), due) == 0
    from grader.service.course import Assignment

    weighted = Assignment(name="a", exercise="bitgrid", due=due, late=per_minute)
    assert weighted.penalty(0, 40) == 0 and weighted.penalty(7, 40) == 7
    assert weighted.penalty(500, 40) == 100
    daily = Assignment(name="a", exercise="bitgrid", due=due, late=PerDay(per_day_percent=10, max_days=3))
    assert daily.penalty(1, 40) == 4 and daily.penalty(24 * 60 + 1, 40) == 8
    assert not daily.closed(3 * 24 * 60) and daily.closed(3 * 24 * 60 + 1)


def test_grader_tokens_prints_csv_once_and_reissues_named_logins(tmp_path: Path) -> None:
    path = write_course(tmp_path, GOOD, "login,name\nalice,A\nbob,B\n")
    first = grader("tokens", str(path))
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert [line.split(",")[0] for line in lines] == ["alice", "bob"]
    assert all(len(line.split(",")[1]) >= 40 for line in lines)
    again = grader("tokens", str(path))
    assert again.returncode == 0 and again.stdout == ""  # everyone has one
    bob = grader("tokens", str(path), "bob")
    assert bob.stdout.startswith("bob,") and bob.stdout != lines[1] + "\n"
    unknown = grader("tokens", str(path), "mallory")
    assert unknown.returncode == 3 and "no login mallory in the roster" in unknown.stderr
    bad = write_course(tmp_path / "bad", GOOD.replace("title: t", "titel: t"), "login\nalice\n")
    broken = grader("tokens", str(bad))
    assert broken.returncode == 3
    assert broken.stderr.strip().splitlines() == [
        f"error: {bad}:1: title: required key is missing (and 1 more)"
    ]


def test_the_database_is_sqlite_beside_the_course_or_a_postgresql_url(tmp_path: Path) -> None:
    from grader.service.setup import database, secret_key

    course = load_course(write_course(tmp_path, GOOD, "login\nalice\n"))
    sqlite = database(course)
    assert sqlite["ENGINE"] == "django.db.backends.sqlite3"
    assert sqlite["NAME"] == str(tmp_path / "course.sqlite")
    assert "synchronous=FULL" in sqlite["OPTIONS"]["init_command"]
    postgres = load_course(
        write_course(
            tmp_path / "pg",
            GOOD.replace("roster:", "database: postgresql://grader:s%40cret@db:5433/autumn\nroster:"),
            "login\nalice\n",
        )
    )
    settings = database(postgres)
    assert (
        settings["ENGINE"],
        settings["NAME"],
        settings["USER"],
        settings["PASSWORD"],
        settings["HOST"],
        settings["PORT"],
    ) == ("django.db.backends.postgresql", "autumn", "grader", "s@cret", "db", "5433")
    mysql = load_course(
        write_course(
            tmp_path / "my", GOOD.replace("roster:", "database: mysql://db/x\nroster:"), "login\nalice\n"
        )
    )
    with pytest.raises(CourseError, match="only SQLite paths and postgresql:// URLs"):
        database(mysql)
    key = secret_key(course.state)
    assert key == secret_key(course.state) and len(key) >= 40
    assert (course.state / "secret_key").stat().st_mode & 0o777 == 0o600


def test_a_missing_or_empty_late_closes_at_the_due_date(tmp_path: Path) -> None:
    from datetime import timedelta

    for text in (GOOD, GOOD + "    late:\n", GOOD + "    late: none\n"):
        (tmp_path / "roster.csv").write_text(ROSTER)
        (tmp_path / "course.yaml").write_text(text)
        assignment = load_course(tmp_path / "course.yaml", check_suites=False).spec.assignments[0]
        assert assignment.late == "none", text
        assert assignment.closed(1) and not assignment.closed(0)
        assert assignment.credit_ends(assignment.due) == assignment.due
        assert assignment.penalty(0, 10) == 0
        assert "no late submissions" in assignment.late_rule()
    per_day = load_course(
        write_course(tmp_path / "d", GOOD + "    late: {per_day_percent: 10, max_days: 2}\n", ROSTER),
        check_suites=False,
    )
    assignment = per_day.spec.assignments[0]
    assert assignment.credit_ends(assignment.due) == assignment.due + timedelta(days=2)
    free = load_course(
        write_course(tmp_path / "m", GOOD + "    late: {per_minute: 1, max: 0}\n", ROSTER), check_suites=False
    ).spec.assignments[0]
    assert free.credit_ends(free.due) is None and free.penalty(10_000, 10) == 0


@pytest.mark.parametrize("stale", ["abc", "0", "-5", "inf", "nan"])
def test_a_malformed_stale_limit_stops_the_service_in_one_line(
    tmp_path: Path, stale: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRADER_SERVICE_STALE_S", stale)
    done = grader("serve", str(write_course(tmp_path)), "--port", "0")
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == [
        f"error: $GRADER_SERVICE_STALE_S={stale!r}: a number of seconds above 0"
    ]


def test_the_time_zone_defaults_to_utc_and_takes_an_iana_name(tmp_path: Path) -> None:
    roster = "login,name\nalice,A\n"
    assert load_course(write_course(tmp_path / "a", GOOD, roster)).spec.timezone == "UTC"
    paris = load_course(write_course(tmp_path / "b", f"timezone: Europe/Paris\n{GOOD}", roster))
    assert str(paris.spec.zone) == "Europe/Paris"


def test_time_zones_work_without_the_system_s_zoneinfo(tmp_path: Path) -> None:
    """Where the system has no zoneinfo (a slim container, Windows), zoneinfo falls back on the
    `tzdata` package, a dependency: $PYTHONTZPATH pointing nowhere stands for such a system."""
    course = write_course(tmp_path, f"timezone: Europe/Paris\n{GOOD}", "login,name\nalice,A\n")
    script = (
        "import sys, zoneinfo; from datetime import datetime, UTC; from pathlib import Path;"
        "from grader.service.course import load_course; from grader.service.dates import human;"
        "assert zoneinfo.TZPATH == ('/nonexistent',), zoneinfo.TZPATH;"
        "course = load_course(Path(sys.argv[1]), check_suites=False);"
        "print(human(datetime(2026, 7, 1, 12, tzinfo=UTC), course.spec.zone))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(course)],
        env={**os.environ, "PYTHONTZPATH": "/nonexistent"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Wed 1 Jul 2026, 14:00 CEST"


def test_a_roster_may_give_each_person_a_section(tmp_path: Path) -> None:
    roster = 'login,name,section\nalice,A,\nbob,B,Lab 2\ncarol,C,"<b>x</b>"\n'
    people = load_course(write_course(tmp_path, GOOD, roster)).people
    assert [people[login].section for login in ("alice", "bob", "carol")] == ["", "Lab 2", "<b>x</b>"]
    assert (
        load_course(write_course(tmp_path / "none", GOOD, "login,name\nalice,A\n")).people["alice"].section
        == ""
    )


def test_an_assignment_opts_in_to_a_tournament(tmp_path: Path) -> None:
    ultimate = GOOD.replace("exercise: bitgrid", "exercise: ultimate")
    plain = load_course(write_course(tmp_path, ultimate, "login\nalice\n"))
    assert plain.spec.assignments[0].tournament is None
    bare = load_course(write_course(tmp_path, ultimate + "    tournament:\n", "login\nalice\n"))
    spec = bare.spec.assignments[0].tournament
    assert spec is not None and (spec.games, spec.standings) == (2, "instructors")
    shown = load_course(
        write_course(
            tmp_path, ultimate + "    tournament: {games: 1, standings: students}\n", "login\nalice\n"
        )
    )
    spec = shown.spec.assignments[0].tournament
    assert spec is not None and (spec.games, spec.standings) == (1, "students")
