"""The sandbox levels, named once (README, "Sandbox levels"); `grader.run.sandbox` resolves them."""

from __future__ import annotations

from typing import Literal, TypeAlias, get_args

SandboxChoice: TypeAlias = Literal["process", "bwrap", "auto"]
Confinement: TypeAlias = Literal["process", "bwrap"]  # what a choice resolves to on this machine
SANDBOX_CHOICES: tuple[SandboxChoice, ...] = get_args(SandboxChoice)
