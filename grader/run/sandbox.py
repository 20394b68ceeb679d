"""How test processes are confined: the levels, what each promises here, which one is chosen.

`bwrap`: bubblewrap hides the file system (only the code, the inputs and the I/O folder exist).
`container`: the tests' unprivileged uid cannot read the grader's files (their permissions are
checked before grading); for hosts that refuse namespaces, such as Docker and Gradescope.
`process`: the same per-test boundary, nothing of the file system hidden (a student's own check).
Every level: an unprivileged uid when the grader is root, no capability, no_new_privs, the seccomp
filter of `policy.py`, a cgroup of its own in every hierarchy; `bwrap` and `process` also per-test
pid, mount, IPC and network namespaces. `grader.run.boundary` checks each test against it.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

from grader.errors import UserError
from grader.run import policy
from grader.run.boundary import NAMESPACES, Promise
from grader.run.hierarchy import every_hierarchy
from grader.sandboxes import SANDBOX_CHOICES, Confinement, SandboxChoice, asked

# What the fork server keeps inside bubblewrap as real root: it forks, unshares, mounts, switches
# each test to its uid; the tests drop all of them before their request runs.
SERVER_CAPABILITIES = ("CAP_SYS_ADMIN", "CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP", "CAP_MKNOD", "CAP_CHOWN")


class SandboxUnavailable(UserError):
    """The sandbox level asked for cannot be had here (or no such level exists)."""


@functools.cache
def bwrap_works() -> str | None:
    """None when bubblewrap can build the fork server's sandbox here, else why not."""
    binary = shutil.which("bwrap")
    if binary is None:
        return "bubblewrap (bwrap) is not installed"
    probe = [*bwrap_prefix([], [], {}), "true"]
    try:
        result = subprocess.run(probe, capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap does not start: {error}"
    if result.returncode != 0:
        return f"bubblewrap cannot build a sandbox here: {result.stderr.decode().strip()}"
    return None


@functools.cache
def seccomp_works() -> str | None:
    """None when the tests' seccomp filter can be built here, else why not."""
    try:
        policy.compiled()
    except policy.PolicyUnavailable as error:
        return str(error)
    return None


def exposed(paths: list[Path]) -> list[Path]:
    """Those of `paths` that a stranger (the tests' uid: no group, not the owner) could read.

    Judged by the permission bits of the path and of every folder above it (ACLs aside).
    """
    found = []
    for path in paths:
        if not path.exists():
            continue
        resolved = path.resolve()
        ancestors_open = all(parent.stat().st_mode & 0o001 for parent in resolved.parents)
        if ancestors_open and resolved.stat().st_mode & 0o004:
            found.append(path)
    return found


def enterable(folders: list[Path]) -> list[Path]:
    """Those of `folders` that a stranger could enter (it and every folder above it open to
    others: o+x), and so read whatever below them is open to others, by name, unlisted."""
    found = []
    for folder in folders:
        if not folder.is_dir():
            continue
        resolved = folder.resolve()
        if all(part.stat().st_mode & 0o001 for part in [*resolved.parents, resolved]):
            found.append(folder)
    return found


def container_works() -> str | None:
    """None when the `container` level can run here, else why not."""
    if os.geteuid() != 0:
        return "the container level switches each test to an unprivileged uid: it needs root"
    if (problem := seccomp_works()) is not None:
        return problem
    prefix = Path(sys.base_prefix).resolve()
    if not all(part.stat().st_mode & 0o001 for part in [*prefix.parents, prefix]):
        return (
            f"the interpreter's installation {prefix} is not reachable by unprivileged users "
            "(a folder above it is closed to others): install Python where others can read it"
        )
    return None


def choose(
    flag: str | None, suite: SandboxChoice | None, default: SandboxChoice, hidden: bool = False
) -> Confinement:
    """How tests run here: the command line's flag, else $GRADER_SANDBOX, else the suite's
    `sandbox:` key, else the command's own default. `auto` is bubblewrap where it works, else
    `container` where that works, else `process`, which exposes the file system: never for
    tests that are `hidden` (only an explicit `process` runs those that way)."""
    choice = asked(flag) or suite or default
    if choice not in SANDBOX_CHOICES:
        raise SandboxUnavailable(f"unknown sandbox {choice!r} (choose one of {', '.join(SANDBOX_CHOICES)})")
    if choice == "process":
        return "process"
    if choice == "container":
        if (problem := container_works()) is not None:
            raise SandboxUnavailable(f"the container sandbox cannot run here: {problem}")
        return "container"
    problem = bwrap_works()
    if problem is None and seccomp_works() is None:
        return "bwrap"
    problem = problem or seccomp_works()
    if choice == "auto":
        if (container_problem := container_works()) is None:
            return "container"
        if not hidden:
            return "process"
        raise SandboxUnavailable(
            f"no sandbox that hides hidden tests works here: {problem}; container: "
            f"{container_problem}. Install bubblewrap (apt-get install bubblewrap), or grade "
            "with --sandbox process to accept a sandbox that exposes the file system"
        )
    raise SandboxUnavailable(
        f"{problem}; install it (apt-get install bubblewrap) or grade with "
        "--sandbox process to rely on process limits alone"
    )


def for_reference() -> Confinement:
    """How the reference runs (recorded, timed): the strongest level that works here."""
    return choose("auto", None, "auto")


def promise(level: Confinement, uid: int | None) -> Promise:
    """What `level` guarantees each test on this host; `uid`: the tests' uid (root graders)."""
    root = os.geteuid() == 0
    namespaced = level != "container" and (root or level == "bwrap")
    return Promise(
        uid=uid if root else None,
        namespaces=frozenset(NAMESPACES) if namespaced else frozenset(),
        cgroups=frozenset(every_hierarchy()),
        empty_bounding=root,
    )


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


BOX = Path(__file__).with_name("box")  # the fork-server side: grader/run/box/__init__.py


def copy_box(folder: Path, mode: int | None = None) -> Path:
    """`folder` holding every module of the box (`BOX/*.py`, nothing else), each `mode` if given:
    what the sandbox sees of the grader's code."""
    for module in sorted(BOX.glob("*.py")):
        target = folder / module.name
        shutil.copyfile(module, target)
        if mode is not None:
            target.chmod(mode)
    return folder


def interpreter() -> str:
    """The base interpreter (not the grader's virtual environment, which stays outside)."""
    return str(Path(sys.executable).resolve())


def bwrap_prefix(read_only: list[Path], writable: list[Path], env: dict[str, str]) -> list[str]:
    """The bubblewrap command line that confines the fork server to the given folders.

    No network, a private PID namespace and /proc, a read-only system, nothing of the grader,
    the reference, the suites or the fixtures; `writable` (the server's I/O folder) is the only
    place that can be written, and each test covers it again (grader/run/box/confine.py). The
    environment is exactly `env`. Paths keep their names inside, so nothing needs translating.
    As root, bubblewrap makes no user namespace: the fork server keeps the few capabilities it
    needs to switch each test to its own unprivileged uid (a user namespace would map every
    test to the grader's root); as a user, everything runs as that user.
    """
    binary = shutil.which("bwrap") or "bwrap"
    if os.geteuid() == 0:
        privileges = ["--cap-drop", "ALL"]
        for capability in SERVER_CAPABILITIES:
            privileges += ["--cap-add", capability]
        namespaces = [
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-net",
            "--unshare-uts",
            "--unshare-cgroup-try",
        ]
    else:
        privileges = ["--cap-drop", "ALL", "--uid", "65534", "--gid", "65534"]
        namespaces = ["--unshare-all", "--unshare-user"]
    args = [
        binary,
        *namespaces,
        *privileges,
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        *system_binds(),
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--tmpfs",
        "/tmp",
    ]
    for path in read_only:
        args += ["--ro-bind", str(path), str(path)]
    for path in writable:
        args += ["--bind", str(path), str(path)]
    for name, value in env.items():
        args += ["--setenv", name, value]
    return [*args, "--chdir", "/"]
