"""Writing the grader's own files: closed to everyone else, whole or not at all.

What the grader writes (results, reports, gradebooks, a batch's --out) can hold hidden tests'
cases and expected values and students' code, and at the container level the tests' uids read
the host's process list (which names --out): every folder the grader makes is 0700 and every
file 0600, whatever the umask (docs/isolation.md, "What the grader writes").
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def make_private(path: Path) -> Path:
    """`path` as a folder, made with any missing parents 0700; folders that existed are left as
    they are."""
    missing = []
    for folder in [path, *path.parents]:
        if folder.is_dir():
            break
        missing.append(folder)
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            if not folder.is_dir():
                raise
            continue
        folder.chmod(0o700)
    return path


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` so that a reader sees the old file or the new one, never half.

    The file is 0600 (mkstemp's) and new folders above it 0700 (`make_private`).
    """
    make_private(path.parent)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
