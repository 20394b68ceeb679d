"""`grader tokens COURSE [LOGIN...]`: `login,token` CSV lines, for a mail merge."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

from grader.commands import EXIT_OK


def main(*, course: Path, logins: list[str] | None = None) -> int:
    """Print `login,token` for every named login (a new token replaces their old one), or, with
    no login named, for everyone on the roster who has no token yet. Tokens are stored hashed:
    this is the only time they are shown."""
    from grader.service.course import load_course
    from grader.service.setup import configure, migrate

    loaded = load_course(course, check_suites=False)
    configure(loaded)
    migrate()
    from grader.service.people import issue_tokens  # a model: after Django is configured

    writer = csv.writer(sys.stdout, lineterminator="\n")
    for login, token in issue_tokens(loaded, list(logins or [])):
        writer.writerow([login, token])
    sys.stdout.flush()
    return EXIT_OK
