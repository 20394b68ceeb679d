"""The `tournament:` section of a course file's assignment (docs/service.md, "Tournaments")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class TournamentSpec(BaseModel):
    """An assignment's opt-in tournament of its students' engines: `games` per pair of engines,
    and who sees the standings: `instructors` only, or `students` too (logins and results only)
    once the assignment's hidden results are released."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    games: Annotated[int, Field(ge=1, le=100)] = 2
    standings: Literal["instructors", "students"] = "instructors"


def tournament_problem(course_dir: Path, exercise: str) -> str | None:
    """Why the exercise (a name, or a suite file relative to `course_dir`) cannot be played in a
    tournament (its referee has no `tournament()`); None when it can."""
    from grader.cluster.gameplay import tournament_of
    from grader.suite.load import load_suite
    from grader.suite.model import SuiteError

    candidate = course_dir / exercise
    loaded = load_suite(str(candidate) if exercise.endswith((".yaml", ".yml")) else exercise)
    try:
        tournament_of(loaded)
    except SuiteError as error:
        return f"{loaded.name} has no tournament: {error}"
    return None
