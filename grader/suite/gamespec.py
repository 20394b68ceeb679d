"""A suite test's `game:` key (what it means: `grader.suite.games`, docs/suites.md "Games")."""

from __future__ import annotations

from pydantic import Field

from grader.suite.fields import CheckerName
from grader.suite.model import Strict


class GameSpec(Strict):
    matches: CheckerName = Field(
        description="MODULE:FUNCTION of the fixtures returning the list of `Match`es this test plays"
    )
