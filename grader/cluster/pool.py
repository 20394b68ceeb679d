"""A local batch's process pool, and how it ends without leaving anything behind.

The pool's processes are forked by multiprocessing's fork server, and every one of them holds the
pipes that keep that fork server and multiprocessing's resource tracker alive; the main process
holds named semaphores (/dev/shm) and a temporary folder (the fork server's socket). So:

- each pool process watches the main process (a pidfd) and stops itself with SIGTERM when the
  main process ends, however it ends (SIGKILL included), which lets the helpers end too;
- a pool process stopped with SIGTERM unwinds the grading it runs (its fork server, its tests'
  cgroups, its scratch folder), runs the atexit handlers multiprocessing's children skip (they
  remove its cgroups) and exits with 143 instead of taking the next submission;
- the semaphores and the temporary folder are named after the main process (`grader.owners`), and
  a batch that starts first removes those of batches that died (the resource tracker, which
  otherwise removes them, dies with a SIGKILL of the whole process group).
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import multiprocessing.util
import os
import select
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from grader import owners
from grader.cluster.grading import grade_one
from grader.cluster.job import Payload

STOP_GRACE_S = 5.0  # after Ctrl-C or SIGTERM, how long a pool process may take to stop its tests
EXIT_TERMINATED = 128 + signal.SIGTERM
SOCKET_PATH_MAX = 107  # an AF_UNIX path: multiprocessing puts "/listener-XXXXXXXX" in its folder

T = TypeVar("T")
_stopping = False  # this pool process got SIGTERM: it finishes unwinding, then exits
_exit_handlers_ran = False


def before_pool() -> None:
    """In the main process, before it starts a pool: remove what batches that died left, and
    name this one's semaphores and temporary folder after this process."""
    owners.sweep_once(owners.scratch_root(), Path(tempfile.gettempdir()))
    config = getattr(multiprocessing.current_process(), "_config", None)  # no public handle
    if not isinstance(config, dict):
        return
    config["semprefix"] = owners.semaphore_prefix()
    if "tempdir" not in config:  # else multiprocessing made its own already (and removes it)
        folder = tempfile.mkdtemp(prefix=owners.scratch_prefix("mp-"))
        if len(folder) + len("/listener-XXXXXXXX") > SOCKET_PATH_MAX:
            os.rmdir(folder)
            return
        config["tempdir"] = folder
        multiprocessing.util.Finalize(None, shutil.rmtree, args=(folder, True), exitpriority=-100)


def start_pool(jobs: int) -> ProcessPoolExecutor:
    """`jobs` pool processes (at least one) for gradings or games, started by a fork server after
    `before_pool`, each set up by `pool_setup` to end with this process."""
    before_pool()
    return ProcessPoolExecutor(
        max_workers=max(1, jobs),
        initializer=pool_setup,
        initargs=(owners.me(),),
        mp_context=multiprocessing.get_context("forkserver"),
    )


def pool_setup(main: owners.Owner | None = None) -> None:
    """In a pool process: Ctrl-C is the main process's to handle; SIGTERM unwinds (stopping
    tests) and ends the process; the end of `main` sends that SIGTERM."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop_on_term)
    multiprocessing.util.Finalize(None, _run_exit_handlers, exitpriority=0)
    if main is not None:
        _watch(main)


def grade_in_pool(
    root: str, suite_path: str, source: Path, public_only: bool, sandbox: str | None
) -> Payload:
    """`grade_one` in a pool process, which ends once the grading unwound after a SIGTERM."""
    return stoppable(grade_one, root, suite_path, source, public_only, sandbox)


def stoppable(work: Callable[..., T], *args: Any) -> T:
    """`work(*args)` in a pool process, which ends once the work unwound after a SIGTERM (the
    pool would otherwise take the SystemExit as a result and start the next piece of work)."""
    try:
        if _stopping:
            raise SystemExit(EXIT_TERMINATED)
        return work(*args)
    finally:
        if _stopping:
            _run_exit_handlers()
            os._exit(EXIT_TERMINATED)


def _stop_on_term(signum: int, frame: object) -> None:
    global _stopping
    if _stopping:
        return  # unwinding already: a second signal must not cut the cleanup short
    _stopping = True
    raise SystemExit(128 + signum)


def _run_exit_handlers() -> None:
    """What atexit holds (the removal of this process's cgroups): multiprocessing's children
    end with os._exit, which skips it."""
    global _exit_handlers_ran
    if not _exit_handlers_ran:
        _exit_handlers_ran = True
        atexit._run_exitfuncs()


def _watch(main: owners.Owner) -> None:
    """SIGTERM this process when `main` ends: a thread waits on its pidfd (no polling)."""
    if not hasattr(os, "pidfd_open"):
        return
    try:
        pidfd = os.pidfd_open(main.pid)
    except ProcessLookupError:
        os._exit(EXIT_TERMINATED)  # gone already, before this process graded anything
    except OSError:
        return  # pidfds refused here: nothing watches
    if not main.alive():  # its pid now names another process, or a zombie
        os._exit(EXIT_TERMINATED)
    threading.Thread(target=_stop_when_ended, args=(pidfd,), name="watch-main", daemon=True).start()


def _stop_when_ended(pidfd: int) -> None:
    select.select([pidfd], [], [])
    os.kill(os.getpid(), signal.SIGTERM)


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: queued work dropped, running gradings told to stop their tests (each
    process then exits), killed if they have not within STOP_GRACE_S."""
    processes = list(getattr(pool, "_processes", {}).values())  # no public handle on them
    for process in processes:
        with contextlib.suppress(OSError, AttributeError):
            process.terminate()
    deadline = time.monotonic() + STOP_GRACE_S
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.kill()
            process.join(1.0)
    with contextlib.suppress(Exception):
        pool.shutdown(wait=False, cancel_futures=True)
    # Its manager thread closes the pool's wake-up pipe as it ends; Python 3.11's exit hook writes
    # to that pipe without a lock, so a process ending meanwhile printed "Bad file descriptor".
    manager = getattr(pool, "_executor_manager_thread", None)  # no public handle either
    if isinstance(manager, threading.Thread):
        manager.join(STOP_GRACE_S)
