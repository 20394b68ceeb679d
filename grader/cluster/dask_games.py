"""A tournament's games played on a Dask cluster: one task per game, results gathered here.

Each task carries both engines' bytes and the exercise bundle (its referee among the fixtures), so
workers share no file system with this one; each engine is packed once. A worker that dies
mid-game has the game played again elsewhere (by the scheduler, up to
`distributed.scheduler.allowed-failures` times, and sent again here when the cluster lost it); a
game that keeps killing workers, or whose task fails, comes back void: the grader's fault, it
counts for no one. Every game is yielded once; only `window` tasks are in flight.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from grader.cluster.bundle import ExerciseBundle, build_bundle
from grader.cluster.dask_cluster import RESUBMITS, DaskCluster, allowed_failures
from grader.cluster.game_task import GameTask, Played, run_game_task
from grader.cluster.gameplay import GameResult, Pairing, void_result
from grader.cluster.parcel import SubmissionParcel, pack
from grader.sandboxes import Confinement
from grader.suite.limits import Limits
from grader.suite.load import LoadedSuite


class DaskGames:
    """Games played as Dask tasks on `scheduler`, or on a LocalCluster of `jobs` workers."""

    def __init__(self, loaded: LoadedSuite, jobs: int | None, scheduler: str | None) -> None:
        self.loaded = loaded
        self.dask = DaskCluster(jobs, scheduler)
        self.client: Any = None
        self.bundle: ExerciseBundle | None = None
        self.parcels: dict[str, SubmissionParcel] = {}  # source -> its parcel, packed once
        self.queue: deque[tuple[Pairing, Confinement, Limits]] = deque()
        self.running: dict[Any, tuple[Pairing, Confinement, Limits, int]] = {}
        self.returned: set[int] = set()

    def __enter__(self) -> DaskGames:
        self.bundle = build_bundle(self.loaded)
        self.client = self.dask.__enter__().client
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.dask.cancel_and_close(self.running)
        self.client = None

    def submit(self, pairing: Pairing, sandbox: Confinement, limits: Limits) -> None:
        self.queue.append((pairing, sandbox, limits))

    def _parcel(self, source: str) -> SubmissionParcel:
        if source not in self.parcels:
            self.parcels[source] = pack(Path(source))
        return self.parcels[source]

    def _launch(self, pairing: Pairing, sandbox: Confinement, limits: Limits, attempt: int) -> Any:
        assert self.bundle is not None
        first, second = (self._parcel(source) for source in pairing.sources)
        task = GameTask(
            pairing=pairing, parcels=(first, second), bundle=self.bundle, sandbox=sandbox, limits=limits
        )
        key = (
            f"game-{pairing.number}-{first.digest[:8]}-{second.digest[:8]}-"
            f"{self.bundle.digest[:12]}-{attempt}"
        )
        future = self.client.submit(run_game_task, task, key=key, retries=0)
        self.running[future] = (pairing, sandbox, limits, attempt)
        return future

    def completed(self) -> Iterator[GameResult]:
        tracker = self.dask.distributed.as_completed()
        self._fill(tracker)
        for future in tracker:
            pairing, sandbox, limits, attempt = self.running.pop(future)
            outcome = self._outcome(future)
            if outcome is None and attempt < RESUBMITS:
                tracker.add(self._launch(pairing, sandbox, limits, attempt + 1))
                continue
            self._fill(tracker)
            if pairing.number in self.returned:
                continue
            self.returned.add(pairing.number)
            if isinstance(outcome, Played):
                yield outcome.result
            else:
                yield void_result(pairing, outcome or "the cluster lost this game's task")

    def _fill(self, tracker: Any) -> None:
        window = self.dask.window()
        while self.queue and len(self.running) < window:
            tracker.add(self._launch(*self.queue.popleft(), 0))

    def _outcome(self, future: Any) -> Played | str | None:
        """The game played, why it was not, or None for a task the cluster lost."""
        if self.dask.lost(future):
            return None
        error = future.exception()
        if error is None:
            played: Played = future.result()
            return played
        if isinstance(error, self.dask.distributed.KilledWorker):
            return f"the workers playing this game died {1 + allowed_failures()} times"
        return f"its task failed: {error}"
