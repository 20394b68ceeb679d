"""LTI 1.3 launches the service must refuse, each a 4xx in one line, never a traceback or a
session: forged, expired or replayed id_tokens, a foreign issuer, audience or deployment, an
unknown nonce, a state that does not match, role escalation attempts, links that open no
assignment. The platform is lti1p3platform's (tests/grader/service/lti_platform.py); a test
changes its data or registration, or tampers with what it sent, never writes a message itself."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator

import pytest
import requests

pytest.importorskip("pylti1p3")
pytest.importorskip("lti1p3platform")

from tests.grader.service.conftest import COURSE, Service, write_course
from tests.grader.service.lti_platform import INSTRUCTOR, LEARNER, LmsUser, Platform

pytestmark = pytest.mark.slow  # a service of its own (about 20 s)


@pytest.fixture(scope="module")
def platform() -> Iterator[Platform]:
    lms = Platform(
        users={
            "lee": LmsUser("u-lee", "Lee Learner", [LEARNER]),
            "ada": LmsUser("u-ada", "Ada Instructor", [INSTRUCTOR], sourcedid="alice"),
            "mallory": LmsUser("u-mallory", "Mallory", [LEARNER], sourcedid="alice"),
            "eve": LmsUser(
                "u-eve",
                "Eve",
                [LEARNER, "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"],
                sourcedid="eve",
            ),
            "olga": LmsUser(
                "u-olga", "Olga Observer", ["http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"]
            ),
        },
        links={
            "link-open": {"assignment": "open"},
            "link-none": {},
            "link-bogus": {"assignment": "nope"},
            "link-by-url": {"?": "assignment=past"},
        },
    ).start()
    yield lms
    lms.stop()


@pytest.fixture(scope="module")
def service(platform: Platform, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    course = write_course(tmp_path_factory.mktemp("lti"), platform.course_section() + COURSE)
    running = Service(course, workers=1).start()
    platform.tool_url = running.url
    yield running
    running.stop()


def to_tool(platform: Platform, user: str, link: str) -> tuple[requests.Session, str, dict[str, str]]:
    """A browser clicking the link in the LMS, up to the form the LMS posts to the tool."""
    browser = requests.Session()
    page = browser.get(f"{platform.url}/launch", params={"user": user, "link": link}, timeout=30)
    assert page.status_code == 200, page.text
    action, fields = platform.form_of(page.text)
    return browser, action, fields


def launch(platform: Platform, user: str, link: str) -> requests.Response:
    browser, action, fields = to_tool(platform, user, link)
    return browser.post(action, data=fields, allow_redirects=False, timeout=30)


def refused(reply: requests.Response, status: int, words: str) -> None:
    assert reply.status_code == status, (reply.status_code, reply.text)
    assert reply.headers["Content-Type"].startswith("text/plain")
    assert "\n" not in reply.text.strip() and "Traceback" not in reply.text
    assert words in reply.text, reply.text
    assert "sessionid" not in reply.cookies


def test_a_learner_launch_opens_the_assignment_signed_in(platform: Platform, service: Service) -> None:
    browser, action, fields = to_tool(platform, "lee", "link-open")
    reply = browser.post(action, data=fields, allow_redirects=False, timeout=30)
    assert reply.status_code == 302 and reply.headers["Location"] == "/assignments/open"
    page = browser.get(f"{service.url}/assignments/open", timeout=30)
    assert "sign out lti-" in page.text
    assert browser.get(f"{service.url}/instructor/", timeout=30).status_code == 403


def test_a_link_names_its_assignment_in_its_url(platform: Platform, service: Service) -> None:
    reply = launch(platform, "lee", "link-by-url")
    assert reply.status_code == 302 and reply.headers["Location"] == "/assignments/past"


def test_a_replayed_id_token_is_refused(platform: Platform, service: Service) -> None:
    browser, action, fields = to_tool(platform, "lee", "link-open")
    assert browser.post(action, data=fields, allow_redirects=False, timeout=30).status_code == 302
    again = requests.Session()
    again.cookies.update(browser.cookies)
    refused(again.post(action, data=fields, allow_redirects=False, timeout=30), 403, "already used")


def test_a_tampered_id_token_is_refused(platform: Platform, service: Service) -> None:
    """A learner makes themselves Instructor in the id_token the LMS signed."""
    browser, action, fields = to_tool(platform, "lee", "link-open")
    header, body, signature = fields["id_token"].split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    claims["https://purl.imsglobal.org/spec/lti/claim/roles"] = [INSTRUCTOR]
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    fields["id_token"] = f"{header}.{forged}.{signature}"
    refused(browser.post(action, data=fields, allow_redirects=False, timeout=30), 403, "Signature")


def test_an_id_token_signed_by_another_key_is_refused(platform: Platform, service: Service) -> None:
    from tests.grader.service.lti_platform import rsa_pair

    platform.signing_keys = rsa_pair()
    try:
        reply = launch(platform, "lee", "link-open")
    finally:
        platform.signing_keys = None
    refused(reply, 403, "LTI launch refused")


def test_an_expired_id_token_is_refused(platform: Platform, service: Service) -> None:
    platform.expiration_s = -120
    try:
        reply = launch(platform, "lee", "link-open")
    finally:
        platform.expiration_s = 300
    refused(reply, 403, "expired")


@pytest.mark.parametrize(
    ("attribute", "value", "words"),
    [
        ("client_id", "another-tool", "not found"),
        ("issuer", "https://lms.elsewhere.example", "not found"),
        ("deployment_id", "deployment-9", "Unable to find deployment"),
    ],
)
def test_a_foreign_audience_issuer_or_deployment_is_refused(
    platform: Platform, service: Service, attribute: str, value: str, words: str
) -> None:
    kept = getattr(platform, attribute)
    setattr(platform, attribute, value)
    try:
        browser = requests.Session()
        page = browser.get(f"{platform.url}/launch", params={"user": "lee", "link": "link-open"}, timeout=30)
        if attribute in ("issuer", "client_id"):  # the tool refuses the login step already
            refused(page, 400, "LTI login refused")
            return
        action, fields = platform.form_of(page.text)
        reply = browser.post(action, data=fields, allow_redirects=False, timeout=30)
    finally:
        setattr(platform, attribute, kept)
    refused(reply, 403, words)


@pytest.mark.parametrize(
    ("attribute", "value"), [("client_id", "another-tool"), ("issuer", "https://lms.elsewhere.example")]
)
def test_an_id_token_for_another_audience_or_from_another_issuer_is_refused(
    platform: Platform, service: Service, attribute: str, value: str
) -> None:
    """The login went to this tool from its LMS; the id_token then says another audience or
    issuer (signed by the same key)."""
    browser = requests.Session()
    login = browser.get(
        f"{platform.url}/launch",
        params={"user": "lee", "link": "link-open"},
        allow_redirects=False,
        timeout=30,
    )
    authorize = browser.get(login.headers["Location"], allow_redirects=False, timeout=30).headers["Location"]
    kept = getattr(platform, attribute)
    setattr(platform, attribute, value)
    try:
        page = browser.get(authorize.replace(f"client_id={kept}", f"client_id={value}"), timeout=30)
    finally:
        setattr(platform, attribute, kept)
    action, fields = platform.form_of(page.text)
    refused(browser.post(action, data=fields, allow_redirects=False, timeout=30), 403, "not found")


def test_a_nonce_the_tool_never_issued_is_refused(platform: Platform, service: Service) -> None:
    browser = requests.Session()
    login = browser.get(
        f"{platform.url}/launch",
        params={"user": "lee", "link": "link-open"},
        allow_redirects=False,
        timeout=30,
    )
    to_tool_login = browser.get(login.headers["Location"], allow_redirects=False, timeout=30)
    authorize = to_tool_login.headers["Location"].replace("nonce=", "nonce=0000", 1)
    action, fields = platform.form_of(browser.get(authorize, timeout=30).text)
    refused(browser.post(action, data=fields, allow_redirects=False, timeout=30), 403, "Invalid Nonce")


def test_a_state_that_does_not_match_the_browsers_is_refused(platform: Platform, service: Service) -> None:
    _, action, fields = to_tool(platform, "lee", "link-open")
    stranger = requests.Session()  # another browser: without the state cookie of this login
    refused(stranger.post(action, data=fields, allow_redirects=False, timeout=30), 403, "State not found")
    fields["state"] = "state-forged"
    refused(stranger.post(action, data=fields, allow_redirects=False, timeout=30), 403, "State not found")


def test_a_learner_claiming_an_instructors_login_is_refused(platform: Platform, service: Service) -> None:
    refused(launch(platform, "mallory", "link-open"), 403, "the course file's instructors: list decides")


def test_an_institution_role_grants_no_instructor_rights(platform: Platform, service: Service) -> None:
    browser, action, fields = to_tool(platform, "eve", "link-open")
    reply = browser.post(action, data=fields, allow_redirects=False, timeout=30)
    assert reply.headers["Location"] == "/assignments/open"
    assert browser.get(f"{service.url}/instructor/open", timeout=30).status_code == 403


def test_a_role_neither_instructor_nor_learner_is_refused(platform: Platform, service: Service) -> None:
    refused(launch(platform, "olga", "link-open"), 403, "neither the Instructor nor the Learner")


def test_the_roster_instructor_launches_into_the_class_table(platform: Platform, service: Service) -> None:
    browser, action, fields = to_tool(platform, "ada", "link-open")
    reply = browser.post(action, data=fields, allow_redirects=False, timeout=30)
    assert reply.headers["Location"] == "/instructor/open"
    assert "sign out alice" in browser.get(f"{service.url}/instructor/open", timeout=30).text


@pytest.mark.parametrize(("link", "words"), [("link-none", "opens no assignment"), ("link-bogus", "'nope'")])
def test_a_link_to_no_assignment_is_refused(
    platform: Platform, service: Service, link: str, words: str
) -> None:
    refused(launch(platform, "lee", link), 404, words)


@pytest.mark.parametrize(
    "form", [{}, {"id_token": "garbage", "state": "x"}, {"id_token": "a.b.c", "state": "x"}]
)
def test_a_malformed_launch_is_refused(service: Service, form: dict[str, str]) -> None:
    refused(requests.post(f"{service.url}/lti/launch", data=form, timeout=30), 403, "LTI launch refused")


def test_a_login_without_issuer_or_hint_is_refused(service: Service) -> None:
    refused(requests.get(f"{service.url}/lti/login", timeout=30), 400, "LTI login refused")


def test_the_jwks_and_registration_data(service: Service) -> None:
    keys = requests.get(f"{service.url}/lti/jwks", timeout=30).json()["keys"]
    assert keys[0]["kty"] == "RSA" and keys[0]["alg"] == "RS256" and "d" not in keys[0]
    data = requests.get(f"{service.url}/lti/registration", timeout=30).json()
    assert data["oidc_initiation_url"] == f"{service.url}/lti/login"
    assert data["public_jwk"] == keys[0]
    assert data["canvas_developer_key"]["public_jwk_url"] == f"{service.url}/lti/jwks"


def test_tokens_go_to_the_roster_only_never_to_users_the_lms_brought(
    platform: Platform, service: Service
) -> None:
    from tests.grader.service.conftest import tokens

    assert launch(platform, "lee", "link-open").status_code == 302
    issued = tokens(service.course)
    assert "alice" in issued and "bob" in issued
    assert not [login for login in issued if login.startswith("lti-") or login == "eve"]
