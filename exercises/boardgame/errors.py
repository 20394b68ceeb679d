"""The two errors a Dictionary raises (given: do not edit).

The grader compares exceptions by class name, so raise exactly these classes.
"""

from __future__ import annotations


class DictionaryError(Exception):
    """Base class of the dictionary's errors."""


class DuplicatedKeyError(DictionaryError):
    """`put` was given a record whose configuration is already stored."""


class InexistentKeyError(DictionaryError):
    """`remove` was asked for a configuration that is not stored."""
