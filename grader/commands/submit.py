"""`grader submit URL ASSIGNMENT FILE... [--token TOKEN]`: submit to a course's service, wait for
the grading and print the report."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from rich.console import Console
from rich.text import Text

from grader.commands import EXIT_GRADER_FAILED, EXIT_OK
from grader.errors import UserError


def submit(*, url: str, assignment: str, files: list[Path], token: str | None,
           console: Console) -> int:
    """Upload FILES to ASSIGNMENT at URL (token: the argument, else $GRADER_TOKEN), follow the
    grading, print the report; 0 once graded, 1 when the service's grader failed."""
    from grader.service.client import follow, print_submission, upload

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


def run(args: argparse.Namespace, console: Console) -> int:
    return submit(url=args.url, assignment=args.assignment, files=list(args.files),
                  token=args.token, console=console)
