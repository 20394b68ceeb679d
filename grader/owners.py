"""Whose is what a grader leaves on the machine, and sweeping what graders that died left there.

Every scratch folder, cgroup and multiprocessing semaphore a grader process makes carries its
owner in its name: the process's pid, its start time (clock ticks after boot, /proc/PID/stat) and
its pid namespace. A pid alone could be reused; a pid that started at the same tick is the same
process. A later run removes only what names an owner that is no longer running (no such pid, a
process that started at another time, or a zombie): several graders may run at once on one
machine and never lose a live one's files. Names without an owner (made by older versions) and
owners in another pid namespace (a container sharing /tmp) are never judged here.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

SCRATCH_PREFIX = "grader-"
SEMAPHORE_PREFIX = "mp-gametree-grader-"  # after /dev/shm's "sem." (see `semaphore_prefix`)
SHM = Path("/dev/shm")
_TAG = re.compile(r"(\d+)-(\d+)-(\d+)-")


@dataclass(frozen=True)
class Owner:
    """A process, told apart from any later one that reuses its pid."""

    pid: int
    start: int  # clock ticks after boot
    namespace: int  # the inode of its pid namespace

    @property
    def tag(self) -> str:
        return f"{self.pid}-{self.start}-{self.namespace}"

    def alive(self) -> bool:
        """Whether this very process is running (a zombie is not: it holds nothing any more)."""
        found = _stat(self.pid)
        return found is not None and found[0] not in "ZX" and found[1] == self.start


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, start time) of `pid` from /proc, or None if there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()  # the name may hold ") "
        return fields[0].decode(), int(fields[19])
    except (OSError, ValueError, IndexError):
        return None


def _namespace() -> int:
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


@functools.cache
def _owner_of(pid: int) -> Owner:
    found = _stat(pid)
    return Owner(pid, found[1] if found else 0, _namespace())


def me() -> Owner:
    """This process (computed again after a fork)."""
    return _owner_of(os.getpid())


def owner_in(name: str, prefix: str) -> Owner | None:
    """The owner a name made by `prefix + tag + '-' + ...` carries, or None (not such a name)."""
    if not name.startswith(prefix):
        return None
    found = _TAG.match(name, len(prefix))
    return Owner(*(int(part) for part in found.groups())) if found else None


def left_by_the_dead(name: str, prefix: str) -> bool:
    """Whether `name` carries an owner of this pid namespace that is no longer running."""
    owner, mine = owner_in(name, prefix), me()
    if owner is None or mine.start == 0 or owner.namespace != mine.namespace:
        return False  # not ours to judge (and without /proc, nothing can be judged)
    return not owner.alive()


def scratch_root() -> Path:
    """Where submissions are laid out: $GRADER_SCRATCH, else the system's temporary folder."""
    return Path(os.environ.get("GRADER_SCRATCH") or tempfile.gettempdir())


def scratch_prefix(kind: str = "") -> str:
    """The start of the name of a scratch folder this process makes (`kind`: what it is for)."""
    return f"{SCRATCH_PREFIX}{me().tag}-{kind}"


def semaphore_prefix() -> str:
    """multiprocessing's prefix for the named semaphores this process creates."""
    return f"/{SEMAPHORE_PREFIX}{me().tag}"


def sweep_scratch(*roots: Path) -> list[Path]:
    """Remove the scratch folders of graders that died (default: in `scratch_root()`)."""
    removed = []
    for root in dict.fromkeys(roots or (scratch_root(),)):
        with contextlib.suppress(OSError):
            for folder in root.iterdir():
                if (
                    left_by_the_dead(folder.name, SCRATCH_PREFIX)
                    and folder.is_dir()
                    and not folder.is_symlink()
                ):
                    shutil.rmtree(folder, ignore_errors=True)
                    removed.append(folder)
    return removed


def sweep_semaphores(folder: Path = SHM) -> list[Path]:
    """Remove the named semaphores that multiprocessing created for graders that died."""
    removed = []
    with contextlib.suppress(OSError):
        for path in folder.iterdir():
            if left_by_the_dead(path.name, f"sem.{SEMAPHORE_PREFIX}"):
                with contextlib.suppress(OSError):
                    path.unlink()
                    removed.append(path)
    return removed


_swept: set[tuple[int, tuple[Path, ...]]] = set()  # (process, roots) swept already


def sweep_once(*roots: Path) -> None:
    """At the start of a run: remove what graders that died left (scratch folders in `roots`,
    default `scratch_root()`, and semaphores), once per process and roots."""
    key = (os.getpid(), roots or (scratch_root(),))
    if key not in _swept:
        _swept.add(key)
        sweep_scratch(*key[1])
        sweep_semaphores()
