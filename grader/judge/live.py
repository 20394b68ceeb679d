"""Interactive tests played live: a driver played by its referee, and the game judged.

The test process runs behind the same boundary, limits and accounting as any test
(`grader.run.runner.ForkServer.run_interactive`); the referee (`grader.judge.referees`) talks
with it from here (`grader.run.exchange`). The verdict, in this order: the grader's own failure
or the referee's (JE, never the student's), the referee's WA that ended the game, a limit or a
crash of the test (TLE, MLE, OLE, RTE), an exception of the driver (RTE, NI), then the referee's
ruling. Every message names the game, the turn and the last exchange; the whole exchange is the
test's game record (its details, shown as the failure texts are: hidden tests' stay hidden).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from grader.judge.judgement import Judgement, judge_exception, judge_process
from grader.judge.referees import RefereeSession
from grader.judge.verdicts import Verdict
from grader.run import received
from grader.run.box.protocol import HelperCode, cut
from grader.run.exchange import Exchange
from grader.run.runner import ForkServer
from grader.run.watchdog import RunOutcome
from grader.suite.cases import checker_function
from grader.suite.interactive import Interactive
from grader.suite.limits import Limits
from grader.suite.load import LoadedSuite
from grader.suite.model import SuiteError

RECORD_CAP = 12000  # characters of a game record shown; its end is kept (where it went wrong)
SAID_CAP = 200  # characters of one message quoted in a verdict's message


class GameRun(TypedDict):
    """What an interactive test's game was (as `grader record` stores the reference's)."""

    verdict: str
    game: list[list[str]]  # [side, text]: ">" typed by the referee, "<" printed by the driver


def merged(game: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The exchange with what one side said in a row joined: the same game whatever pieces the
    pipe cut the driver's output into.

    >>> merged([("<", "Dep"), ("<", "th: "), (">", "3\\n"), ("<", "X\\n")])
    [('<', 'Depth: '), ('>', '3\\n'), ('<', 'X\\n')]
    """
    joined: list[tuple[str, str]] = []
    for side, text in game:
        if joined and joined[-1][0] == side:
            joined[-1] = (side, joined[-1][1] + text)
        else:
            joined.append((side, text))
    return joined


def game_record(game: Sequence[tuple[str, str]]) -> str:
    """The exchange as a game record: each line typed by the referee `> `, printed by the driver
    `< `; the end kept when it is long.

    >>> print(game_record([("<", "Depth: "), (">", "3\\n1\\n"), ("<", "Playing X\\n")]))
    < Depth:
    > 3
    > 1
    < Playing X
    """
    lines: list[str] = []
    for side, text in game:
        lines += [f"{side} {line}".rstrip() for line in text.rstrip("\n").split("\n")]
    shown = "\n".join(lines)
    if len(shown) <= RECORD_CAP:
        return shown
    kept = shown[-RECORD_CAP:].split("\n", 1)[-1]
    return f"... ({shown.count(chr(10)) - kept.count(chr(10))} earlier lines)\n{kept}"


def last_exchange(game: Sequence[tuple[str, str]]) -> str:
    """What was typed last and what the driver printed after it, quoted for a message.

    >>> last_exchange([(">", "3\\n"), ("<", "AI Move: "), ("<", "z/z\\n")])
    "after '3\\\\n' it printed 'AI Move: z/z\\\\n'"
    >>> last_exchange([("<", "hello")])
    "before anything was typed it printed 'hello'"
    """
    typed = [index for index, (side, _) in enumerate(game) if side == ">"]
    start = typed[-1] + 1 if typed else 0
    printed = "".join(text for side, text in game[start:] if side == "<")
    before = f"after {cut(game[typed[-1]][1], SAID_CAP)!r}" if typed else "before anything was typed"
    return f"{before} it printed {cut(printed, SAID_CAP)!r}" if printed else f"{before} it printed nothing"


def play(
    server: ForkServer, loaded: LoadedSuite, spec: Interactive, limits: Limits, helpers: list[HelperCode]
) -> tuple[Judgement, RunOutcome | None, GameRun]:
    """Play the test's game and judge it; the judgement's details hold the game record."""
    try:
        function = checker_function(loaded, spec.referee, what="referee")
    except SuiteError as error:
        return Judgement(Verdict.JE, str(error)), None, GameRun(verdict="JE", game=[])
    exchange = Exchange(RefereeSession(function, spec.game, spec.referee), int(limits.output_kb * 1024))
    outcome = server.run_interactive(spec.driver, list(spec.args), exchange, limits, helpers)
    judgement = judge_game(outcome, exchange, limits)
    exchanged = merged(exchange.game)
    record = game_record(exchanged)
    message = judgement.message
    if judgement.verdict is not Verdict.AC or message:
        message = f"{spec.described()}: turn {exchange.turn}: {message}; {last_exchange(exchanged)}"
    shown = f"Game record (> typed by the referee, < printed by the program):\n{record}" if record else ""
    details = "\n".join(part for part in (judgement.details, shown) if part)
    game = GameRun(verdict=judgement.verdict.value, game=[[side, text] for side, text in exchanged])
    return Judgement(judgement.verdict, message, details), outcome, game


def judge_game(outcome: RunOutcome, exchange: Exchange, limits: Limits) -> Judgement:
    """The game's verdict (the order is the module's docstring's)."""
    ruling = exchange.ruling
    if outcome.worker_failure:
        return Judgement(Verdict.JE, outcome.worker_failure)
    if ruling is not None and ruling.verdict == "JE":
        return Judgement(Verdict.JE, ruling.message, f"Where the referee failed:\n{ruling.details}")
    if (
        ruling is not None
        and ruling.verdict == "WA"
        and not exchange.ended
        and outcome.killed_for in (None, "referee")
    ):
        return Judgement(Verdict.WA, ruling.message)  # it ended the game; else a crash comes first
    stopped = judge_process(outcome, limits)
    if stopped is not None:
        if outcome.killed_for == "asleep" and ruling is None:
            last = exchange.game[-1][0] if exchange.game else "<"
            waiting = "was waiting for its output" if last == "<" else "had typed its move"
            return Judgement(stopped.verdict, f"{stopped.message}; the referee {waiting}")
        return stopped
    try:
        result = received.driver_outcome(outcome.result)
    except received.Malformed as malformed:
        return Judgement(Verdict.RTE, f"the test process sent back a malformed result ({malformed})")
    if result["error"] is not None:
        return judge_exception(result["error"], "the driver")
    if ruling is None:
        return Judgement(Verdict.JE, "the referee did not rule on the game (the grader's fault)")
    return Judgement(Verdict.AC if ruling.verdict == "AC" else Verdict.WA, ruling.message)
