"""What every part of a suite's schema shares: strict frozen models, and the errors they raise."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from grader.errors import UserError


class SuiteError(UserError):
    """A suite that cannot be used, with a message naming the file, the line and the key."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LocatedError(ValueError):
    """A validation problem found by a model's validator about one of its keys (`loc` below it)."""

    def __init__(self, loc: tuple[int | str, ...], message: str) -> None:
        super().__init__(message)
        self.loc = loc
