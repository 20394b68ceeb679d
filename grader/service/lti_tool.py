"""The service as an LTI 1.3 tool (pylti1p3): its registration with the course's LMS, its key
and JWKS, and where the OIDC login step keeps what the launch checks."""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Any

import requests
from django.db import IntegrityError, transaction
from pylti1p3.launch_data_storage.base import LaunchDataStorage
from pylti1p3.tool_config import ToolConfDict

from grader.service.course import Course, CourseError
from grader.service.jobs import now
from grader.service.models import LtiNonce, LtiState

SERVICE_TIMEOUT_S = 20  # one call to the LMS's token, score or roster endpoint


def tool_private_key(course: Course) -> str:
    """The tool's RSA private key in PEM: the course file's, or one created once in the
    service's folder, readable by us only."""
    path = course.lti_private_key
    try:
        return path.read_text()
    except FileNotFoundError:
        if course.spec.lti is not None and course.spec.lti.private_key is not None:
            raise CourseError(f"{course.path}: lti.private_key: {path} is missing") from None
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process of the service made it first
        return path.read_text()
    with os.fdopen(fd, "w") as handle:
        handle.write(pem)
    return pem


def public_key_of(private_pem: str) -> str:
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key(private_pem.encode(), password=None)
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def tool_conf(course: Course) -> Any:
    """pylti1p3's configuration of the course's one registration (None: no `lti:` section)."""
    spec = course.spec.lti
    if spec is None:
        return None
    registration: dict[str, Any] = {
        "default": True,
        "client_id": spec.client_id,
        "auth_login_url": spec.auth_login_url,
        "auth_token_url": spec.auth_token_url,
        "auth_audience": spec.auth_audience,
        "key_set_url": spec.key_set_url,
        "key_set": None,
        "deployment_ids": list(spec.deployment_ids),
    }
    conf = ToolConfDict({spec.issuer: [registration]})
    private = tool_private_key(course)
    conf.set_private_key(spec.issuer, private, client_id=spec.client_id)
    conf.set_public_key(spec.issuer, public_key_of(private), client_id=spec.client_id)
    return conf


def jwks(course: Course) -> dict[str, Any]:
    """The tool's public keys, as the LMS fetches them (its JWKS); served before the course
    has an `lti:` section, since the LMS administrator registers the tool first."""
    from pylti1p3.registration import Registration

    return {"keys": [dict(Registration.get_jwk(public_key_of(tool_private_key(course))))]}


class DatabaseStorage(LaunchDataStorage):
    """pylti1p3's launch data (the login's nonce and state) in the service's database: the
    launch arrives as a cross-site POST without the session cookie, possibly on another thread.
    Keys are not tied to a browser session: the nonce (random, 64 hex digits) is the secret, and
    pylti1p3 checks the state against its own short-lived cookie."""

    def get_session_cookie_name(self) -> str | None:
        return None

    def can_set_keys_expiration(self) -> bool:
        return True

    def get_value(self, key: str) -> Any:
        found = LtiState.objects.filter(key=self._prepare_key(key)[:255], expires__gt=now()).first()
        return None if found is None else found.value

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        expires = now() + timedelta(seconds=exp or 3600)
        LtiState.objects.update_or_create(
            key=self._prepare_key(key)[:255], defaults={"value": value, "expires": expires}
        )
        LtiState.objects.filter(expires__lte=now()).delete()

    def check_value(self, key: str) -> bool:
        return self.get_value(key) is not None


def use_nonce(nonce: str) -> bool:
    """Mark a launch's nonce used; False when it was already: a replayed id_token."""
    try:
        with transaction.atomic():
            LtiNonce.objects.create(nonce=nonce[:255], used_at=now())
    except IntegrityError:
        return False
    return True


class LmsSession(requests.Session):
    """The HTTP session pylti1p3 calls the LMS's services with: every call bounded in time."""

    def request(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("timeout", SERVICE_TIMEOUT_S)
        return super().request(*args, **kwargs)
