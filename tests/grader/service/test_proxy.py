"""Behind the TLS reverse proxy docs/service.md prescribes: Debian's nginx, run with the server
block of docs/service.md itself (its port, certificate and upstream substituted) and a
certificate made here, in front of `grader serve` on loopback; headless Chromium reaches it as
https://grader.example.edu:PORT (resolved to 127.0.0.1), signs in, uploads and reads feedback."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.grader.service.conftest import (
    COURSE,
    REFERENCE,
    ROOT,
    WAIT_S,
    Service,
    tokens,
    write_course,
)

pytestmark = pytest.mark.slow

NGINX = shutil.which("nginx") or next(
    (path for path in ("/usr/sbin/nginx", "/sbin/nginx") if os.access(path, os.X_OK)), None
)
OPENSSL = shutil.which("openssl")
if NGINX is None or OPENSSL is None:
    pytest.skip(
        "no nginx or openssl (Debian: apt-get install nginx openssl; `make` installs nginx where it can)",
        allow_module_level=True,
    )

from tests.grader.service.test_browser import arrived, sign_in, start_chromium  # noqa: E402

PUBLIC_HOST = "grader.example.edu"
DOCUMENTED = {  # what the documented server block says, and what this test puts in its place
    "listen 443 ssl;": "listen 127.0.0.1:{port} ssl;",
    "/etc/ssl/certs/grader.example.edu.pem": "{certificate}",
    "/etc/ssl/private/grader.example.edu.key": "{key}",
    "http://127.0.0.1:8000": "{upstream}",
}


def documented_server_block() -> str:
    """The nginx server block of docs/service.md (its one ```nginx block)."""
    found = re.findall(r"```nginx\n(.*?)```", (ROOT / "docs" / "service.md").read_text(), re.S)
    assert len(found) == 1, "docs/service.md has one nginx server block"
    block: str = found[0]
    for documented in DOCUMENTED:
        assert block.count(documented) == 1, f"docs/service.md's nginx block lost {documented!r}"
    return block


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def self_signed(folder: Path) -> tuple[Path, Path]:
    certificate, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            str(OPENSSL),
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-keyout",
            str(key),
            "-out",
            str(certificate),
            "-subj",
            f"/CN={PUBLIC_HOST}",
            "-addext",
            f"subjectAltName=DNS:{PUBLIC_HOST}",
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return certificate, key


@dataclass
class Proxy:
    process: subprocess.Popen[bytes]
    folder: Path

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_nginx(folder: Path, port: int, upstream: str) -> Proxy:
    """nginx in the foreground, everything of it (pid, logs, temporary files) in `folder`."""
    certificate, key = self_signed(folder)
    values = {"port": port, "certificate": certificate, "key": key, "upstream": upstream}
    server = documented_server_block()
    for documented, ours in DOCUMENTED.items():
        server = server.replace(documented, ours.format(**values))
    temporary = "\n".join(
        f"    {kind}_temp_path {folder / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    config = folder / "nginx.conf"
    config.write_text(
        ("user root;\n" if os.geteuid() == 0 else "")  # its worker writes into our 0700 folder
        + f"worker_processes 1;\ndaemon off;\npid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'} warn;\nevents {{ worker_connections 64; }}\n"
        f"http {{\n    access_log {folder / 'access.log'};\n{temporary}\n{server}}}\n"
    )
    process = subprocess.Popen(
        [str(NGINX), "-e", str(folder / "error.log"), "-p", str(folder), "-c", str(config)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            assert process.stderr is not None
            raise AssertionError(
                f"nginx did not start: {process.stderr.read().decode()} {(folder / 'error.log').read_text()}"
            )
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return Proxy(process, folder)
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise AssertionError("nginx did not listen within 30 s")


@dataclass
class Deployment:
    public_url: str
    service: Service
    keys: dict[str, str]


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    folder = tmp_path_factory.mktemp("proxied")
    port = free_port()
    public_url = f"https://{PUBLIC_HOST}:{port}"
    course = write_course(folder / "course", COURSE.replace("roster:", f"public_url: {public_url}\nroster:"))
    keys = tokens(course)
    service = Service(course).start()
    proxy_folder = folder / "nginx"
    proxy_folder.mkdir()
    try:
        proxy = start_nginx(proxy_folder, port, service.url)
        try:
            yield Deployment(public_url, service, keys)
        finally:
            proxy.stop()
    finally:
        service.stop()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    driver = start_chromium(
        tmp_path / "profile",
        "--ignore-certificate-errors",
        f"--host-resolver-rules=MAP {PUBLIC_HOST} 127.0.0.1",
    )
    try:
        yield driver
    finally:
        driver.quit()


def test_a_student_signs_in_uploads_and_reads_feedback_through_the_tls_proxy(
    deployment: Deployment, browser: Any
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    sign_in(browser, deployment.public_url, deployment.keys["bob"])  # a form: CSRF's origin
    cookies = {cookie["name"]: cookie for cookie in browser.get_cookies()}
    assert cookies["sessionid"]["secure"] and cookies["csrftoken"]["secure"], cookies
    browser.get(f"{deployment.public_url}/assignments/open")
    browser.find_element(By.NAME, "files").send_keys(str(REFERENCE))
    browser.find_element(By.CSS_SELECTOR, "form[enctype] button[type=submit]").click()
    arrived(browser, lambda b: "/submissions/" in b.current_url and b.find_elements(By.ID, "status"))
    assert browser.current_url.startswith(f"{deployment.public_url}/submissions/")
    WebDriverWait(browser, WAIT_S, poll_frequency=0.2).until(lambda b: b.find_elements(By.ID, "score"))
    assert browser.find_element(By.ID, "score").text == "17 / 17"  # hidden tests: after due
    logs = [
        entry
        for entry in browser.get_log("browser")
        if entry["level"] == "SEVERE" and "favicon.ico" not in entry["message"]
    ]
    assert not logs, logs
    access = (Path(deployment.service.course).parent.parent / "nginx" / "access.log").read_text()
    assert '"POST / HTTP' in access and '"POST /assignments/open HTTP' in access, access


def test_through_the_proxy_a_foreign_host_or_origin_is_refused(deployment: Deployment) -> None:
    """The public URL is the one host name answered and the one origin trusted: a forged Host
    (cache poisoning, links in mails) is a 400, a sign-in posted from another site a 403."""
    import requests
    import urllib3

    urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)  # our own certificate
    port = deployment.public_url.rsplit(":", 1)[1]
    direct = f"https://127.0.0.1:{port}"
    public_host = {"Host": f"{PUBLIC_HOST}:{port}"}
    session = requests.Session()  # verify=False on each request ($REQUESTS_CA_BUNDLE wins over
    # a session's)
    page = session.get(f"{direct}/", headers=public_host, timeout=30, verify=False)
    assert page.status_code == 200 and "secure" in page.headers["Set-Cookie"].lower()
    forged = session.get(f"{direct}/", headers={"Host": "evil.example.com"}, timeout=30, verify=False)
    assert forged.status_code == 400
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert token is not None
    cross_site = session.post(
        f"{direct}/",
        data={"token": deployment.keys["bob"], "csrfmiddlewaretoken": token.group(1)},
        headers={**public_host, "Origin": "https://evil.example.com", "X-Forwarded-Proto": "https"},
        timeout=30,
        verify=False,
    )
    assert cross_site.status_code == 403 and "Signed in as" not in cross_site.text
    same_site = session.post(
        f"{direct}/",
        data={"token": deployment.keys["bob"], "csrfmiddlewaretoken": token.group(1)},
        headers={**public_host, "Origin": deployment.public_url},
        timeout=30,
        verify=False,
    )
    assert same_site.status_code == 200 and "Signed in as" in same_site.text
