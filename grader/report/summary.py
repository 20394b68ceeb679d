"""The summary of a batch: every student's row, score distribution, pass rates, outliers and
identical wrong outputs; on the terminal and as summary.html."""

from __future__ import annotations

import html
import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader.inert import html_text, inert_text
from grader.report.gradebook import Attempt
from grader.report.headline import SEE_ABOVE, PointsSplit

MAX_BINS = 20
FEEDBACK_NAME = "feedback.html"  # the student's page (hidden tests: verdict and points only)
FEEDBACK_INSTRUCTOR_NAME = "feedback-instructor.html"  # beside it: every test in full
# Only a wrong answer has an output of the student's own worth comparing between students.
GROUPED_VERDICTS = frozenset({"WA"})


@dataclass
class Summary:
    students: int
    max_score: float
    tests: list[str]
    attempts: list[Attempt]
    histogram: list[tuple[str, int]]
    pass_rates: list[tuple[str, float]]
    slowest: list[tuple[str, float]]
    hungriest: list[tuple[str, float]]  # peak resident size of one test, MB
    wrong_groups: list[tuple[str, list[str], str]]  # test, students, the shared failure text
    mean: float


def histogram(scores: list[float], max_score: float) -> list[tuple[str, int]]:
    """Integer score bins, at most MAX_BINS of them, labelled by the scores they hold.

    >>> histogram([0, 2, 2, 3], 3)
    [('0', 1), ('1', 0), ('2', 2), ('3', 1)]
    >>> histogram([0, 19, 40], 40)[:2]
    [('0-2', 1), ('3-5', 0)]
    """
    top = math.floor(max_score)
    width = max(1, math.ceil((top + 1) / MAX_BINS))
    counts = [0] * (top // width + 1)
    for score in scores:
        counts[min(int(score // width), len(counts) - 1)] += 1
    labels = [
        str(low) if width == 1 else f"{low}-{min(low + width - 1, top)}" for low in range(0, top + 1, width)
    ]
    return list(zip(labels, counts, strict=True))


def summarize(attempts: dict[str, Attempt], tests: list[str], max_score: float, top: int = 5) -> Summary:
    ordered = [attempts[student] for student in sorted(attempts)]
    scores = [attempt.score for attempt in ordered]
    passes: dict[str, list[bool]] = defaultdict(list)
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    wall: dict[str, float] = {}
    resident: dict[str, float] = {}
    for attempt in ordered:
        wall[attempt.student] = sum(row.wall_s for row in attempt.tests)
        resident[attempt.student] = max((row.resident_mb for row in attempt.tests), default=0.0)
        for row in attempt.tests:
            passes[row.test].append(row.verdict == "AC")
            if row.verdict in GROUPED_VERDICTS and row.output:
                groups[(row.test, row.output)].append(attempt.student)
    pass_rates = [(name, sum(passes[name]) / len(passes[name])) for name in tests if passes[name]]
    wrong_groups = sorted(
        ((name, sorted(members), text) for (name, text), members in groups.items() if len(members) > 1),
        key=lambda g: (-len(g[1]), g[0]),
    )
    measured = [(student, mb) for student, mb in resident.items() if mb > 0]
    return Summary(
        students=len(ordered),
        max_score=max_score,
        tests=tests,
        attempts=ordered,
        histogram=histogram(scores, max_score),
        pass_rates=pass_rates,
        slowest=sorted(wall.items(), key=lambda item: -item[1])[:top],
        hungriest=sorted(measured, key=lambda item: -item[1])[:top],
        wrong_groups=wrong_groups,
        mean=sum(scores) / len(scores) if scores else 0.0,
    )


def print_summary(summary: Summary, console: Console) -> None:
    """The summary on the terminal; names and outputs as Text, never read as markup."""
    console.rule(f"{summary.students} submissions, mean score {summary.mean:.2f} / {summary.max_score:g}")
    peak = max((count for _, count in summary.histogram), default=0) or 1
    for label, count in summary.histogram:
        console.print(f"{label:>7} | {'#' * round(40 * count / peak):<40} {count}")
    table = Table("test", "pass rate")
    table.columns[0].overflow = "fold"
    for name, rate in summary.pass_rates:
        table.add_row(Text(inert_text(name)), f"{rate:.0%}")
    console.print(table)
    console.print(Text(inert_text("slowest: " + ", ".join(f"{s} ({v:.2f} s)" for s, v in summary.slowest))))
    console.print(
        Text(inert_text("most memory: " + ", ".join(f"{s} ({v:.1f} MB)" for s, v in summary.hungriest)))
    )
    for name, members, text in summary.wrong_groups:
        console.rule(
            Text(inert_text(f"{name}: the same wrong output from {len(members)} submissions")), align="left"
        )
        console.print(Text(inert_text(", ".join(members))))
        console.print(Text(inert_text(text)))


def svg_histogram(bins: list[tuple[str, int]]) -> str:
    """Bars with their count above (room kept for the tallest) and their scores below."""
    bar_width, height, gap, top = 40, 160, 8, 20
    peak = max((count for _, count in bins), default=0) or 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{len(bins) * (bar_width + gap)}" '
        f'height="{top + height + 30}" role="img" aria-label="score distribution">'
    ]
    for index, (label, count) in enumerate(bins):
        bar = round(height * count / peak)
        x = index * (bar_width + gap)
        base = top + height
        parts.append(
            f'<rect x="{x}" y="{base - bar}" width="{bar_width}" height="{bar}" '
            f'fill="#4c78a8"><title>{count} with a score of {html.escape(label)}'
            f"</title></rect>"
        )
        parts.append(
            f'<text x="{x + bar_width / 2}" y="{base - bar - 5}" font-size="11" '
            f'text-anchor="middle">{count}</text>'
        )
        parts.append(
            f'<text x="{x + bar_width / 2}" y="{base + 18}" font-size="11" '
            f'text-anchor="middle">{html.escape(label)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def feedback_link(student: str) -> str:
    """The relative address of a student's feedback page as the summary (the instructor's) links
    it: the id (inert, as its folder is named) URL-quoted, then escaped.

    >>> feedback_link("a b&<c>")
    'a%20b%26%3Cc%3E/feedback-instructor.html'
    """
    return html.escape(f"{quote(inert_text(student), safe='')}/{FEEDBACK_INSTRUCTOR_NAME}")


def student_table(summary: Summary) -> str:
    heads = ["student", "status", "score", *summary.tests]
    head = "".join(
        f'<th data-column="{i}" title="sort">{html_text(name)}</th>' for i, name in enumerate(heads)
    )
    rows = []
    for attempt in summary.attempts:
        verdicts = {row.test: row.verdict for row in attempt.tests}
        cells = [
            f'<td><a href="{feedback_link(attempt.student)}">{html_text(attempt.student)}</a></td>',
            f"<td>{html_text(attempt.status)}</td>",
            f'<td data-value="{attempt.score:g}">{attempt.score:g}</td>',
        ]
        cells += [verdict_cell(verdicts.get(name, "none"), verdicts.get(name, "-")) for name in summary.tests]
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return (
        f'<table id="students" class="sortable"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


# The class table's sorting script, shared with the service's pages (which serve the file).
SORT_SCRIPT = (Path(__file__).resolve().parent / "sortable.js").read_text(encoding="utf-8")
# The verdicts' colours, the one declaration of them for every page (the service serves this file).
PAGE_STYLE = (
    "body{font-family:sans-serif;max-width:80em;margin:2em auto}pre{background:#f4f4f4;"
    "padding:1em;overflow:auto}td,th{padding:.2em .6em;text-align:left}"
)  # the class pages' layout (the batch summary, the tournament), before VERDICT_STYLE
VERDICT_STYLE = (Path(__file__).resolve().parent / "verdicts.css").read_text(encoding="utf-8").strip()


def verdict_cell(verdict: str, text: str) -> str:
    """A table cell showing a verdict as its coloured badge (verdicts.css)."""
    return f'<td><span class="verdict v-{html_text(verdict)}">{html_text(text)}</span></td>'


def summary_html(exercise: str, summary: Summary) -> str:
    """The summary as one HTML page; every name and output passes html_text."""
    rows = "".join(f"<tr><td>{html_text(n)}</td><td>{r:.0%}</td></tr>" for n, r in summary.pass_rates)
    slow = "".join(f"<li>{html_text(s)}: {v:.2f} s</li>" for s, v in summary.slowest)
    hungry = "".join(f"<li>{html_text(s)}: {v:.1f} MB</li>" for s, v in summary.hungriest)
    groups = (
        "".join(
            f"<h3>{html_text(name)}: {len(members)} submissions</h3>"
            f"<p>{html_text(', '.join(members))}</p><pre>{html_text(text)}</pre>"
            for name, members, text in summary.wrong_groups
        )
        or "<p>None.</p>"
    )
    title = html_text(exercise)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}: batch summary</title>
<style>body{{font-family:sans-serif;max-width:80em;margin:2em auto}}pre{{background:#f4f4f4;
padding:1em;overflow:auto}}td,th{{padding:.2em .6em;text-align:left}}th{{cursor:pointer}}
{VERDICT_STYLE}</style></head><body>
<h1>{title}: {summary.students} submissions</h1>
<p>Mean score {summary.mean:.2f} of {summary.max_score:g}.</p>
<h2>Students</h2><p>Click a column to sort; a name opens that student's feedback (the
instructor's page; the student's own, with hidden tests' texts withheld, is feedback.html).</p>
{student_table(summary)}
<h2>Score distribution</h2>{svg_histogram(summary.histogram)}
<h2>Pass rate per test</h2><table><tr><th>test</th><th>pass rate</th></tr>{rows}</table>
<h2>Slowest submissions</h2><ul>{slow}</ul>
<h2>Most memory (peak resident size of one test)</h2><ul>{hungry}</ul>
<h2>Identical wrong outputs</h2>{groups}
<script>{SORT_SCRIPT}</script>
</body></html>
"""


def question_points(attempt: Attempt) -> list[tuple[str, float, float, list[str]]]:
    """Each question's points, most and failed tests (with their verdicts), in the order the
    tests name them.

    >>> from grader.report.gradebook import TestRow
    >>> rows = [TestRow("a", "call", "AC", 2, 2, 0, 0, 0, 0, "", "board"),
    ...         TestRow("b", "call", "WA", 0, 1, 0, 0, 0, 0, "", "board")]
    >>> question_points(Attempt(1, "s", {}, "graded", 2, 3, "", "", rows))
    [('board', 2.0, 3.0, ['b (WA)'])]
    """
    found: dict[str, tuple[float, float, list[str]]] = {}
    for row in attempt.tests:
        if not row.question:
            continue
        points, most, lost = found.get(row.question, (0.0, 0.0, []))
        failed = [f"{row.test} ({row.verdict})"] if row.verdict != "AC" else []
        found[row.question] = (points + row.points, most + row.max_points, lost + failed)
    return [(question, *values) for question, values in found.items()]


def questions_html(attempt: Attempt) -> str:
    """The per-question table of a feedback page (empty when the suite declares no questions)."""

    def named(question: str) -> str:
        title = attempt.question_titles.get(question, question)
        return question if title == question else f"{question}: {title}"

    rows = "".join(
        f"<tr><td>{html_text(named(question))}</td><td>{points:g}/{most:g}</td>"
        f"<td>{html_text(', '.join(lost))}</td></tr>"
        for question, points, most, lost in question_points(attempt)
    )
    if not rows:
        return ""
    return (
        "\n<h2>Points per question</h2>\n<table><tr><th>question</th><th>points</th>"
        f"<th>failed tests</th></tr>{rows}</table>"
    )


def attempt_points(attempt: Attempt, hidden: frozenset[str]) -> PointsSplit:
    visible = [row for row in attempt.tests if row.test not in hidden]
    secret = [row for row in attempt.tests if row.test in hidden]
    return PointsSplit(
        visible=sum(row.points for row in visible),
        visible_max=sum(row.max_points for row in visible),
        hidden=sum(row.points for row in secret),
        hidden_max=sum(row.max_points for row in secret),
        hidden_not_run=attempt.hidden_points_not_run,
    )


def feedback_html(
    exercise: str, attempt: Attempt, hidden: frozenset[str] = frozenset(), instructor: bool = False
) -> str:
    """One student's feedback page: status, points per question first, then every test's
    verdict and failure text.

    The student's page (the default) shows the tests named in `hidden` by name, verdict and
    points only: never their output, which can hold their cases and expected values. The
    instructor's page (`instructor`, written beside it as FEEDBACK_INSTRUCTOR_NAME) shows every
    test in full and links back to the summary. A submission that does not import says why once,
    in the notes at the top; its tests' texts only point there.
    """

    def secret(test: str) -> bool:
        return test in hidden and not instructor

    title = html_text(f"{exercise}: {attempt.student}")
    rows = "".join(
        f"<tr><td>{html_text(row.test)}{' (hidden)' if row.test in hidden else ''}</td>"
        f"{verdict_cell(row.verdict, SEE_ABOVE if row.output == SEE_ABOVE else row.verdict)}"
        f"<td>{row.points:g}/{row.max_points:g}</td>"
        f"<td>{row.cpu_s:.3f}</td><td>{row.resident_mb:.1f}</td></tr>"
        for row in attempt.tests
    )
    failures = "".join(
        f"<h3>{html_text(row.test)}: {html_text(row.verdict)}</h3><pre>{html_text(row.output)}</pre>"
        for row in attempt.tests
        if row.output and row.output != SEE_ABOVE and not secret(row.test)
    )
    notes = f"<pre>{html_text(attempt.notes)}</pre>" if attempt.notes else ""
    withheld = bool(hidden) and not instructor
    points = html_text(attempt_points(attempt, hidden).statement(hidden_texts_withheld=withheld))
    questions = questions_html(attempt)
    if instructor:
        top = (
            '<p><a href="../summary.html">back to the summary</a> · the instructor\'s page: '
            f'every test in full (the student\'s page is <a href="{FEEDBACK_NAME}">'
            f"{FEEDBACK_NAME}</a>)</p>"
        )
    else:
        withheld_texts = sum(
            1 for row in attempt.tests if secret(row.test) and row.output and row.output != SEE_ABOVE
        )
        top = (
            f"<p>Hidden tests show their verdict and points only ({withheld_texts} failure "
            f"text(s) withheld).</p>"
            if hidden
            else ""
        )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 .5em}}pre{{background:#f4f4f4;
padding:1em;overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere}}
td,th{{padding:.2em .6em;text-align:left}}
{VERDICT_STYLE}</style></head><body>
{top}
<h1>{title}</h1>
<p>Status {html_text(attempt.status)}; score {attempt.score:g} of {attempt.max_score:g};
graded {html_text(attempt.graded_at)}.</p>{notes}
<p>Points: {points}.</p>{questions}
<h2>Tests</h2>
<table><tr><th>test</th><th>verdict</th><th>points</th><th>cpu s</th><th>peak resident MB</th></tr>
{rows}</table>
{failures}
<p>Sandbox: {html_text(attempt.boundary or "not recorded")}.</p>
</body></html>
"""
