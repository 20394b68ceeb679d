"""The public URL (`public_url:` in the course file, or $GRADER_PUBLIC_URL): a bad one is one line
naming the file and key (exit 3, never a traceback); a good one sets the settings a TLS proxy
needs (trusted origin, secure cookies, X-Forwarded-Proto)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.service.course import PUBLIC_URL_ENV, CourseError, load_course
from grader.service.setup import public_settings
from tests.grader.service.conftest import grader, write_course
from tests.grader.service.test_course import GOOD

ROSTER = "login,name\nalice,A\n"
BAD_URLS = [
    ("grader.example.edu", "http:// or https://"),
    ("ftp://grader.example.edu", "http:// or https://"),
    ("https://grader.example.edu/course", "no path, query or fragment"),
    ("https://grader.example.edu/?next=/", "no path, query or fragment"),
    ("https://grader.example.edu#top", "no path, query or fragment"),
    ("https://admin:secret@grader.example.edu", "no user or password"),
    ("https://grader.example.edu:99999", "Port out of range"),
    ("https://grader.example.edu:port", "is not an origin"),
    ("https://", "no host name"),
    ("https://grader_example.edu", "a bad host name"),
    ("https://grader.example.edu\r\nSet-Cookie: x=1", "no spaces or control characters"),
]


def with_public_url(url: str) -> str:
    return GOOD.replace("roster:", f"public_url: {url!r}\nroster:")


@pytest.mark.parametrize(("url", "says"), BAD_URLS)
def test_a_bad_public_url_in_the_course_file_is_one_located_line(
    tmp_path: Path, url: str, says: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PUBLIC_URL_ENV, raising=False)
    path = write_course(tmp_path, with_public_url(url.replace("\r\n", "\\r\\n")), ROSTER)
    with pytest.raises(CourseError) as caught:
        load_course(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:2: public_url: "), message
    assert says in message and "\n" not in message and "\r" not in message


@pytest.mark.parametrize(("url", "says"), BAD_URLS)
def test_a_bad_public_url_in_the_environment_names_the_variable(
    tmp_path: Path, url: str, says: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_course(tmp_path, GOOD, ROSTER)
    monkeypatch.setenv(PUBLIC_URL_ENV, url)
    with pytest.raises(CourseError) as caught:
        load_course(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: {PUBLIC_URL_ENV} (overrides public_url): "), message
    assert says in message and "\n" not in message and "\r" not in message


def test_grader_serve_with_a_bad_public_url_exits_3_with_one_line(tmp_path: Path) -> None:
    path = write_course(tmp_path, with_public_url("https://grader.example.edu/course"), ROSTER)
    done = grader("serve", str(path), "--port", "0", env={PUBLIC_URL_ENV: ""})
    assert done.returncode == 3
    assert done.stderr.strip().splitlines() == [
        f"error: {path}:2: public_url: 'https://grader.example.edu/course' is not an origin like "
        f"https://grader.example.edu (no path, query or fragment: the service is served at /)"
    ]
    path = write_course(tmp_path / "good", GOOD, ROSTER)
    overridden = grader("serve", str(path), "--port", "0", env={PUBLIC_URL_ENV: "grader"})
    assert overridden.returncode == 3
    assert overridden.stderr.strip().splitlines() == [
        f"error: {path}: {PUBLIC_URL_ENV} (overrides public_url): 'grader' is not an origin "
        f"like https://grader.example.edu (http:// or https://)"
    ]


def test_the_environment_overrides_the_course_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_course(tmp_path, with_public_url("https://Grader.Example.edu/"), ROSTER)
    monkeypatch.delenv(PUBLIC_URL_ENV, raising=False)
    assert load_course(path).public_url == "https://grader.example.edu"
    monkeypatch.setenv(PUBLIC_URL_ENV, "https://staging.example.edu:8443")
    assert load_course(path).public_url == "https://staging.example.edu:8443"
    monkeypatch.setenv(PUBLIC_URL_ENV, "")
    assert load_course(path).public_url == "https://grader.example.edu"
    assert load_course(write_course(tmp_path / "none", GOOD, ROSTER)).public_url is None


def test_https_makes_cookies_secure_and_trusts_the_proxy_s_forwarded_proto() -> None:
    assert public_settings("https://grader.example.edu:8443") == {
        "ALLOWED_HOSTS": ["grader.example.edu", "127.0.0.1", "localhost", "[::1]"],
        "CSRF_TRUSTED_ORIGINS": ["https://grader.example.edu:8443"],
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_PROXY_SSL_HEADER": ("HTTP_X_FORWARDED_PROTO", "https"),
    }
    # Plain http (a trusted network): no secure cookies, and X-Forwarded-Proto means nothing.
    assert public_settings("http://10.0.0.5:8000") == {
        "ALLOWED_HOSTS": ["10.0.0.5", "127.0.0.1", "localhost", "[::1]"],
        "CSRF_TRUSTED_ORIGINS": ["http://10.0.0.5:8000"],
        "SESSION_COOKIE_SECURE": False,
        "CSRF_COOKIE_SECURE": False,
    }
    assert public_settings(None) == {"ALLOWED_HOSTS": ["*"]}
