"""What this host supports for the per-test boundary, and what each sandbox level would get here.

Each level is tried for real: one fork server, one trivial test, its boundary read from outside
(`boundary.read`) and compared with the level's promise, exactly as grading does.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.run import hierarchy
from grader.run.channel import ServerStartError
from grader.run.runner import ForkServer
from grader.run.sandbox import bwrap_works, container_works, seccomp_works
from grader.sandboxes import Confinement
from grader.suite.limits import Limits

LEVELS: tuple[Confinement, ...] = ("bwrap", "container", "process")


@dataclass(frozen=True)
class LevelReport:
    level: Confinement
    usable: bool
    detail: str  # the boundary a test got, or why the level cannot run here


def host_facts() -> list[tuple[str, str]]:
    """(what, this host's answer) for everything the boundary relies on."""
    hierarchies = hierarchy.every_hierarchy()
    versions = sorted({f"v{h.version}" for h in hierarchies.values()})
    return [
        (
            "grader uid",
            f"{os.geteuid()}"
            + (" (root: tests switch to an unprivileged uid)" if os.geteuid() == 0 else " (tests keep it)"),
        ),
        ("bubblewrap", bwrap_works() or f"works ({shutil.which('bwrap')})"),
        ("seccomp filter", seccomp_works() or "builds (libseccomp)"),
        (
            "cgroups",
            f"{' and '.join(versions) or 'none we may write'}: "
            f"{', '.join(k or 'unified' for k in sorted(hierarchies)) or '-'}",
        ),
        ("interpreter", f"{Path(sys.base_prefix).resolve()}"),
        ("container level", container_works() or "can run here"),
    ]


def try_level(level: Confinement) -> LevelReport:
    """Run one trivial test under `level` and say what boundary it got (or why none)."""
    if level == "container" and (problem := container_works()) is not None:
        return LevelReport(level, False, problem)
    if level == "bwrap" and (problem := bwrap_works()) is not None:
        return LevelReport(level, False, problem)
    with tempfile.TemporaryDirectory(prefix="grader-doctor-") as folder:
        scratch = Path(folder)
        code = scratch / "code"
        code.mkdir(mode=0o700)
        (code / "probe.py").write_text("def answer():\n    return 42\n")
        server = ForkServer(code, scratch, level)
        try:
            server.start()
            outcome = server.run_calls([{"call": "probe.answer"}], Limits(cpu_s=5, wall_s=20))
        except (ServerStartError, OSError) as error:
            return LevelReport(level, False, f"the fork server did not start: {error}")
        finally:
            server.stop()
    if outcome.worker_failure:
        return LevelReport(level, False, outcome.worker_failure)
    got = server.boundary.describe() if server.boundary is not None else "not checked"
    if outcome.result != {"steps": [{"value": 42}]}:
        return LevelReport(level, False, f"{got}; the probe did not answer ({outcome.result_error})")
    return LevelReport(level, True, got)
