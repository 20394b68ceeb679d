r"""Showing a submission's text as inert data: in a terminal, HTML, XML, CSV and JSON.

Whatever a submission prints, raises or returns (and its file or folder name) may hold control
characters that rewrite a terminal, bidirectional overrides that reorder what a reader sees,
surrogates that no UTF-8 file can hold, or characters that XML 1.0 forbids. These functions turn
them into visible, harmless text; plain text passes through unchanged.

>>> print(inert_text("ok\x1b[2J\r\u202egone\ud800"))
ok\x1b[2J\r\u202egone�
"""

from __future__ import annotations

import html
import re

REPLACEMENT_CHARACTER = "\ufffd"

# C0 controls but tab and newline (carriage return included: it rewrites the line), DEL, C1.
_CONTROL_CODES = [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0)]
# Embeddings, overrides and isolates: the characters of "Trojan Source" (CVE-2021-42574).
_BIDI_CONTROLS = [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_SURROGATES = range(0xD800, 0xE000)
# Characters XML 1.0 forbids that inert_text leaves alone.
_XML_NONCHARACTERS = [0xFFFE, 0xFFFF]

_INERT_TABLE: dict[int, str] = {
    **{code: f"\\x{code:02x}" for code in _CONTROL_CODES},
    **{code: f"\\u{code:04x}" for code in _BIDI_CONTROLS},
    **dict.fromkeys(_SURROGATES, REPLACEMENT_CHARACTER),
    ord("\r"): "\\r",
}
_NAME_TABLE: dict[int, str] = {**_INERT_TABLE, ord("\n"): "\\n", ord("\t"): "\\t"}
_XML_TABLE: dict[int, str] = {**_INERT_TABLE, **dict.fromkeys(_XML_NONCHARACTERS, REPLACEMENT_CHARACTER)}


def _pattern(codes: dict[int, str]) -> re.Pattern[str]:
    """A character class matching exactly the keys of a translation table."""
    return re.compile("[" + "".join(re.escape(chr(code)) for code in sorted(codes)) + "]")


# Searching first keeps clean text (the usual case) fast: translate is slow on non-ASCII text.
_INERT_FOUND = _pattern(_INERT_TABLE)
_XML_FOUND = _pattern(_XML_TABLE)
_NAME_FOUND = _pattern(_NAME_TABLE)

# Spreadsheets read a cell starting with one of these as a formula (OWASP's CSV injection list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def inert_text(text: str) -> str:
    r"""Control and bidi characters escaped as visible text, surrogates replaced by U+FFFD.

    >>> inert_text("plain text,\ttabs and\nnewlines stay")
    'plain text,\ttabs and\nnewlines stay'
    >>> print(inert_text("\x00\x7f\x9b\u2066"))
    \x00\x7f\x9b\u2066
    >>> inert_text("\ud83d") == "\ufffd"
    True
    >>> inert_text(inert_text("\x1b")) == inert_text("\x1b")
    True
    """
    return text.translate(_INERT_TABLE) if _INERT_FOUND.search(text) else text


def inert_name(text: str) -> str:
    r"""inert_text for a name shown on one line: newline and tab are escaped as well.

    A file name may hold any character but '/' and NUL; in a list of names a newline would start
    a line of the student's choosing (a forged score above the real one).

    >>> print(inert_name("notes\nScore: 10 / 10\t\x1b.txt"))
    notes\nScore: 10 / 10\t\x1b.txt
    >>> inert_name("grid.py")
    'grid.py'
    """
    return text.translate(_NAME_TABLE) if _NAME_FOUND.search(text) else text


def xml_safe(text: str) -> str:
    r"""inert_text, and U+FFFD for the rest of what XML 1.0 forbids (U+FFFE, U+FFFF).

    >>> print(xml_safe("\x00\x1b\uffff"))
    \x00\x1b�
    """
    return text.translate(_XML_TABLE) if _XML_FOUND.search(text) else text


def html_text(text: str) -> str:
    r"""inert_text, then escaped for HTML text and attribute values.

    >>> print(html_text('<b class="x">\x1b</b>'))
    &lt;b class=&quot;x&quot;&gt;\x1b&lt;/b&gt;
    """
    return html.escape(inert_text(text))


def csv_cell(text: str) -> str:
    r"""inert_text, with a quote before a start that a spreadsheet would run as a formula.

    >>> [csv_cell(name) for name in ("=HYPERLINK(1)", "+1", "-2+3", "@SUM(A1)", "\tx", "ada")]
    ["'=HYPERLINK(1)", "'+1", "'-2+3", "'@SUM(A1)", "'\tx", 'ada']
    >>> csv_cell("\r=1")
    '\\r=1'
    """
    cell = inert_text(text)
    return "'" + cell if cell.startswith(FORMULA_STARTS) else cell
