"""Games played by calls: what a suite's `game:` test names, and what its referee module provides.

A game test plays whole games between the student's engine and trusted players. The referee is
trusted Python of the fixtures (`fixtures/NAME/MODULE.py`), run in the grader, never in the test
process: it holds the position, says which call asks the engine for its move (plain data in, the
answer back as plain data), judges that answer (a legal move, or why not) and says when the game is
over. The engine's calls run one per fresh test process, behind the same boundary and limits as
every call test (`grader.judge.games` plays; `grader.judge.gametest` judges a suite's test).

```yaml
  - name: games-forced-wins
    question: search
    points: 2
    limits: {cpu_s: 10}                  # per move: each call is a test process of its own
    game: {matches: games:forced_wins}
```
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from grader.suite.schema import Step

MAX_PLIES = 400  # no game of the bundled exercises comes near; a referee that never ends is JE


class Illegal(Exception):
    """Raised by a referee's `play`: the engine's answer is not a legal move (its message says why)."""


class Game(Protocol):
    """One game's position, held by the referee (trusted; the engines only ever see plain data)."""

    def to_move(self) -> int:
        """The seat to move: 0 (who started) or 1."""
        ...

    def ask(self) -> list[Step]:
        """The steps of the test process that asks the engine to move: the answer is the result
        of its compared step (plain data; a list of the results if several steps are compared)."""
        ...

    def play(self, answer: Any) -> str:
        """Play the mover's answer and return the move's name, or raise `Illegal` (nothing played)."""
        ...

    def result(self) -> float | None:
        """None while the game goes on; else seat 0's score: 1 (won), 0.5 (drawn) or 0 (lost)."""
        ...


Player = Callable[[Game], Any]
"""A trusted player of the fixtures: the answer it plays, in the engines' answer form."""

Demand = Callable[[Game, Any], str | None]
"""A suite's demand on each of the student's legal answers, before it is played: None, or why
the move falls short (it gave away a forced win)."""


@dataclass
class Match:
    """One game a suite's test plays: the student in `student_seat`, `opponent` in the other."""

    label: str  # how the feedback names it: "depth 3 against the reference, as X"
    game: Game  # the position it starts from (an opening may already be played)
    opponent: Player | None  # None: the student's code answers for both seats
    student_seat: int = 0
    demand: Demand | None = None
    max_student_moves: int | None = None  # stop (no result) once the student has made this many


@dataclass
class Tournament:
    """What an exercise's referee module offers `grader tournament` (its `tournament()`)."""

    new_game: Callable[[int], Game]  # the game of one pairing from its opening number (seeded)
    openings: int  # how many different openings there are (games cycle through them)
    call: str  # the function the engines are asked by (shown in the report)
    move_cpu_s: float = 10.0  # each move's CPU limit (the suite's other limits apply)


def matches_of(found: Any, source: str) -> list[Match]:
    """The matches a referee's function returned, checked."""
    if not isinstance(found, list) or not all(isinstance(match, Match) for match in found):
        raise TypeError(f"'{source}' must return a list of grader.suite.games.Match")
    if not found:
        raise ValueError(f"'{source}' returned no match")
    return found
