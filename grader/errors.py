"""The base class of every error that is the user's to fix, light enough for the CLI to catch."""

from __future__ import annotations


class UserError(Exception):
    """Bad input (a suite, a submission, a flag, a missing file): one line saying what is wrong."""
