"""The suite's interactive tests: a driver played live by a referee (docs/suites.md, "Interactive
tests"). A test writes `interactive:` instead of `transcript:`; `TestSpec.interactive` holds it."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, PlainValidator

from grader.suite.fields import CHECKER_PATTERN
from grader.suite.model import Strict


def _referee(value: Any) -> str:
    if isinstance(value, str) and CHECKER_PATTERN.match(value):
        return value
    raise ValueError(
        f"expected MODULE:FUNCTION (a generator function of fixtures/NAME/MODULE.py), got {value!r}"
    )


RefereeName = Annotated[str, PlainValidator(_referee)]


class Interactive(Strict):
    """A given driver run with the test's stdin and stdout connected to a trusted referee."""

    driver: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")] = Field(
        description="a given module, run as __main__ (as a transcript's driver)"
    )
    args: list[str] = Field(default_factory=list, description="the driver's sys.argv[1:]")
    referee: RefereeName = Field(
        description="MODULE:FUNCTION of the fixtures: called with `game`, a generator that is sent "
        "what the driver printed and yields what to type, then returns (verdict, message)"
    )
    game: dict[str, Any] = Field(
        default_factory=dict, description="plain data handed to the referee (depth, side, opening ...)"
    )

    def described(self) -> str:
        """The game as failure messages name it.

        >>> Interactive(driver="console", referee="referees:console_game", game={"depth": 3}).described()
        'console played by referees:console_game {"depth": 3}'
        """
        import json

        words = [self.driver, *self.args, "played by", self.referee]
        return " ".join(words) + (f" {json.dumps(self.game, sort_keys=True)}" if self.game else "")
