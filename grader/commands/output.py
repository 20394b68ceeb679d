"""Where a command prints: its report on stdout (rich), its problems on stderr (Diagnostics)."""

from __future__ import annotations

from rich.console import Console


def stdout_console(console: Console | None) -> Console:
    """The console a command prints its report to: the caller's, else stdout."""
    return console if console is not None else Console(soft_wrap=True)
