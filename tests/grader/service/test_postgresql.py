"""The service on a real PostgreSQL server (Debian's, a throw-away cluster the test starts): the
same flow as on SQLite, and what only a server with concurrent writers shows: an attempt limit
raced by simultaneous uploads, every job graded once by two workers."""

from __future__ import annotations

import concurrent.futures
import glob
import json
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.grader.service.conftest import (
    COURSE,
    REFERENCE,
    Service,
    running,
    tokens,
    write_course,
)

pytestmark = pytest.mark.slow
SERVER_USER = "postgres"  # Debian's package makes it; the server refuses to run as root


def _binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _as_server_user(*command: str) -> list[str]:
    return ["runuser", "-u", SERVER_USER, "--", *command] if os.geteuid() == 0 else list(command)


@pytest.fixture(scope="module")
def postgresql_url() -> Iterator[str]:
    """A database on a PostgreSQL cluster started for this module (trust authentication, loopback
    only), as the course file's `database:` URL; skipped, saying why, where it cannot run."""
    binaries = _binaries()
    if binaries is None:
        pytest.skip("PostgreSQL is not installed (Debian's postgresql; `make` installs it as root)")
    try:
        owner = pwd.getpwnam(SERVER_USER) if os.geteuid() == 0 else None
    except KeyError:
        pytest.skip(f"no '{SERVER_USER}' user to run the PostgreSQL server as")
    folder = Path(tempfile.mkdtemp(prefix="grader-postgresql-"))
    data = folder / "data"
    data.mkdir()
    if owner is not None:
        for path in (folder, data):
            os.chown(path, owner.pw_uid, owner.pw_gid)
    port = _free_port()

    def run(*command: str) -> None:
        subprocess.run(_as_server_user(*command), check=True, capture_output=True, timeout=120)

    try:
        run(str(binaries / "initdb"), "-D", str(data), "-U", "grader", "--auth=trust", "--encoding=UTF8")
        run(
            str(binaries / "pg_ctl"),
            "-D",
            str(data),
            "-w",
            "-l",
            str(folder / "log"),
            "-o",
            f"-p {port} -k {folder} -c listen_addresses=127.0.0.1",
            "start",
        )
    except (subprocess.SubprocessError, OSError) as error:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.skip(f"PostgreSQL did not start here: {error}")
    try:
        run(str(binaries / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "grader", "course")
        yield f"postgresql://grader@127.0.0.1:{port}/course"
    finally:
        subprocess.run(
            _as_server_user(str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"),
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def on_postgresql(
    postgresql_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Service, dict[str, str]]]:
    course = write_course(
        tmp_path_factory.mktemp("postgresql"),
        COURSE.replace("roster: roster.csv\n", f"roster: roster.csv\ndatabase: {postgresql_url}\n"),
    )
    keys = tokens(course)
    with running(course) as service:
        yield service, keys
    assert not (course.parent / "course.sqlite").exists()  # everything went to PostgreSQL


def test_the_reference_gets_full_marks_and_hidden_results_stay_hidden(
    on_postgresql: tuple[Service, dict[str, str]],
) -> None:
    service, keys = on_postgresql
    data = service.graded("open", [("grid.py", REFERENCE.read_bytes())], keys["bob"])
    assert data["status"] == "graded" and data["score"] == data["max_score"] > 0
    hidden = [t for t in data["results"]["tests"] if t["visibility"] != "visible"]
    assert not hidden and "hidden" in json.dumps(data)  # before the due date: said, not shown


def test_an_attempt_limit_holds_against_simultaneous_uploads(
    on_postgresql: tuple[Service, dict[str, str]],
) -> None:
    service, keys = on_postgresql
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        replies = list(
            pool.map(
                lambda _: service.post("limited", [("grid.py", REFERENCE.read_bytes())], keys["carol"]),
                range(8),
            )
        )
    statuses = sorted(reply.status_code for reply in replies)
    assert statuses.count(202) == 2 and set(statuses) <= {202, 429, 503}, statuses
    for reply in replies:
        if reply.status_code == 202:
            assert service.wait(reply.json()["id"], keys["carol"])["status"] == "graded"


def test_two_workers_grade_every_job_exactly_once(
    on_postgresql: tuple[Service, dict[str, str]], postgresql_url: str
) -> None:
    import psycopg

    service, keys = on_postgresql
    sent = [
        (login, service.post("open", [("grid.py", REFERENCE.read_bytes())], keys[login]))
        for login in ("dave", "erin") * 3
    ]
    assert all(reply.status_code == 202 for _, reply in sent), [r.text for _, r in sent]
    idents = [reply.json()["id"] for _, reply in sent]
    for (login, _), ident in zip(sent, idents, strict=True):
        assert service.wait(ident, keys[login])["status"] == "graded"
    with psycopg.connect(postgresql_url) as database:
        rows = database.execute(
            "SELECT id, status, tries FROM service_submission WHERE id = ANY(%s)", (idents,)
        ).fetchall()
    assert sorted(rows) == sorted((ident, "graded", 1) for ident in idents)
