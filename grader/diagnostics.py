"""Errors and warnings about the user's input, collected, counted and printed to stderr together
(Kattis problemtools' model): whoever finds a problem says which file, and where in it."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TextIO, TypeAlias

from grader.inert import inert_text

Severity: TypeAlias = Literal["error", "warning"]
Location: TypeAlias = Path | str | None


@dataclass(frozen=True)
class Diagnostic:
    """One problem: how bad, what, and where (a file, and a line in it when known).

    >>> str(Diagnostic("error", "no test named x", Path("fixtures/toy/suite.yaml"), 12))
    'fixtures/toy/suite.yaml:12: no test named x'
    >>> str(Diagnostic("warning", "nothing to grade"))
    'nothing to grade'
    """

    severity: Severity
    message: str
    file: Location = None
    line: int | None = None

    def __str__(self) -> str:
        if self.file is None:
            return self.message
        where = f"{self.file}:{self.line}" if self.line is not None else f"{self.file}"
        return f"{where}: {self.message}"


@dataclass
class Diagnostics:
    """Every problem found so far, in the order found."""

    found: list[Diagnostic] = field(default_factory=list)

    def error(self, message: str, *, file: Location = None, line: int | None = None) -> None:
        self.found.append(Diagnostic("error", message, file, line))

    def warning(self, message: str, *, file: Location = None, line: int | None = None) -> None:
        self.found.append(Diagnostic("warning", message, file, line))

    def extend(self, other: Diagnostics) -> None:
        self.found.extend(other.found)

    @property
    def errors(self) -> list[Diagnostic]:
        return [each for each in self.found if each.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [each for each in self.found if each.severity == "warning"]

    @property
    def ok(self) -> bool:
        """No error (warnings do not stop anything)."""
        return not self.errors

    def messages(self) -> list[str]:
        """Each problem as `FILE:LINE: what`, without its severity."""
        return [str(each) for each in self.found]

    def lines(self) -> list[str]:
        """Each problem as printed: `error: FILE:LINE: what` (student text made inert).

        >>> found = Diagnostics()
        >>> found.warning("one roster row is empty", file="roster.csv", line=3)
        >>> found.error("bo\\x1bb: not a folder")
        >>> found.lines()
        ['warning: roster.csv:3: one roster row is empty', 'error: bo\\\\x1bb: not a folder']
        """
        return [f"{each.severity}: {inert_text(str(each))}" for each in self.found]

    def count(self) -> str:
        """How many of each, as said after them.

        >>> found = Diagnostics(); found.error("a"); found.error("b"); found.warning("c")
        >>> found.count()
        '2 error(s), 1 warning(s)'
        """
        return f"{len(self.errors)} error(s), {len(self.warnings)} warning(s)"

    def print(self, stream: TextIO | None = None) -> None:
        """Every problem, one line each, on stderr (or `stream`)."""
        out = stream if stream is not None else sys.stderr
        for line in self.lines():
            print(line, file=out)
