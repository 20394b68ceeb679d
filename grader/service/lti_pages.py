"""The LTI 1.3 addresses: OIDC login initiation, the launch (a resource link opens its
assignment, signed in as the LMS's user), the tool's JWKS and registration data, and the roster
sync an instructor asks for. Every refusal is one line of text with a 4xx status."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

from django.contrib.auth import login
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST
from pylti1p3.contrib.django import DjangoMessageLaunch, DjangoOIDCLogin
from pylti1p3.names_roles import NamesRolesProvisioningService
from pylti1p3.service_connector import ServiceConnector

from grader.inert import inert_name
from grader.service.api import course
from grader.service.instructor_pages import audit, staff_only
from grader.service.jobs import now
from grader.service.lti_grades import post_final_score
from grader.service.lti_people import Refused, person_of_launch, sync_members, user_of
from grader.service.lti_tool import DatabaseStorage, LmsSession, jwks, tool_conf, use_nonce
from grader.service.models import LtiLink

CUSTOM_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/custom"
LINK_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/resource_link"
TARGET_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/target_link_uri"
DEPLOYMENT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
    "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",
]
NO_LMS = "this course is not launched from an LMS: its course file has no lti: section"


def refused(message: str, status: int) -> HttpResponse:
    """One line (whatever the LMS or the library said, made inert and short)."""
    return HttpResponse(inert_name(message)[:300], status=status, content_type="text/plain")


def origin(request: HttpRequest) -> str:
    """Where the LMS reaches the service: its public_url, else the address asked."""
    public = course().public_url
    return str(public) if public else f"{request.scheme}://{request.get_host()}"


@csrf_exempt
def oidc_login(request: HttpRequest) -> HttpResponse:
    """Step 1 (GET or POST from the LMS): remember a nonce and state, send the browser to the
    LMS's authorization endpoint."""
    conf = tool_conf(course())
    if conf is None:
        return refused(NO_LMS, 404)
    try:
        flow = DjangoOIDCLogin(request, conf, launch_data_storage=DatabaseStorage())
        response: HttpResponse = flow.redirect(f"{origin(request)}/lti/launch")
    except Exception as error:  # the library refuses what the LMS sent, in its own classes
        return refused(f"LTI login refused: {error}", 400)
    return response


def _assignment_of(claims: dict[str, Any], issuer: str) -> str:
    """The assignment a resource link opens: its custom parameter `assignment`, else its URL's
    (`/lti/launch?assignment=NAME`), else what an earlier launch of the same link said."""
    names = [assignment.name for assignment in course().spec.assignments]
    link = claims.get(LINK_CLAIM)
    link_id = str(link.get("id", "")) if isinstance(link, dict) else ""
    custom = claims.get(CUSTOM_CLAIM)
    named = custom.get("assignment") if isinstance(custom, dict) else None
    target = claims.get(TARGET_CLAIM)
    if named is None and isinstance(target, str):  # the link's URL: /lti/launch?assignment=NAME
        named = next((value for key, value in parse_qsl(urlsplit(target).query) if key == "assignment"), None)
    if named is None:
        known = LtiLink.objects.filter(
            issuer=issuer, deployment_id=str(claims.get(DEPLOYMENT_CLAIM)), resource_link=link_id
        ).first()
        if known is not None:
            return str(known.assignment)
        raise Refused(
            f"this LMS link ({link_id[:80]}) opens no assignment: give it the custom parameter "
            f"assignment=NAME, NAME one of {', '.join(names)}",
            404,
        )
    if named not in names:
        raise Refused(
            f"this LMS link names assignment '{named}', which the course does not have "
            f"(one of {', '.join(names)})",
            404,
        )
    return str(named)


def _remember_link(claims: dict[str, Any], issuer: str, assignment: str) -> None:
    link = claims[LINK_CLAIM]
    nrps = claims.get(NRPS_CLAIM)
    ags = claims.get(AGS_CLAIM)
    LtiLink.objects.update_or_create(
        issuer=issuer,
        deployment_id=str(claims.get(DEPLOYMENT_CLAIM))[:255],
        resource_link=str(link.get("id"))[:255],
        defaults={
            "assignment": assignment,
            "ags": ags if isinstance(ags, dict) else None,
            "memberships_url": str(nrps.get("context_memberships_url", ""))[:2000]
            if isinstance(nrps, dict)
            else "",
            "launched_at": now(),
        },
    )


@csrf_exempt
@require_POST
def launch(request: HttpRequest) -> HttpResponse:
    """Step 2 (the LMS's form post of the id_token): checked by pylti1p3 (state, signature by
    the LMS's key, issuer, audience, deployment, expiry, nonce), the nonce used once; then the
    user is signed in and sent to the assignment (an instructor to its class table)."""
    spec = course().spec.lti
    conf = tool_conf(course())
    if conf is None or spec is None:
        return refused(NO_LMS, 404)
    message = DjangoMessageLaunch(
        request, conf, launch_data_storage=DatabaseStorage(), requests_session=LmsSession()
    )
    message.set_jwt_verify_options({"verify_aud": False, "require": ["exp", "iat", "nonce"]})
    try:
        claims: dict[str, Any] = message.get_launch_data()
    except Exception as error:  # forged, expired, foreign, replayed: the library says which
        return refused(f"LTI launch refused: {error}", 403)
    if not use_nonce(str(claims.get("nonce"))):
        return refused("LTI launch refused: this launch was already used; launch again from the LMS", 403)
    if not message.is_resource_launch():
        return refused("LTI launch refused: only resource link launches open an assignment", 400)
    try:
        assignment = _assignment_of(claims, spec.issuer)
        user = user_of(course(), person_of_launch(spec.issuer, claims))
    except Refused as refusal:
        return refused(f"LTI launch refused: {refusal.message}", refusal.status)
    _remember_link(claims, spec.issuer, assignment)
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    page = f"/instructor/{assignment}" if user.is_staff else f"/assignments/{assignment}"
    return redirect(page)


@require_GET
def key_set(request: HttpRequest) -> JsonResponse:
    return JsonResponse(jwks(course()))


@require_GET
def registration(request: HttpRequest) -> JsonResponse:
    """What an LMS administrator enters (docs/service.md, "LTI 1.3"), and Canvas's developer
    key JSON (its "Enter URL" or "Paste JSON" form takes it as it is)."""
    base = origin(request)
    title = course().spec.title
    names = [assignment.name for assignment in course().spec.assignments]
    return JsonResponse(
        {
            "title": title,
            "oidc_initiation_url": f"{base}/lti/login",
            "redirect_uris": [f"{base}/lti/launch"],
            "target_link_uri": f"{base}/lti/launch",
            "public_jwk_url": f"{base}/lti/jwks",
            "public_jwk": jwks(course())["keys"][0],
            "scopes": SCOPES,
            "custom_parameters": {"assignment": f"one of {', '.join(names)}, per link"},
            "canvas_developer_key": {
                "title": title,
                "description": f"{title}: submissions and feedback",
                "oidc_initiation_url": f"{base}/lti/login",
                "target_link_uri": f"{base}/lti/launch",
                "public_jwk_url": f"{base}/lti/jwks",
                "scopes": SCOPES,
                "extensions": [
                    {
                        "platform": "canvas.instructure.com",
                        "privacy_level": "public",
                        "settings": {
                            "placements": [
                                {
                                    "placement": "assignment_selection",
                                    "message_type": "LtiResourceLinkRequest",
                                    "target_link_uri": f"{base}/lti/launch",
                                }
                            ]
                        },
                    }
                ],
            },
        },
        json_dumps_params={"indent": 2},
    )


@staff_only
@require_POST
def roster_sync(request: HttpRequest) -> HttpResponse:
    """Names and Role Provisioning, on the instructor's demand: the LMS's roster of the course
    (from the most recent launch that offered it) applied to the service's users."""
    spec = course().spec.lti
    conf = tool_conf(course())
    if conf is None or spec is None:
        return refused(NO_LMS, 404)
    link = LtiLink.objects.exclude(memberships_url="").order_by("-launched_at").first()
    if link is None:
        return refused("no launch from the LMS has offered its roster yet: launch once from it", 409)
    connector = ServiceConnector(conf.find_registration(spec.issuer), requests_session=LmsSession())
    service = NamesRolesProvisioningService(connector, {"context_memberships_url": link.memberships_url})
    try:
        members = service.get_members()
    except Exception as error:  # the LMS unreachable or refusing
        return refused(f"the LMS's roster could not be read: {error}", 502)
    done = sync_members(course(), spec.issuer, members)
    detail = f"{done.added} added, {done.known} known, {done.deactivated} deactivated"
    audit(request, "roster synced", "", detail=f"{detail}, {len(done.refused or [])} refused")
    return render(
        request,
        "service/lti_result.html",
        {
            "heading": "Roster from the LMS",
            "detail": detail,
            "lines_title": "Not taken",
            "lines": done.refused,
            "back": "/instructor/",
        },
    )


@staff_only
@require_POST
def send_scores(request: HttpRequest, name: str) -> HttpResponse:
    """Every LMS student's score for the assignment posted again (after a release, or when the
    LMS could not be reached): one line per student, what was sent or why it failed."""
    assignment = course().assignment(name)
    if assignment is None:
        return refused(f"no assignment {name}", 404)
    if course().spec.lti is None:
        return refused(NO_LMS, 404)
    lines, sent = [], 0
    for user in User.objects.filter(lti__isnull=False, submission__assignment=name).distinct():
        try:
            lines.append(post_final_score(course(), user, name))
            sent += 1
        except Exception as error:  # the LMS unreachable or refusing: said, not raised
            lines.append(f"{user.username}: not sent: {inert_name(str(error))[:200]}")
    audit(request, "scores sent to the LMS", name, detail=f"{sent} sent, {len(lines) - sent} failed")
    return render(
        request,
        "service/lti_result.html",
        {
            "heading": f"{name}: scores sent to the LMS",
            "detail": f"{sent} sent, {len(lines) - sent} failed",
            "lines_title": "Each student",
            "lines": lines,
            "back": f"/instructor/{name}",
        },
    )
