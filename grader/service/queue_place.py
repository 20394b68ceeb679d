"""Where a queued submission stands: its place in the order the workers will serve the queue
(`jobs.served_order`, what `claim` does) and the wait that place means at the recent pace."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TypedDict

from grader.service.jobs import served_order
from grader.service.models import QUEUED, Submission

PACE_WINDOW = timedelta(minutes=15)  # the gradings whose pace the estimate follows


class Place(TypedDict):
    position: int  # 1: the next job a worker takes
    estimate_s: float | None  # None: too few gradings lately to say
    text: str  # what the submission page says


def wait_estimate(position: int, ends: Sequence[datetime]) -> float | None:
    """Seconds until the job at `position` is graded, when gradings end at the pace of `ends`
    (the recent ones, in order): position x the mean gap between them; None from fewer than two
    gradings, or gradings all ending at once (nothing to measure a pace by).

    >>> from datetime import UTC
    >>> ends = [datetime(2026, 1, 1, 12, 0, s, tzinfo=UTC) for s in (0, 4, 8, 12)]
    >>> wait_estimate(3, ends), wait_estimate(1, ends[:1]), wait_estimate(2, [ends[0], ends[0]])
    (12.0, None, None)
    """
    if len(ends) < 2:
        return None
    pace = (ends[-1] - ends[0]).total_seconds() / (len(ends) - 1)
    return round(position * pace, 1) if pace > 0 else None


def said(position: int, estimate_s: float | None) -> str:
    """What the submission page says of a place in the queue.

    >>> said(1, None)
    'next in the queue'
    >>> said(3, 40.0)
    'number 3 in the queue, graded in about 40 s'
    >>> said(12, 500.0)
    'number 12 in the queue, graded in about 8 min'
    """
    where = "next in the queue" if position == 1 else f"number {position} in the queue"
    if estimate_s is None:
        return where
    wait = f"{estimate_s:.0f} s" if estimate_s < 90 else f"{round(estimate_s / 60):.0f} min"
    return f"{where}, graded in about {wait}"


def place_of(sub: Submission, now: datetime) -> Place | None:
    """Where `sub` stands in the queue, or None when it is not waiting there."""
    if sub.status != QUEUED:
        return None
    order = served_order()
    if sub.id not in order:
        return None
    position = order.index(sub.id) + 1
    ends = list(
        Submission.objects.filter(graded_at__gte=now - PACE_WINDOW)
        .order_by("graded_at")
        .values_list("graded_at", flat=True)
    )
    estimate = wait_estimate(position, [end for end in ends if end is not None])
    return Place(position=position, estimate_s=estimate, text=said(position, estimate))
