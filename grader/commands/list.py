"""`grader list`: the exercises, their drivers and points, one line each."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from grader.commands import EXIT_BAD_INPUT, EXIT_OK
from grader.commands.output import stdout_console
from grader.diagnostics import Diagnostics
from grader.exercise import Exercise
from grader.suite.load import load_suite
from grader.suite.model import SuiteError

COLUMNS = ("exercise", "title", "tests", "points", "drivers")


def main(*, console: Console | None = None) -> int:
    """The exercises, their drivers and points, one line each; a suite that does not load is an
    error line on stderr (the others are listed, exit 3)."""
    console = stdout_console(console)
    rows: list[tuple[str, ...]] = []
    problems = Diagnostics()
    for exercise in Exercise.all():
        try:
            loaded = load_suite(str(exercise.suite))
        except SuiteError as error:
            problems.error(str(error))
            continue
        suite = loaded.suite
        rows.append(
            (
                suite.exercise,
                suite.title,
                str(len(suite.tests)),
                f"{suite.total_points:g}",
                ", ".join(loaded.runnable_drivers) or "-",
            )
        )
    for line in table_lines(rows, console.width):
        console.print(Text(line), no_wrap=True, overflow="ignore", crop=False)
    problems.print()
    return EXIT_OK if problems.ok else EXIT_BAD_INPUT


def table_lines(rows: list[tuple[str, ...]], width: int) -> list[str]:
    """The header and one line per exercise, `width` columns at most: the title is shortened.

    >>> for line in table_lines([("ab", "A long title here", "3", "4", "-")], 45):
    ...     print(line)
    exercise  title        tests  points  drivers
    ab        A long tit…  3      4       -
    """
    widths = [max([len(column), *(len(row[i]) for row in rows)]) for i, column in enumerate(COLUMNS)]
    gap = "  "
    others = sum(widths) - widths[1] + len(gap) * (len(COLUMNS) - 1)
    widths[1] = max(len(COLUMNS[1]), min(widths[1], width - others))
    lines = []
    for row in [COLUMNS, *rows]:
        cells = [_fit(cell, widths[i]) for i, cell in enumerate(row)]
        lines.append(gap.join(cells).rstrip())
    return lines


def _fit(cell: str, width: int) -> str:
    return (cell if len(cell) <= width else cell[: width - 1] + "…").ljust(width)
