"""The summary of a batch: score distribution, pass rates, outliers, identical wrong outputs."""

from __future__ import annotations

import html
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader.inert import html_text, inert_text

HISTOGRAM_BINS = 10


@dataclass
class Summary:
    students: int
    max_score: float
    histogram: list[tuple[str, int]]
    pass_rates: list[tuple[str, float]]
    slowest: list[tuple[str, float]]
    hungriest: list[tuple[str, float]]
    wrong_groups: list[tuple[str, list[str], str]]  # test, students, the shared failure text
    mean: float


def summarize(results: dict[str, dict[str, Any]], top: int = 5) -> Summary:
    max_score = max((r["extra_data"]["max_score"] for r in results.values()), default=0.0)
    scores = [r["score"] for r in results.values()]
    width = max_score / HISTOGRAM_BINS if max_score else 1.0
    counts = [0] * HISTOGRAM_BINS
    for score in scores:
        counts[min(int(score / width), HISTOGRAM_BINS - 1)] += 1
    histogram = [(f"{i * width:g}-{(i + 1) * width:g}", count) for i, count in enumerate(counts)]
    passes: dict[str, list[bool]] = defaultdict(list)
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    wall: dict[str, float] = {}
    peak: dict[str, float] = {}
    for student, data in results.items():
        wall[student] = sum(t.get("extra_data", {}).get("wall_s", 0.0) for t in data["tests"])
        peak[student] = max((t.get("extra_data", {}).get("peak_mb", 0.0) for t in data["tests"]),
                            default=0.0)
        for test in data["tests"]:
            passes[test["name"]].append(test["status"] == "passed")
            transcript = test.get("extra_data", {}).get("kind") == "transcript"
            if transcript and test["status"] != "passed" and test.get("output"):
                groups[(test["name"], test["output"])].append(student)
    pass_rates = [(name, sum(flags) / len(flags)) for name, flags in passes.items()]
    wrong_groups = sorted(((name, sorted(members), text) for (name, text), members in groups.items()
                           if len(members) > 1), key=lambda g: (-len(g[1]), g[0]))
    return Summary(
        students=len(results), max_score=max_score, histogram=histogram, pass_rates=pass_rates,
        slowest=sorted(wall.items(), key=lambda item: -item[1])[:top],
        hungriest=sorted(peak.items(), key=lambda item: -item[1])[:top],
        wrong_groups=wrong_groups, mean=sum(scores) / len(scores) if scores else 0.0)


def print_summary(summary: Summary, console: Console) -> None:
    """The summary on the terminal; names and outputs as Text, never read as markup."""
    console.rule(f"{summary.students} submissions, mean score {summary.mean:.2f} / "
                 f"{summary.max_score:g}")
    peak = max((count for _, count in summary.histogram), default=0) or 1
    for label, count in summary.histogram:
        console.print(f"{label:>12} | {'#' * round(40 * count / peak):<40} {count}")
    table = Table("test", "pass rate")
    for name, rate in summary.pass_rates:
        table.add_row(Text(inert_text(name)), f"{rate:.0%}")
    console.print(table)
    console.print(Text(inert_text(
        "slowest: " + ", ".join(f"{s} ({v:.2f} s)" for s, v in summary.slowest))))
    console.print(Text(inert_text(
        "most memory: " + ", ".join(f"{s} ({v:.1f} MB)" for s, v in summary.hungriest))))
    for name, members, text in summary.wrong_groups:
        console.rule(Text(inert_text(f"{name}: the same wrong output from {len(members)} submissions")),
                     align="left")
        console.print(Text(inert_text(", ".join(members))))
        console.print(Text(inert_text(text)))


def _svg_histogram(histogram: list[tuple[str, int]]) -> str:
    bar_width, height, gap = 48, 160, 8
    peak = max((count for _, count in histogram), default=0) or 1
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{len(histogram) * (bar_width + gap)}"'
             f' height="{height + 40}" role="img" aria-label="score distribution">']
    for index, (label, count) in enumerate(histogram):
        bar = round(height * count / peak)
        x = index * (bar_width + gap)
        parts.append(f'<rect x="{x}" y="{height - bar + 10}" width="{bar_width}" height="{bar}" '
                     f'fill="#4c78a8"><title>{count} in {html.escape(label)}</title></rect>')
        parts.append(f'<text x="{x + bar_width / 2}" y="{height - bar + 5}" font-size="11" '
                     f'text-anchor="middle">{count}</text>')
        parts.append(f'<text x="{x + bar_width / 2}" y="{height + 28}" font-size="10" '
                     f'text-anchor="middle">{html.escape(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def summary_html(exercise: str, summary: Summary) -> str:
    """The summary as one HTML page; every name and output passes html_text."""
    rows = "".join(f"<tr><td>{html_text(n)}</td><td>{r:.0%}</td></tr>"
                   for n, r in summary.pass_rates)
    slow = "".join(f"<li>{html_text(s)}: {v:.2f} s</li>" for s, v in summary.slowest)
    hungry = "".join(f"<li>{html_text(s)}: {v:.1f} MB</li>" for s, v in summary.hungriest)
    groups = "".join(
        f"<h3>{html_text(name)}: {len(members)} submissions</h3>"
        f"<p>{html_text(', '.join(members))}</p><pre>{html_text(text)}</pre>"
        for name, members, text in summary.wrong_groups) or "<p>None.</p>"
    title = html_text(exercise)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}: batch summary</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}pre{{background:#f4f4f4;
padding:1em;overflow:auto}}td,th{{padding:.2em 1em;text-align:left}}</style></head><body>
<h1>{title}: {summary.students} submissions</h1>
<p>Mean score {summary.mean:.2f} of {summary.max_score:g}.</p>
<h2>Score distribution</h2>{_svg_histogram(summary.histogram)}
<h2>Pass rate per test</h2><table><tr><th>test</th><th>pass rate</th></tr>{rows}</table>
<h2>Slowest submissions</h2><ul>{slow}</ul>
<h2>Most memory</h2><ul>{hungry}</ul>
<h2>Identical wrong outputs</h2>{groups}
</body></html>
"""
