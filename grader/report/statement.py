"""An exercise's statement, `exercises/NAME/README.md`: Markdown shown as sanitised HTML (the
handout's statement.html, a page of the service) or on the terminal (`grader statement`).

Markdown is parsed with raw HTML turned off, so a `<script>` in it is text; links and images may
lead only to http:, https: and mailto: addresses or relative ones; the HTML produced then passes
an allow-list sanitiser (nh3) as a second guard. Control and bidi characters are made inert first.
"""

from __future__ import annotations

import re
from pathlib import Path

import nh3
from markdown_it import MarkdownIt
from rich.console import Console
from rich.markdown import Markdown

from grader.exercise import Exercise
from grader.inert import html_text, inert_text

STATEMENT_NAME = "README.md"
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
ALLOWED_TAGS = frozenset(
    {
        "a",
        "blockquote",
        "br",
        "code",
        "em",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "li",
        "ol",
        "p",
        "pre",
        "strong",
        "table",
        "tbody",
        "td",
        "th",
        "thead",
        "tr",
        "ul",
        "s",
    }
)
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "code": {"class"}, "ol": {"start"}}
# Everything before the first / ? or #: where a URL's scheme is, if it has one.
_LEADING_SEGMENT = re.compile(r"^[^/?#]*")


class StatementMissing(FileNotFoundError):
    """An exercise without a README.md statement."""


def safe_address(url: str) -> bool:
    """A link or image address that can lead only to a web page, a mail or this site.

    >>> [safe_address(u) for u in ("https://a.org", "MAILTO:x@y", "grid.py", "#top", "a/b:c")]
    [True, True, True, True, True]
    >>> [safe_address(u) for u in ("javascript:alert(1)", "data:,x", "%6Aavascript:x", "vbscript:")]
    [False, False, False, False]
    """
    leading = _LEADING_SEGMENT.match(url.strip())
    segment = leading.group(0) if leading else ""
    if ":" not in segment:
        return True
    return segment.split(":", 1)[0].lower() in SAFE_SCHEMES


def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    parser.enable("table").enable("strikethrough")
    parser.validateLink = safe_address  # type: ignore[method-assign]
    return parser


_PARSER = _parser()


def statement_html(markdown: str) -> str:
    """The statement as an HTML fragment that runs nothing (see the module's docstring)."""
    rendered = _PARSER.render(inert_text(markdown))
    return nh3.clean(
        rendered,
        tags=set(ALLOWED_TAGS),
        attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()},
        url_schemes=set(SAFE_SCHEMES),
        link_rel="noopener noreferrer",
        strip_comments=True,
    )


STATEMENT_STYLE = (
    "body{font-family:sans-serif;max-width:50em;margin:2em auto;line-height:1.45}"
    "pre{background:#f4f4f4;padding:.8em;overflow:auto}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .6em}"
)


def statement_page(title: str, markdown: str) -> str:
    """The statement as a whole HTML page (the handout's statement.html)."""
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html_text(title)}</title><style>{STATEMENT_STYLE}</style></head><body>\n"
        f"{statement_html(markdown)}</body></html>\n"
    )


def print_statement(markdown: str, console: Console) -> None:
    """The statement on the terminal: addresses printed as text, never as live hyperlinks."""
    console.print(Markdown(inert_text(markdown), hyperlinks=False))


def statement_file(exercise: Exercise) -> Path:
    return exercise.stubs / STATEMENT_NAME


def exercise_statement_html(exercise: Exercise) -> str | None:
    """The exercise's statement as a sanitised HTML fragment, None when it has none (for a page
    that embeds it, such as the service's assignment page)."""
    try:
        return statement_html(read_statement(exercise))
    except StatementMissing:
        return None


def read_statement(exercise: Exercise) -> str:
    """The exercise's statement (Markdown); StatementMissing when it has none."""
    path = statement_file(exercise)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError as error:
        raise StatementMissing(f"{path}: the exercise has no statement") from error
