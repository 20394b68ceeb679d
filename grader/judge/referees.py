"""Referees: trusted generator functions of the fixtures that play a driver live (`interactive:`).

`referee: MODULE:FUNCTION` names a function of fixtures/NAME/MODULE.py. It runs here, in the
grader's process (never in the sandbox: what it knows, a reference engine, stays out of the
student's reach), called once per game as `FUNCTION(game)`, `game` a fresh plain copy of the
test's `game:` mapping. It must return a generator that

- yields what to type on the driver's stdin next (a str; None or "" to type nothing and wait),
- is sent, at each resumption, what the driver printed since (a non-empty str, inert text that
  may hold anything), or None once the driver's output has ended (it exited or closed stdout),
- returns `(verdict, message)`, verdict "AC" or "WA", when the game is decided.

Anything else (an exception, a value of another shape, typing after the output ended, a turn
longer than TIME_LIMIT_S) is the referee's failure: a JE naming it and why, never the student's.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Generator
from typing import Any, cast

from grader.judge.checkers import OverTime, plain_copy, time_limit, verdict_of, where
from grader.judge.verdicts import Verdict
from grader.run.box.protocol import cut
from grader.run.exchange import Reply, Ruling

TIME_LIMIT_S = 10.0  # one turn of the referee; a referee that hangs is the grader's fault
REASON_CAP = 300
MESSAGE_CAP = 500


class RefereeSession:
    """One game's referee, as `grader.run.exchange.Exchange` asks it (it never raises)."""

    def __init__(self, function: Callable[..., Any], game: dict[str, Any], source: str) -> None:
        self.function = function
        self.game = game
        self.source = source
        self.generator: Generator[Any, str | None, Any] | None = None
        self.ruled = False

    def opening(self) -> Reply:
        try:
            with time_limit(TIME_LIMIT_S):
                made = self.function(plain_copy(self.game))
        except OverTime as error:
            return self._failed(f"ran for more than {TIME_LIMIT_S:g} s on one turn", error)
        except (Exception, SystemExit) as error:  # the author's code: every failure is a JE
            return self._failed(f"raised {type(error).__name__}: {cut(str(error), REASON_CAP)}", error)
        if not inspect.isgenerator(made):
            return self._failed(f"returned {cut(repr(made), REASON_CAP)}, not a generator")
        self.generator = cast(Generator[Any, str | None, Any], made)
        return self._turn(None, first=True)

    def answer(self, printed: str | None) -> Reply:
        if self.ruled or self.generator is None:
            return self._failed("was asked to play after its game ended")
        reply = self._turn(printed)
        if printed is None and isinstance(reply, str):
            return self._failed("asked to type after the driver's output had ended, instead of ruling")
        return reply

    def _turn(self, printed: str | None, first: bool = False) -> Reply:
        assert self.generator is not None
        try:
            with time_limit(TIME_LIMIT_S):
                said = next(self.generator) if first else self.generator.send(printed)
        except StopIteration as end:
            return self._ruling(end.value)
        except OverTime as error:
            return self._failed(f"ran for more than {TIME_LIMIT_S:g} s on one turn", error)
        except (Exception, SystemExit) as error:
            return self._failed(f"raised {type(error).__name__}: {cut(str(error), REASON_CAP)}", error)
        if said is None:
            return ""
        if type(said) is not str:
            return self._failed(
                f"yielded {cut(repr(said), REASON_CAP)}, not the text to type (a str or None)"
            )
        return said

    def _ruling(self, returned: Any) -> Reply:
        self.ruled = True
        verdict, message = verdict_of(returned)
        if verdict is None:
            shown = cut(repr(returned), REASON_CAP)
            return self._failed(f"returned {shown}, not (verdict, message) with verdict 'AC' or 'WA'")
        return Ruling("AC" if verdict is Verdict.AC else "WA", cut(message, MESSAGE_CAP))

    def _failed(self, why: str, error: BaseException | None = None) -> Ruling:
        self.ruled = True
        message = f"the referee {self.source} {why} (the grader's fault, not the submission's)"
        return Ruling("JE", message, where(error) if error is not None else "")
