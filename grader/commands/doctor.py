"""`grader doctor`: what this host supports, and what each sandbox level would give a test here."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from grader.commands import EXIT_OK
from grader.commands.output import stdout_console
from grader.run.doctor import LEVELS, host_facts, try_level


def print_doctor(console: Console) -> None:
    for what, answer in host_facts():
        console.print(Text(f"{what}: {answer}"))
    for level in LEVELS:
        report = try_level(level)
        mark = "ok" if report.usable else "unavailable"
        console.print(Text(f"--sandbox {level}: {mark}: {report.detail}"))


def main(*, console: Console | None = None) -> int:
    """What this host supports for the sandbox, and what each level gives a test here."""
    print_doctor(stdout_console(console))
    return EXIT_OK
