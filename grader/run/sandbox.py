"""How test processes are confined: process limits only, or bubblewrap on top of them."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

from grader.errors import UserError
from grader.sandboxes import SANDBOX_CHOICES, Confinement, SandboxChoice


class SandboxUnavailable(UserError):
    """bubblewrap was asked for and cannot run here (or no such sandbox level exists)."""


@functools.cache
def bwrap_works() -> str | None:
    """None when bubblewrap can build a sandbox here, else why not."""
    binary = shutil.which("bwrap")
    if binary is None:
        return "bubblewrap (bwrap) is not installed"
    probe = [binary, "--unshare-all", "--unshare-user", "--die-with-parent",
             *system_binds(), "--proc", "/proc", "--dev", "/dev", "true"]
    try:
        result = subprocess.run(probe, capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap does not start: {error}"
    if result.returncode != 0:
        return f"bubblewrap cannot build a sandbox here: {result.stderr.decode().strip()}"
    return None


def choose(flag: str | None, suite: SandboxChoice | None, default: SandboxChoice) -> Confinement:
    """How tests run here: the command line's flag, else $GRADER_SANDBOX, else the suite's
    `sandbox:` key, else the command's own default; `auto` is bubblewrap where it works."""
    choice = flag or os.environ.get("GRADER_SANDBOX") or suite or default
    if choice not in SANDBOX_CHOICES:
        raise SandboxUnavailable(f"unknown sandbox {choice!r} (choose one of "
                                 f"{', '.join(SANDBOX_CHOICES)})")
    if choice == "process":
        return "process"
    problem = bwrap_works()
    if problem is None:
        return "bwrap"
    if choice == "auto":
        return "process"
    raise SandboxUnavailable(f"{problem}; install it (apt-get install bubblewrap) or grade with "
                             "--sandbox process to rely on process limits alone")


def for_reference() -> Confinement:
    """How the reference runs (recorded, timed): bubblewrap where it works, else process limits."""
    return choose("auto", None, "auto")


def system_binds() -> list[str]:
    """Read-only views of the system folders and of the interpreter's own installation."""
    args: list[str] = []
    for top in ("/usr", "/bin", "/lib", "/lib64", "/sbin"):
        path = Path(top)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), top]
        elif path.is_dir():
            args += ["--ro-bind", top, top]
    prefix = Path(sys.base_prefix).resolve()
    if not str(prefix).startswith("/usr/"):
        args += ["--ro-bind", str(prefix), str(prefix)]
    return args


def interpreter() -> str:
    """The base interpreter (not the grader's virtual environment, which stays outside)."""
    return str(Path(sys.executable).resolve())


def bwrap_prefix(read_only: list[Path], writable: list[Path], env: dict[str, str]) -> list[str]:
    """The bubblewrap command line that confines the fork server to the given folders.

    No network, a private PID namespace and /proc, a read-only system, nothing of the grader,
    the reference, the suites or the fixtures; `writable` (the server's I/O folder) is the only
    place that can be written, and each test covers it again (grader/run/confine.py). The
    environment is exactly `env`. Paths keep their names inside, so nothing needs translating.
    """
    binary = shutil.which("bwrap") or "bwrap"
    args = [binary, "--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534",
            "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv",
            *system_binds(), "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for path in read_only:
        args += ["--ro-bind", str(path), str(path)]
    for path in writable:
        args += ["--bind", str(path), str(path)]
    for name, value in env.items():
        args += ["--setenv", name, value]
    return [*args, "--chdir", "/"]
