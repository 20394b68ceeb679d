"""The test's standard streams: stdin its input, stdout and stderr files of the grader's.

Standard library only, part of the box (`grader.run.box`): the test process imports it as a
sibling. A write to stdout or stderr that the disk refused for lack of space is noted
(`GraderFile.refused`); the test's result then says so (`output_lost`) and the parent blames
the grader's disk (JE), never the submission for a transcript the disk cut short.
"""

from __future__ import annotations

import errno
import io
import os
import sys
from typing import Any, ClassVar


class GraderFile(io.FileIO):
    """stdout or stderr: a write refused for space is noted in `refused`, then raised."""

    refused: ClassVar[list[str]] = []

    def write(self, data: Any, /) -> int:
        try:
            return super().write(data)
        except OSError as error:
            if error.errno in (errno.ENOSPC, errno.EDQUOT):
                GraderFile.refused.append(os.strerror(error.errno))
            raise


def standard_streams() -> None:
    """sys.stdin, sys.stdout and sys.stderr on descriptors 0, 1 and 2 (UTF-8)."""
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8", errors="replace")
    sys.stdout = io.TextIOWrapper(
        GraderFile(1, "w", closefd=False), encoding="utf-8", errors="backslashreplace", line_buffering=False
    )
    sys.stderr = io.TextIOWrapper(
        GraderFile(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", line_buffering=True
    )


def output_lost() -> str | None:
    """Why a write to stdout or stderr failed for lack of space, if one did."""
    return GraderFile.refused[0] if GraderFile.refused else None
