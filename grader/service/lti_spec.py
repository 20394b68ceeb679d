"""The course file's `lti:` section: the LMS (an LTI 1.3 platform) this course is launched from.

Validated with the rest of the course file (one line per mistake, naming the file, the line and
the key); nothing here needs the web framework.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from grader.inert import inert_name

SHORT_TEXT = Annotated[str, Field(min_length=1, max_length=255)]


def web_address(url: str) -> str:
    """An absolute http(s) address with a host, else a ValueError saying what is wrong.

    >>> web_address("https://canvas.example.edu/api/lti/authorize_redirect")
    'https://canvas.example.edu/api/lti/authorize_redirect'
    >>> web_address("canvas.example.edu")
    Traceback (most recent call last):
    ...
    ValueError: 'canvas.example.edu' is not an http:// or https:// address with a host
    """
    shown = inert_name(url)[:200]
    try:
        parts = urlsplit(url)
    except ValueError:
        parts = None
    if (
        parts is None
        or parts.scheme not in {"http", "https"}
        or not parts.hostname
        or any(character.isspace() or not character.isprintable() for character in url)
    ):
        raise ValueError(f"'{shown}' is not an http:// or https:// address with a host")
    return url


class LtiSpec(BaseModel):
    """One registration of the service in one LMS: what its administrator gave back."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    issuer: SHORT_TEXT  # the platform's `iss`, e.g. https://canvas.instructure.com
    client_id: SHORT_TEXT
    deployment_ids: Annotated[list[SHORT_TEXT], Field(min_length=1)]
    auth_login_url: str  # the platform's OIDC authorization endpoint
    auth_token_url: str  # its OAuth2 token endpoint (grade passback, roster)
    key_set_url: str  # its public keys (JWKS)
    auth_audience: SHORT_TEXT | None = None  # the token endpoint's audience, when it differs
    # The tool's RSA private key (PEM), relative to the course file; omitted: one the service
    # creates in its folder (COURSE-service/lti_private_key.pem) and keeps.
    private_key: str | None = None

    @field_validator("auth_login_url", "auth_token_url", "key_set_url")
    @classmethod
    def _an_address(cls, url: str) -> str:
        return web_address(url)


def private_key_problem(path: Path) -> str | None:
    """Why `path` is not an RSA private key in PEM, or None."""
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        data = path.read_bytes()
    except OSError as error:
        return f"cannot read {path}: {error.strerror}"
    try:
        key = load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        return f"{path} is not an unencrypted private key in PEM"
    if not isinstance(key, RSAPrivateKey):
        return f"{path} is not an RSA key (LTI 1.3 signs with RS256)"
    return None
