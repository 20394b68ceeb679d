"""The roster as the service's users, and their tokens (stored as keyed hashes only)."""

from __future__ import annotations

import secrets

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.crypto import salted_hmac

from grader.service.course import Course, CourseError
from grader.service.models import Token

TOKEN_SALT = "grader.service.token"


def digest(token: str) -> str:
    """The token's HMAC under the course's secret key: a token of another course never matches."""
    return str(salted_hmac(TOKEN_SALT, token, algorithm="sha256").hexdigest())


def sync_roster(course: Course) -> None:
    """One user per roster login (name, email, instructor); logins gone from the roster can no
    longer sign in. A user's password field (never a usable password: tokens sign in) is set
    when the user is created only: it keys their sessions, which a run must not end. Users the
    LMS brought (`lti_people`) are the LMS's to keep or end."""
    with transaction.atomic():
        existing = {user.username: user for user in User.objects.all()}
        for login, person in course.people.items():
            user = existing.get(login)
            if user is None:
                user = User(username=login)
                user.set_unusable_password()
            user.first_name = person.name[:150]
            user.email = person.email[:254]
            user.is_staff = person.instructor
            user.is_active = True
            user.save()
        from_lms = set(User.objects.filter(lti__isnull=False).values_list("username", flat=True))
        for login, user in existing.items():
            if login not in course.people and login not in from_lms and user.is_active:
                user.is_active = False
                user.save(update_fields=["is_active"])


def issue_tokens(course: Course, logins: list[str]) -> list[tuple[str, str]]:
    """(login, token) for every named login (a new token replaces the old), or, with no login
    named, for everyone on the roster who has none."""
    unknown = [login for login in logins if login not in course.people]
    if unknown:
        raise CourseError(
            f"{course.folder / course.spec.roster}: no login {', '.join(unknown)} in the roster"
        )
    sync_roster(course)
    issued = []
    with transaction.atomic():
        if logins:
            users = list(User.objects.filter(username__in=logins).order_by("username"))
        else:
            users = list(
                User.objects.filter(
                    is_active=True, grader_token__isnull=True, username__in=list(course.people)
                ).order_by("username")
            )
        for user in users:
            token = secrets.token_urlsafe(32)
            Token.objects.update_or_create(user=user, defaults={"digest": digest(token)})
            # A new unusable password changes the user's session hash: whoever signed in with
            # the old token is signed out (Django checks the hash on every request).
            user.set_unusable_password()
            user.save(update_fields=["password"])
            issued.append((str(user.username), token))
    return issued


def user_of_token(token: str) -> User | None:
    """The active user whose token this is, else None."""
    if not token or len(token) > 200:
        return None
    found = Token.objects.select_related("user").filter(digest=digest(token)).first()
    if found is None or not found.user.is_active:
        return None
    user: User = found.user
    return user
