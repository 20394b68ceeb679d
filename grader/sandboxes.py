"""The sandbox levels, named once (docs/running.md, "Sandbox levels"); `grader.run.sandbox` resolves them."""

from __future__ import annotations

import os
from typing import Literal, TypeAlias, get_args

SandboxChoice: TypeAlias = Literal["process", "container", "bwrap", "auto"]
# What a choice resolves to on this machine: `container` hides the grader's files by permissions
# from the tests' unprivileged uid (where namespaces are refused, as in Docker), `bwrap` by mounts.
Confinement: TypeAlias = Literal["process", "container", "bwrap"]
SANDBOX_CHOICES: tuple[SandboxChoice, ...] = get_args(SandboxChoice)

SANDBOX_VARIABLE = "GRADER_SANDBOX"


def asked(flag: str | None) -> str | None:
    """The level asked for: the command line's flag, else $GRADER_SANDBOX (None: neither)."""
    return flag or os.environ.get(SANDBOX_VARIABLE) or None
