"""Symbols and scores shared by every module of the board game (given: do not edit).

A board is a grid of squares, each holding one of four one-letter symbols. The configuration
string of a board lists its symbols row after row (row-major), so a 3x3 board with a blocked
centre, a computer tile in the top-left corner and a human tile below it reads `"ogg" + "bdg" +
"ggg"` = `"oggbdgggg"`.
"""

from __future__ import annotations

Symbol = str  # one of COMPUTER, HUMAN, BLOCKED, EMPTY
Config = str  # a board's squares, row after row, one Symbol each
Score = int  # one of HUMAN_WINS, UNDECIDED, DRAW, COMPUTER_WINS

COMPUTER: Symbol = "o"
HUMAN: Symbol = "b"
BLOCKED: Symbol = "d"
EMPTY: Symbol = "g"
SYMBOLS: tuple[Symbol, ...] = (COMPUTER, HUMAN, BLOCKED, EMPTY)

HUMAN_WINS: Score = 0
UNDECIDED: Score = 1
DRAW: Score = 2
COMPUTER_WINS: Score = 3


def opponent(symbol: Symbol) -> Symbol:
    """The player who moves after `symbol`."""
    return HUMAN if symbol == COMPUTER else COMPUTER
