"""`grader submit URL ASSIGNMENT FILE... [--token TOKEN]`: submit to a course's service, wait for
the grading and print the report."""

from __future__ import annotations

import os
from pathlib import Path

from rich.console import Console
from rich.text import Text

from grader.commands import EXIT_GRADER_FAILED, EXIT_OK
from grader.commands.output import stdout_console
from grader.errors import UserError


def main(
    *, url: str, assignment: str, files: list[Path], token: str | None = None, console: Console | None = None
) -> int:
    """Upload FILES to ASSIGNMENT at URL (token: the argument, else $GRADER_TOKEN), follow the
    grading, print the report; 0 once graded, 1 when the service's grader failed (status
    error), 3 when refused (one line)."""
    from grader.service.client import follow, print_submission, upload

    console = stdout_console(console)
    token = token or os.environ.get("GRADER_TOKEN", "")
    if not token:
        raise UserError("no token: pass --token TOKEN or set GRADER_TOKEN")
    for path in files:
        if not path.is_file():
            raise UserError(f"{path}: no such file")
    ident = upload(url, assignment, files, token)
    console.print(Text(f"submitted: {url.rstrip('/')}/submissions/{ident}"))
    data = follow(url, ident, token)
    print_submission(data, console)
    return EXIT_OK if data.get("status") == "graded" else EXIT_GRADER_FAILED
