"""The errors that are the user's to fix, light enough for the CLI to catch.

Every other exception escaping a command is a bug of the grader: exit 1, with its traceback.
"""

from __future__ import annotations


class UserError(Exception):
    """Bad input (a suite, a submission, a missing file): one line saying what is wrong; exit 3."""


class UsageError(UserError):
    """A command line asking for what cannot be (flags that do not go together); exit 2."""
