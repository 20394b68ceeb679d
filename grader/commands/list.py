"""`grader list`: the exercises, their drivers and points."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from grader.commands import EXIT_OK
from grader.exercise import Exercise
from grader.suite.load import load_suite
from grader.suite.schema import SuiteError


def run(args: argparse.Namespace, console: Console) -> int:
    table = Table("exercise", "title", "tests", "points", "drivers")
    for exercise in Exercise.all():
        try:
            loaded = load_suite(str(exercise.suite))
        except SuiteError as error:
            console.print(f"[red]error:[/] {error}")
            continue
        suite = loaded.suite
        table.add_row(suite.exercise, suite.title, str(len(suite.tests)), f"{suite.total_points:g}",
                      ", ".join(loaded.runnable_drivers) or "-")
    console.print(table)
    return EXIT_OK
