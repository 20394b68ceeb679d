"""Who an LMS user is in the course: a launch's or the roster's (Names and Role Provisioning)
LMS user found by their LMS identity (issuer, `sub`), bound on first sight to the roster login
the LMS names as their SIS id (`person_sourcedid`), or else a student or instructor of their own.

The roster's instructors stay the course file's: an LMS role that disagrees with the roster
for a roster login is refused, never applied. For people the LMS alone knows, its role
decides (Instructor: staff; Learner: a student), at every launch and sync.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from grader.inert import inert_text
from grader.service.course import LOGIN_PATTERN, Course
from grader.service.models import LtiIdentity

INSTRUCTOR_ROLES = {"http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor", "Instructor"}
LEARNER_ROLES = {"http://purl.imsglobal.org/vocab/lis/v2/membership#Learner", "Learner"}
LIS_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/lis"
ROLES_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/roles"


class Refused(Exception):
    """A launch or a member the course cannot take: one line, and the HTTP status to answer."""

    def __init__(self, message: str, status: int = 403) -> None:
        super().__init__(message)
        self.message, self.status = message, status


@dataclass(frozen=True)
class LmsPerson:
    """What the LMS says of one user of its course (a launch's claims or a roster member)."""

    issuer: str
    subject: str
    instructor: bool
    sourcedid: str
    name: str
    email: str


def context_role(roles: object) -> bool:
    """True for the course's Instructor role, False for Learner; other roles (Mentor, an
    institution's Instructor or Administrator, a Teaching Assistant sub-role) are neither.

    >>> context_role(["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"])
    False
    >>> context_role(["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"])
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    grader.service.lti_people.Refused: the LMS gives you neither the Instructor nor the Learner ...
    """
    named = {role for role in roles if isinstance(role, str)} if isinstance(roles, list) else set()
    if named & INSTRUCTOR_ROLES:
        return True
    if named & LEARNER_ROLES:
        return False
    raise Refused("the LMS gives you neither the Instructor nor the Learner role in this course")


def _text(value: object, limit: int) -> str:
    return inert_text(value)[:limit] if isinstance(value, str) else ""


def person_of_launch(issuer: str, claims: Mapping[str, Any]) -> LmsPerson:
    lis = claims.get(LIS_CLAIM)
    return LmsPerson(
        issuer=issuer,
        subject=_text(claims.get("sub"), 255),
        instructor=context_role(claims.get(ROLES_CLAIM)),
        sourcedid=_text(lis.get("person_sourcedid"), 150) if isinstance(lis, dict) else "",
        name=_text(claims.get("name"), 150),
        email=_text(claims.get("email"), 254),
    )


def person_of_member(issuer: str, member: Mapping[str, Any]) -> LmsPerson:
    return LmsPerson(
        issuer=issuer,
        subject=_text(member.get("user_id"), 255),
        instructor=context_role(member.get("roles")),
        sourcedid=_text(member.get("lis_person_sourcedid"), 150),
        name=_text(member.get("name"), 150),
        email=_text(member.get("email"), 254),
    )


def _own_login(course: Course, person: LmsPerson) -> str:
    """A new login for someone the roster does not know: their SIS id when it is a plain login
    nobody has, else one derived from their LMS identity."""
    wanted = person.sourcedid
    if (
        wanted
        and LOGIN_PATTERN.match(wanted)
        and wanted not in course.people
        and not User.objects.filter(username=wanted).exists()
    ):
        return wanted
    digest = hashlib.sha256(f"{person.issuer}\n{person.subject}".encode()).hexdigest()
    return f"lti-{digest[:12]}"


def _roster_user(course: Course, person: LmsPerson) -> User:
    """The roster login the LMS names, when its role agrees with the roster's."""
    login = person.sourcedid
    roster_instructor = course.people[login].instructor
    if roster_instructor != person.instructor:
        said, listed = ("an Instructor", "a student") if person.instructor else ("a Learner", "an instructor")
        raise Refused(
            f"the LMS says {login} is {said} but the course's roster makes {login} {listed}: "
            f"the course file's instructors: list decides"
        )
    user, _ = User.objects.get_or_create(username=login, defaults={"is_staff": roster_instructor})
    if LtiIdentity.objects.filter(user=user).exists():
        raise Refused(f"{login} is already linked to another LMS account", 409)
    if not user.password:
        user.set_unusable_password()
    user.is_active = True
    user.save()
    return user


def user_of(course: Course, person: LmsPerson) -> User:
    """The service's user for `person`, created or bound on first sight (refused: Refused)."""
    if not person.subject:
        raise Refused("the LMS sent no user id (sub)", 400)
    with transaction.atomic():
        identity = (
            LtiIdentity.objects.select_related("user")
            .filter(issuer=person.issuer, subject=person.subject)
            .first()
        )
        if identity is not None:
            user: User = identity.user
            if user.username in course.people:
                if course.people[user.username].instructor != person.instructor:
                    raise Refused(
                        f"the LMS and the course's roster disagree on {user.username}'s role: "
                        f"the course file's instructors: list decides"
                    )
                if not user.is_active:
                    raise Refused(f"{user.username} is no longer on the course's roster")
                return user
        elif person.sourcedid in course.people:
            user = _roster_user(course, person)
            LtiIdentity.objects.create(user=user, issuer=person.issuer, subject=person.subject)
            return user
        else:
            user = User(username=_own_login(course, person))
            user.set_unusable_password()
        # Someone the LMS alone knows: its role and names decide.
        user.first_name, user.email = person.name, person.email
        user.is_staff, user.is_active = person.instructor, True
        user.save()
        if identity is None:
            LtiIdentity.objects.create(user=user, issuer=person.issuer, subject=person.subject)
        return user


@dataclass
class RosterSync:
    """What a roster sync did: counts, and one line for each member it could not take."""

    added: int = 0
    known: int = 0
    deactivated: int = 0
    refused: list[str] | None = None


INACTIVE = {"Inactive", "Deleted"}


def sync_members(course: Course, issuer: str, members: list[Mapping[str, Any]]) -> RosterSync:
    """Apply the LMS's roster: every active Instructor or Learner becomes (or stays) a user;
    one the LMS marks inactive or deleted can no longer sign in, unless the roster lists them."""
    done = RosterSync(refused=[])
    assert done.refused is not None
    for member in members:
        try:
            person = person_of_member(issuer, member)
            if member.get("status") in INACTIVE:
                found = LtiIdentity.objects.select_related("user").filter(
                    issuer=issuer, subject=person.subject
                )
                for identity in found:
                    if identity.user.username not in course.people and identity.user.is_active:
                        identity.user.is_active = False
                        identity.user.save(update_fields=["is_active"])
                        done.deactivated += 1
                continue
            existed = LtiIdentity.objects.filter(issuer=issuer, subject=person.subject).exists()
            user_of(course, person)
            if existed:
                done.known += 1
            else:
                done.added += 1
        except Refused as refusal:
            who = _text(member.get("name"), 80) or _text(member.get("user_id"), 80)
            done.refused.append(f"{who}: {refusal.message}")
    return done
