"""Where a tournament's games are played, on the batch's executors: this machine's process pool,
or a Dask cluster (`grader.cluster.dask_games`).

Either way the tournament sees one small interface: `submit(pairing, sandbox, limits)` each game,
then iterate `completed()` for each game's result, once per game, in the order they end; leaving
the `with` block early (Ctrl-C) stops what is running and cancels what has not started.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from types import TracebackType
from typing import Protocol

from grader import owners
from grader.cluster.gameplay import GameResult, Pairing, play_game
from grader.cluster.job import EXECUTORS, ExecutorUnavailable
from grader.exercise import project_root
from grader.sandboxes import Confinement
from grader.suite.limits import Limits
from grader.suite.load import LoadedSuite, load_suite


class GameExecutor(Protocol):
    def __enter__(self) -> GameExecutor: ...

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None: ...

    def submit(self, pairing: Pairing, sandbox: Confinement, limits: Limits) -> None: ...

    def completed(self) -> Iterator[GameResult]: ...


def play_in_pool(
    root: str, suite_path: str, pairing: Pairing, sandbox: Confinement, limits: Limits
) -> GameResult:
    """`play_game` in a pool process (which may outlive the caller's environment); it ends
    once the game unwound after a SIGTERM (the caller ended)."""
    from grader.cluster.pool import stoppable

    os.environ["GRADER_ROOT"] = root
    return stoppable(play_game, load_suite(suite_path), pairing, sandbox, limits)


class LocalGames:
    """The games of a tournament played `jobs` at a time by a process pool on this machine, each
    in a pool process with its two engines' fork servers."""

    def __init__(self, loaded: LoadedSuite, jobs: int) -> None:
        from grader.cluster.pool import before_pool, pool_setup

        self.loaded = loaded
        before_pool()
        self.pool = ProcessPoolExecutor(
            max_workers=max(1, jobs),
            initializer=pool_setup,
            initargs=(owners.me(),),
            mp_context=multiprocessing.get_context("forkserver"),
        )
        self.pending: set[Future[GameResult]] = set()

    def __enter__(self) -> LocalGames:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if kind is not None:
            from grader.cluster.pool import stop_pool

            stop_pool(self.pool)
            return
        self.pool.shutdown(wait=True)

    def submit(self, pairing: Pairing, sandbox: Confinement, limits: Limits) -> None:
        root, suite = str(project_root()), str(self.loaded.path)
        self.pending.add(self.pool.submit(play_in_pool, root, suite, pairing, sandbox, limits))

    def completed(self) -> Iterator[GameResult]:
        while self.pending:
            finished, self.pending = wait(self.pending, return_when=FIRST_COMPLETED)
            for future in finished:
                yield future.result()


def open_games(
    name: str, loaded: LoadedSuite, jobs: int | None, scheduler: str | None = None
) -> GameExecutor:
    """The executor called `name`: `jobs` local processes, or Dask (`scheduler`, else a
    LocalCluster of `jobs` workers)."""
    if name == "local":
        from grader.cluster.grading import default_jobs

        return LocalGames(loaded, jobs if jobs is not None else default_jobs())
    if name == "dask":
        from grader.cluster.dask_games import DaskGames

        return DaskGames(loaded, jobs, scheduler)
    raise ExecutorUnavailable(f"unknown executor '{name}' (choose one of {', '.join(EXECUTORS)})")
