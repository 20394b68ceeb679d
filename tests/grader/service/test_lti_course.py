"""The course file's `lti:` section: every mistake one line naming the file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.grader.service.conftest import COURSE, grader, write_course

GOOD = (
    "lti:\n  issuer: https://canvas.instructure.com\n  client_id: '10000000000042'\n"
    "  deployment_ids: ['42:abc']\n  auth_login_url: https://sso.example.edu/api/lti/authorize_redirect\n"
    "  auth_token_url: https://sso.example.edu/login/oauth2/token\n"
    "  key_set_url: https://sso.example.edu/api/lti/security/jwks\n"
)


def refusal(tmp_path: Path, section: str) -> str:
    course = write_course(tmp_path, section + COURSE)
    done = grader("tokens", str(course))
    assert done.returncode == 3, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(f"error: {course}:"), lines
    return lines[0]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            (
                "  auth_login_url: https://sso.example.edu/api/lti/authorize_redirect\n",
                "  auth_login_url: nope\n",
            ),
            "lti.auth_login_url: 'nope' is not an http:// or https:// address with a host",
        ),
        (("  deployment_ids: ['42:abc']\n", "  deployment_ids: []\n"), "lti.deployment_ids"),
        (("  client_id: '10000000000042'\n", ""), "lti.client_id: required key is missing"),
        (
            ("  issuer: https://canvas.instructure.com\n", "  issuer: https://x\n  colour: blue\n"),
            "lti.colour",
        ),
    ],
)
def test_a_mistake_in_the_lti_section_is_one_line(
    tmp_path: Path, change: tuple[str, str], words: str
) -> None:
    assert change[0] in GOOD
    assert words in refusal(tmp_path, GOOD.replace(*change))


def test_a_private_key_that_is_not_one_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "key.pem").write_text("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n")
    line = refusal(tmp_path, GOOD + "  private_key: key.pem\n")
    assert "lti.private_key:" in line and "is not an unencrypted private key in PEM" in line
    line = refusal(tmp_path, GOOD + "  private_key: missing.pem\n")
    assert "lti.private_key: cannot read" in line


def test_a_good_lti_section_is_taken(tmp_path: Path) -> None:
    course = write_course(tmp_path, GOOD + COURSE)
    done = grader("tokens", str(course))
    assert done.returncode == 0, done.stderr
