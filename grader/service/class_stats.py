"""Per-question statistics of a class: the mean and median points of the counted submissions, a
histogram (an inline SVG drawn here, on the server) and the most common failure texts.

>>> part = Part("q1", "Board", 4.0, ("a", "b"))
>>> x, y = Failure("a", "WA x"), Failure("b", "WA y")
>>> stats = part_stats(part, [0.0, 2.0, 4.0, 4.0], [[x], [y, x], [], []])
>>> (stats.count, stats.mean, stats.median, [b.count for b in stats.bins])
(4, 2.5, 3.0, [1, 0, 1, 0, 2])
>>> [(common.text, common.count, common.tests) for common in stats.failures]
[('WA x', 2, ('a',)), ('WA y', 1, ('b',))]
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from dataclasses import dataclass

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from grader.report.grades import number
from grader.service.classes import Failure, Part, Row

MOST_BINS = 10
COMMON_FAILURES = 5  # failure texts shown per question
SVG_WIDTH, SVG_HEIGHT = 240, 64


@dataclass(frozen=True)
class Bin:
    low: float
    high: float
    count: int

    @property
    def label(self) -> str:
        if self.low == self.high:
            return number(self.low)
        return f"{number(self.low)} to {number(self.high)}"


@dataclass(frozen=True)
class CommonFailure:
    text: str
    count: int  # counted submissions that failed so
    tests: tuple[str, ...]  # the tests that said it


@dataclass(frozen=True)
class PartStats:
    part: Part
    count: int  # counted submissions
    mean: float | None
    median: float | None
    bins: list[Bin]
    failures: list[CommonFailure]  # commonest first

    @property
    def svg(self) -> SafeString:
        return histogram_svg(self.bins, f"{self.part.title}: points of {self.count} counted submission(s)")


def bins_of(points: list[float], most: float) -> list[Bin]:
    """Points in at most MOST_BINS equal bins from 0 to `most` (one per point when `most` is a
    small whole number: 0, 1, ... most); the last bin holds `most`.

    >>> [(b.label, b.count) for b in bins_of([0, 1, 1, 2], 2)]
    [('0', 1), ('1', 2), ('2', 1)]
    """
    if most <= 0:
        return [Bin(0.0, 0.0, len(points))]
    if most == int(most) and most < MOST_BINS:
        edges = [float(value) for value in range(int(most) + 1)]
        counts = Counter(min(math.floor(value), int(most)) for value in points)
        return [Bin(edge, edge, counts[int(edge)]) for edge in edges]
    width = most / MOST_BINS
    counts = Counter(min(int(value // width), MOST_BINS - 1) for value in points)
    return [
        Bin(round(index * width, 2), round((index + 1) * width, 2), counts[index])
        for index in range(MOST_BINS)
    ]


def part_stats(part: Part, points: list[float], failures: list[list[Failure]]) -> PartStats:
    """`points`: each counted submission's points on `part`; `failures`: each one's failures on it
    (a text counted once per submission, whichever tests said it)."""
    common = Counter(text for found in failures for text in {failure.text for failure in found})
    tests: dict[str, set[str]] = {}
    for found in failures:
        for failure in found:
            tests.setdefault(failure.text, set()).add(failure.test)
    ranked = sorted(common.items(), key=lambda item: (-item[1], item[0]))[:COMMON_FAILURES]
    return PartStats(
        part=part,
        count=len(points),
        mean=statistics.fmean(points) if points else None,
        median=statistics.median(points) if points else None,
        bins=bins_of(points, part.max_points),
        failures=[CommonFailure(text, count, tuple(sorted(tests[text]))) for text, count in ranked],
    )


def class_stats(parts: list[Part], rows: list[Row]) -> list[PartStats]:
    """Each part's statistics over the rows with a counted submission."""
    graded = [row for row in rows if row.counted_id is not None]
    return [
        part_stats(
            part,
            [row.part_points.get(part.id, 0.0) for row in graded],
            [row.failures.get(part.id, []) for row in graded],
        )
        for part in parts
    ]


def histogram_svg(bins: list[Bin], label: str) -> SafeString:
    """Bars of the bins' counts, drawn as SVG (classes for the colours: no inline style under the
    CSP); its accessible name says every bin in words. Every text is escaped."""
    tallest = max((b.count for b in bins), default=0) or 1
    slot = SVG_WIDTH / max(len(bins), 1)
    bars = format_html_join(
        "",
        '<rect class="bar" x="{}" y="{}" width="{}" height="{}"><title>{}: {}</title></rect>',
        (
            (
                f"{index * slot + 1:.1f}",
                f"{SVG_HEIGHT - 14 - (SVG_HEIGHT - 16) * b.count / tallest:.1f}",
                f"{max(slot - 2, 1):.1f}",
                f"{(SVG_HEIGHT - 16) * b.count / tallest:.1f}",
                b.label,
                b.count,
            )
            for index, b in enumerate(bins)
        ),
    )
    ends = format_html(
        '<text class="axis" x="0" y="{}">{}</text><text class="axis" x="{}" y="{}" '
        'text-anchor="end">{}</text>',
        SVG_HEIGHT - 2,
        bins[0].label.split(" ")[0] if bins else "0",
        SVG_WIDTH,
        SVG_HEIGHT - 2,
        bins[-1].label.split(" ")[-1] if bins else "0",
    )
    spoken = "; ".join(f"{b.label}: {b.count}" for b in bins)
    return format_html(
        '<svg class="histogram" viewBox="0 0 {} {}" width="{}" height="{}" role="img" '
        'aria-label="{}">{}<line class="axis" x1="0" y1="{}" x2="{}" y2="{}"></line>{}</svg>',
        SVG_WIDTH,
        SVG_HEIGHT,
        SVG_WIDTH,
        SVG_HEIGHT,
        f"{label}. {spoken}",
        bars,
        SVG_HEIGHT - 13,
        SVG_WIDTH,
        SVG_HEIGHT - 13,
        ends,
    )
