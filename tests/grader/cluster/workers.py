"""Killing a busy worker of a LocalCluster, as a crash would, without a second Dask client.

A test that opened its own `distributed.Client` beside the grader's had two clients in one
process, and a future's result could then wait on an event of the other client's loop
("bound to a different event loop"). The LocalCluster's scheduler runs in this process: its view
of the workers is read directly.
"""

from __future__ import annotations

import os
import signal
from typing import Any


def kill_a_busy_worker(cluster: Any, key_prefix: str) -> tuple[str, list[str]] | None:
    """SIGKILL the process of a worker that holds a task whose key starts with `key_prefix`:
    (its address, those keys), or None when no worker holds one."""
    for address, worker in list(cluster.scheduler.workers.items()):
        keys = [str(task.key) for task in list(worker.processing)]
        if worker.pid and any(key.startswith(key_prefix) for key in keys):
            os.kill(worker.pid, signal.SIGKILL)
            return address, keys
    return None
