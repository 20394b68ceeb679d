"""Django configured from a course file: database, secret key, applications, middleware."""

from __future__ import annotations

import logging
import os
import secrets
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from grader.inert import inert_name
from grader.service.course import Course, CourseError

MAX_UPLOAD_BYTES = 5 * 1024 * 1024  # one submission's request body
MAX_UPLOAD_FILES = 20
LOG_MESSAGE_CHARS = 200  # what one log record may say (a request's path: the client's choice)


class OneShortLine(logging.Filter):
    """A log record's message made one inert line of at most LOG_MESSAGE_CHARS characters: a
    client's 30 KB path (`Not Found: /aaa...`) or its newlines cannot flood or forge the log."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = inert_name(record.getMessage())
        if len(message) > LOG_MESSAGE_CHARS:
            message = f"{message[:LOG_MESSAGE_CHARS]}... [{len(message) - LOG_MESSAGE_CHARS} more characters]"
        record.msg, record.args = message, None
        return True


def configure_logging() -> None:
    """Warnings and errors (Django's `Not Found: PATH`, waitress's) to stderr, one short line
    each (a traceback follows an error's line); once per process."""
    root = logging.getLogger()
    if any(isinstance(kept, OneShortLine) for handler in root.handlers for kept in handler.filters):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.addFilter(OneShortLine())
    handler.setFormatter(logging.Formatter("%(message)s"))
    root.addHandler(handler)


def secret_key(state: Path) -> str:
    """The course's secret key (sessions, CSRF, token digests), created once, readable by us only."""
    path = state / "secret_key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    state.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    return key


def database(course: Course) -> dict[str, Any]:
    """SQLite (a path; WAL, durable commits) or PostgreSQL (a postgresql:// URL)."""
    named = course.database
    if "://" not in named:
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": named,
            "OPTIONS": {
                "timeout": 30,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;",
            },
        }
    url = urlsplit(named)
    if url.scheme not in {"postgres", "postgresql"}:
        raise CourseError(f"{course.path}: database: only SQLite paths and postgresql:// URLs")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": url.path.lstrip("/"),
        "USER": unquote(url.username or ""),
        "PASSWORD": unquote(url.password or ""),
        "HOST": url.hostname or "",
        "PORT": str(url.port or ""),
    }


PRIVATE_FOLDER, PRIVATE_FILE = 0o700, 0o600


def private_folder(folder: Path, below: Path) -> Path:
    """`folder` and every folder from `below` down to it, created or made PRIVATE_FOLDER."""
    for step in [*reversed(folder.relative_to(below).parents), folder.relative_to(below)]:
        path = below / step
        path.mkdir(mode=PRIVATE_FOLDER, exist_ok=True)
        path.chmod(PRIVATE_FOLDER)
    return folder


def private_file(path: Path) -> Path:
    """`path` created empty if missing, and made PRIVATE_FILE, before anything writes into it
    (SQLite gives its journal files the database's mode)."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE))
    path.chmod(PRIVATE_FILE)
    return path


def keep_private(course: Course) -> None:
    """The service's files readable by us only: its folder and every folder in it 0700, every
    file in it 0600 (submissions, gradebooks, the secret key: earlier versions left some
    readable), a SQLite database 0600 before SQLite opens it (its -wal and -shm files take the
    database's mode). The database holds live session keys and every result."""
    course.state.mkdir(parents=True, exist_ok=True)
    course.state.chmod(PRIVATE_FOLDER)
    for folder, subfolders, files in os.walk(course.state):
        for name in subfolders:
            (Path(folder) / name).chmod(PRIVATE_FOLDER)
        for name in files:
            (Path(folder) / name).chmod(PRIVATE_FILE)
    if "://" in course.database:
        return
    path = Path(course.database)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    for companion in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        if companion.exists():
            companion.chmod(0o600)


LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"]  # `grader submit` and checks on the machine


def public_settings(public_url: str | None) -> dict[str, Any]:
    """Django's settings that follow from the origin students use (`public_url`, or
    $GRADER_PUBLIC_URL): its forms trusted from that origin (CSRF), the host names answered,
    and behind a TLS proxy (https) cookies sent over TLS only and a request the proxy marks
    `X-Forwarded-Proto: https` taken as secure. The proxy must set that header itself (nginx:
    `proxy_set_header X-Forwarded-Proto $scheme`, which replaces a client's) and the service
    listen on loopback only, or a client could claim TLS it does not have.

    >>> public_settings(None)["ALLOWED_HOSTS"]
    ['*']
    >>> secure = public_settings("https://grader.example.edu")
    >>> secure["CSRF_TRUSTED_ORIGINS"], secure["SESSION_COOKIE_SECURE"], secure["ALLOWED_HOSTS"][0]
    (['https://grader.example.edu'], True, 'grader.example.edu')
    >>> secure["SECURE_PROXY_SSL_HEADER"]
    ('HTTP_X_FORWARDED_PROTO', 'https')
    """
    if public_url is None:
        return {"ALLOWED_HOSTS": ["*"]}
    url = urlsplit(public_url)
    host = url.netloc.rsplit(":", 1)[0] if url.port is not None else url.netloc
    tls = url.scheme == "https"
    chosen: dict[str, Any] = {
        "ALLOWED_HOSTS": [host, *(name for name in LOOPBACK_HOSTS if name != host)],
        "CSRF_TRUSTED_ORIGINS": [public_url],
        "SESSION_COOKIE_SECURE": tls,
        "CSRF_COOKIE_SECURE": tls,
    }
    if tls:
        chosen["SECURE_PROXY_SSL_HEADER"] = ("HTTP_X_FORWARDED_PROTO", "https")
    return chosen


def configure(course: Course, debug: bool = False) -> None:
    """Configure Django for `course` (once per process); `migrate` then creates its tables."""
    import django
    from django.conf import settings

    if settings.configured:
        return
    keep_private(course)
    settings.configure(
        DEBUG=debug,
        SECRET_KEY=secret_key(course.state),
        **public_settings(course.public_url),
        DATABASES={"default": database(course)},
        INSTALLED_APPS=[
            "django.contrib.contenttypes",
            "django.contrib.auth",
            "django.contrib.sessions",
            "grader.service",
        ],
        MIDDLEWARE=[
            "django.middleware.security.SecurityMiddleware",
            "django.contrib.sessions.middleware.SessionMiddleware",
            "django.middleware.common.CommonMiddleware",
            "django.middleware.csrf.CsrfViewMiddleware",
            "django.contrib.auth.middleware.AuthenticationMiddleware",
            "django.middleware.clickjacking.XFrameOptionsMiddleware",
            "grader.service.pages.content_security_policy",
            "grader.service.pages.never_cached",
        ],
        ROOT_URLCONF="grader.service.urls",
        TEMPLATES=[
            {
                "BACKEND": "django.template.backends.django.DjangoTemplates",
                "APP_DIRS": True,
                "OPTIONS": {
                    "context_processors": [
                        "django.template.context_processors.request",
                        "django.contrib.auth.context_processors.auth",
                    ]
                },
            }
        ],
        USE_TZ=True,
        TIME_ZONE="UTC",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        CSRF_COOKIE_SAMESITE="Lax",
        SECURE_CONTENT_TYPE_NOSNIFF=True,
        X_FRAME_OPTIONS="DENY",
        DATA_UPLOAD_MAX_MEMORY_SIZE=MAX_UPLOAD_BYTES,
        FILE_UPLOAD_MAX_MEMORY_SIZE=MAX_UPLOAD_BYTES,
        DATA_UPLOAD_MAX_NUMBER_FILES=MAX_UPLOAD_FILES,
        DATA_UPLOAD_MAX_NUMBER_FIELDS=100,
        FILE_UPLOAD_HANDLERS=[
            "grader.service.uploads.HeadersChecked",
            "django.core.files.uploadhandler.MemoryFileUploadHandler",
            "django.core.files.uploadhandler.TemporaryFileUploadHandler",
        ],
        LOGIN_URL="/",
        GRADER_COURSE=course,
        LOGGING_CONFIG=None,
    )
    django.setup()


def migrate() -> None:
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def configure_without_course() -> None:
    """Django configured with no course and no database, so that the service's modules can be
    imported (its models need configured settings) by tools that only read them: doctests."""
    import django
    from django.conf import settings

    if settings.configured:
        return
    settings.configure(
        INSTALLED_APPS=[
            "django.contrib.contenttypes",
            "django.contrib.auth",
            "django.contrib.sessions",
            "grader.service",
        ],
        DATABASES={},
        USE_TZ=True,
        ROOT_URLCONF="grader.service.urls",
        GRADER_COURSE=None,
    )
    django.setup()
