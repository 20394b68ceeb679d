"""An exercise's statement (exercises/NAME/README.md) rendered as HTML holds no live markup: no raw
HTML, no script, no link or image to a javascript:, vbscript: or data: address."""

from __future__ import annotations

import io
import re
from html.parser import HTMLParser

import pytest
from rich.console import Console

from grader.exercise import Exercise
from grader.report.statement import (
    exercise_statement_html,
    print_statement,
    statement_html,
    statement_page,
)

HOSTILE_LINKS = [
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](java\tscript:alert(1))",
    "[click](java&#x09;script:alert(1))",
    "[click](&#106;avascript:alert(1))",
    "[click](%6Aavascript:alert(1))",
    "[click]( javascript:alert(1) )",
    "<javascript:alert(1)>",
    "[click](vbscript:msgbox(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![pic](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    "![pic](javascript:alert(1))",
    "[click][ref]\n\n[ref]: javascript:alert(1)",
    "[click](file:///etc/passwd)",
]


@pytest.mark.parametrize("markdown", HOSTILE_LINKS)
def test_no_link_or_image_leads_to_a_script_or_data(markdown: str) -> None:
    html = statement_html(markdown).lower()
    for address in re.findall(r'(?:href|src)="([^"]*)"', html):
        assert not address.startswith(("javascript", "vbscript", "data", "file", "%6a")), html
        assert "script:" not in address, html
    assert "javascript:alert(1)</a>" not in html


class Elements(HTMLParser):
    """Every element of an HTML text, with its attributes, as a browser would read them."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))


@pytest.mark.parametrize(
    "markdown",
    [
        "<script>alert(1)</script>",
        "Text <script>alert(1)</script> inline",
        "<img src=x onerror=alert(1)>",
        '<a href="javascript:alert(1)">x</a>',
        "<iframe src=https://example.org></iframe>",
        "<style>body{display:none}</style>",
        "<!-- comment --><div onclick=alert(1)>x</div>",
        '[x](https://example.org "title" onmouseover="alert(1)")',
        '[x](https://example.org "a\\" onmouseover=\\"alert(1)")',
        "```\n</code></pre><script>alert(1)</script>\n```",
        "| a |\n|---|\n| <script>alert(1)</script> |",
    ],
)
def test_raw_html_is_shown_as_text_never_run(markdown: str) -> None:
    html = statement_html(markdown)
    elements = Elements(html).found
    assert {tag for tag, _ in elements} <= {
        "p",
        "a",
        "pre",
        "code",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
    }, html
    assert all(set(attrs) <= {"href", "title", "rel"} for _, attrs in elements), html
    assert "<script" not in html.lower() and "<img" not in html.lower()


def test_control_characters_stay_inert_text() -> None:
    html = statement_html("Board \x1b[2J\u202egone\r")
    assert "\x1b" not in html and "\u202e" not in html and "\r" not in html
    assert "\\x1b[2J" in html


def test_a_statement_keeps_its_tables_code_and_safe_links() -> None:
    html = statement_html(
        "# Title\n\nSome *text* and `code`.\n\n| question | points |\n|---|--:|\n| a | 1 |\n\n"
        "```\n|   | X |\n```\n\n[web](https://example.org/a?b=1&c=2) [mail](mailto:a@b.org) "
        "[here](#title) [file](grid.py)\n"
    )
    assert "<h1>Title</h1>" in html and "<em>text</em>" in html and "<code>code</code>" in html
    assert "<table>" in html and "<th>question</th>" in html and "<td>1</td>" in html
    assert "<pre><code>|   | X |\n</code></pre>" in html
    assert 'href="https://example.org/a?b=1&amp;c=2"' in html
    assert 'href="mailto:a@b.org"' in html and 'href="#title"' in html
    assert 'href="grid.py"' in html
    assert 'rel="noopener noreferrer"' in html


def test_a_statement_page_escapes_its_title() -> None:
    page = statement_page("<b>grid</b>\x1b", "text")
    assert "<title>&lt;b&gt;grid&lt;/b&gt;\\x1b</title>" in page
    assert page.startswith("<!doctype html>") and "<p>text</p>" in page


def test_the_terminal_shows_the_markdown_without_escape_sequences() -> None:
    out = io.StringIO()
    print_statement(
        "# Grid\n\nA board \x1b[2J here.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", Console(file=out, width=80)
    )
    text = out.getvalue()
    assert "Grid" in text and "\x1b" not in text and "\\x1b[2J" in text and "1" in text


def test_a_page_can_embed_an_exercises_statement_or_learn_it_has_none() -> None:
    fragment = exercise_statement_html(Exercise.named("bitgrid"))
    assert fragment is not None and "<h2>Question 1: position</h2>" in fragment
    assert exercise_statement_html(Exercise.named("no-such-exercise")) is None
