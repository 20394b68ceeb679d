"""An LTI 1.3 platform (an LMS's side) for the tests, built on lti1p3platform: its OIDC
login initiation, authorization step (the signed id_token), OAuth2 token endpoint, Assignment
and Grade Services (scores received) and Names and Role Provisioning (a roster), served on
127.0.0.1 by http.server in a thread. Every protocol message is the library's; what a test
changes is the platform's data (users, roles, the link's custom parameters, its registration).
"""

from __future__ import annotations

import html
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.membership import Context
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request
from lti1p3platform.score import UpdateScoreStatus
from lti1p3platform.service_connector import AssignmentsGradesService, NamesRoleProvisioningService

LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
CLIENT_ID = "grader-tool"
DEPLOYMENT_ID = "deployment-1"
CONTEXT_ID = "course-42"


def rsa_pair() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


@dataclass
class LmsUser:
    sub: str
    name: str
    roles: list[str]
    sourcedid: str = ""
    email: str = ""


@dataclass
class Platform:
    """The LMS: its users, one course (context) whose resource links carry custom parameters,
    and what the tool posted back (`scores`)."""

    users: dict[str, LmsUser] = field(default_factory=dict)
    links: dict[str, dict[str, str]] = field(default_factory=dict)  # link id -> custom parameters
    scores: list[dict[str, Any]] = field(default_factory=list)
    tool_url: str = ""  # the tool's origin, once it runs
    url: str = ""
    issuer: str = ""
    # What a test may change: the registration it signs with and the id_token's lifetime.
    client_id: str = CLIENT_ID
    deployment_id: str = DEPLOYMENT_ID
    expiration_s: int = 300
    keys: tuple[str, str] = field(default_factory=rsa_pair)
    signing_keys: tuple[str, str] | None = None  # another key than the published one: a forger
    scores_down: bool = False  # the score endpoint answers 503, as an LMS that is down
    server: ThreadingHTTPServer | None = None

    def start(self) -> Platform:
        platform = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                platform.answer(self, "GET")

            def do_POST(self) -> None:
                platform.answer(self, "POST")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.issuer = self.issuer or self.url
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def course_section(self) -> str:
        """The course file's `lti:` section for this platform."""
        return (
            f"lti:\n  issuer: {self.issuer}\n  client_id: {CLIENT_ID}\n"
            f"  deployment_ids: [{DEPLOYMENT_ID}]\n  auth_login_url: {self.url}/authorize\n"
            f"  auth_token_url: {self.url}/token\n  key_set_url: {self.url}/jwks\n"
        )

    # The library's pieces, configured with this platform's data.

    def conf(self) -> LTI1P3PlatformConfAbstract:
        platform = self

        class Conf(LTI1P3PlatformConfAbstract):
            def init_platform_config(self, **kwargs: Any) -> None:
                private, public = platform.signing_keys or platform.keys
                self._registration = (
                    Registration()
                    .set_iss(platform.issuer)
                    .set_client_id(platform.client_id)
                    .set_deployment_id(platform.deployment_id)
                    .set_launch_url(f"{platform.tool_url}/lti/launch")
                    .set_oidc_login_url(f"{platform.tool_url}/lti/login")
                    .set_tool_key_set_url(f"{platform.tool_url}/lti/jwks")
                    .set_platform_public_key(public)
                    .set_platform_private_key(private)
                )

            def get_registration_by_params(self, **kwargs: Any) -> Registration:
                return self._registration

        return Conf()

    def published_jwks(self) -> dict[str, Any]:
        return {"keys": [Registration.get_jwk(self.keys[1])]}

    def answer(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        parts = urlsplit(handler.path)
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else b""
        content_type = handler.headers.get("Content-Type", "")
        data = {
            "method": method,
            "form_data": dict(parse_qsl(body.decode())) if "form" in content_type else {},
            "json": json.loads(body) if "json" in content_type and body else None,
            "get_data": dict(parse_qsl(parts.query)),
            "headers": dict(handler.headers.items()),
            "content_type": content_type,
            "path": parts.path,
        }

        class Plain(Request):
            def build_metadata(self, request: Any) -> Any:
                return request

        request = Plain(data)
        status, headers, text = self.route(parts.path, request)
        handler.send_response(status)
        for name, value in headers.items():
            handler.send_header(name, value)
        encoded = text.encode()
        handler.send_header("Content-Length", str(len(encoded)))
        handler.end_headers()
        handler.wfile.write(encoded)

    def route(self, path: str, request: Request) -> tuple[int, dict[str, str], str]:
        conf = self.conf()
        conf.get_registration()
        json_type = {"Content-Type": "application/json"}
        if path == "/jwks":
            return 200, json_type, json.dumps(self.published_jwks())
        if path == "/launch":  # a user clicks the link in the LMS
            return self.initiate(request, conf)
        if path == "/authorize":
            return self.authorize(request, conf)
        if path == "/token":
            return 200, json_type, json.dumps(conf.get_access_token(request.form_data))
        if path.startswith("/lineitems/") and path.endswith("/scores") and self.scores_down:
            return 503, {}, "down for maintenance"
        if path.startswith("/lineitems/") and path.endswith("/scores"):
            service = self.grades(request, conf)
            reply = service.handle_update_score(path.split("/")[2])
            return reply.code, json_type, json.dumps({"message": reply.message})
        if path == "/memberships":
            reply = self.roster(request, conf).handle_get_members()
            return reply.code, json_type, json.dumps(reply.result or {"error": reply.message})
        return 404, {}, "not found"

    def initiate(self, request: Request, conf: Any) -> tuple[int, dict[str, str], str]:
        params = request.get_data
        redirect: dict[str, str] = {}

        class Login(OIDCLoginAbstract):
            def set_lti_message_hint(self, **kwargs: Any) -> None:
                self._lti_message_hint = kwargs["hint"]

            def get_redirect(self, url: str) -> Any:
                redirect["Location"] = url
                return url

        login = Login(request, conf)
        login.set_lti_message_hint(hint=params["link"])
        login.initiate_login(params["user"])
        return 302, redirect, ""

    def authorize(self, request: Request, conf: Any) -> tuple[int, dict[str, str], str]:
        platform = self
        params = request.get_data
        user = self.users[params["login_hint"]]
        link = params["lti_message_hint"]

        class Launch(LTIAdvantageMessageLaunchAbstract):
            def prepare_launch(self, preflight_response: dict[str, Any], **kwargs: Any) -> None:
                self.set_user_data(user.sub, user.roles, user.name, user.email or None)
                if user.sourcedid:
                    self.set_extra_claims(
                        {
                            "https://purl.imsglobal.org/spec/lti/claim/lis": {
                                "person_sourcedid": user.sourcedid
                            }
                        }
                    )
                self.set_resource_link_claim(link, title=link)
                self.set_launch_context_claim(CONTEXT_ID, context_title="Game-tree search")
                custom = dict(platform.links.get(link, {}))
                query = custom.pop("?", "")  # the link's URL carries it instead (Canvas)
                self.set_custom_parameters_claim(custom)
                if query:
                    self.set_launch_url(f"{platform.tool_url}/lti/launch?{query}")
                self.set_ags(
                    lineitems_url=f"{platform.url}/lineitems",
                    lineitem_url=f"{platform.url}/lineitems/{link}",
                )
                self.set_nrps(f"{platform.url}/memberships")
                self.set_id_token_expiration(platform.expiration_s)

            def render_launch_form(self, launch_data: dict[str, Any], **kwargs: Any) -> Any:
                return launch_data

        launch = Launch(request, conf)
        data = launch.lti_launch()
        fields = "".join(
            f'<input type="hidden" name="{name}" value="{html.escape(str(data[name]))}">'
            for name in ("id_token", "state")
        )
        page = (
            f'<form id="launch" method="post" action="{html.escape(data["launch_url"])}">{fields}'
            '<button type="submit">Launch</button></form>'
            "<script>document.getElementById('launch').submit()</script>"
        )
        return 200, {"Content-Type": "text/html"}, page

    def grades(self, request: Request, conf: Any) -> AssignmentsGradesService:
        platform = self

        class Grades(AssignmentsGradesService):
            def update_score(self, line_item_id: str, score: Any) -> UpdateScoreStatus:
                platform.scores.append({"lineitem": line_item_id, **score})
                return UpdateScoreStatus.SUCCESS

            def find_lineitems(self, *args: Any, **kwargs: Any) -> Any:
                raise NotImplementedError

            find_lineitem = create_lineitem = update_lineitem = delete_lineitem = find_lineitems
            get_results = find_lineitems

        return Grades(request, conf, f"{self.url}/lineitems")

    def roster(self, request: Request, conf: Any) -> NamesRoleProvisioningService:
        platform = self

        class Roster(NamesRoleProvisioningService):
            def get_context_by_id(self) -> Context:
                return Context(id=CONTEXT_ID, label="GTS", title="Game-tree search")

            def get_member_data_page(self, **kwargs: Any) -> Any:
                members = [
                    {
                        "user_id": user.sub,
                        "roles": user.roles,
                        "name": user.name,
                        "status": "Active",
                        **({"lis_person_sourcedid": user.sourcedid} if user.sourcedid else {}),
                    }
                    for user in platform.users.values()
                ]
                return {"content": members, "has_next": False}

        return Roster(request, conf, f"{self.url}/memberships")

    def form_of(self, page: str) -> tuple[str, dict[str, str]]:
        """The launch form's address and fields (what a browser posts to the tool)."""
        import re

        action = html.unescape(re.search(r'action="([^"]*)"', page).group(1))  # type: ignore[union-attr]
        fields = {
            name: html.unescape(value) for name, value in re.findall(r'name="(\w+)" value="([^"]*)"', page)
        }
        return action, fields
