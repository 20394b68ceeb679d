"""A suite's `normalize:` rules applied to a transcript, line by line."""

from __future__ import annotations

import re

from grader.suite.schema import Normalize


def normalized_lines(text: str, rules: Normalize) -> list[str]:
    """The lines of a transcript after substitutions, masks and the whitespace policy."""
    masks = [re.compile(pattern) for pattern in rules.mask]
    substitutions = [(re.compile(pattern), replacement) for pattern, replacement in rules.substitute]
    lines = text.split("\n")
    out: list[str] = []
    for line in lines:
        for pattern, replacement in substitutions:
            line = pattern.sub(replacement, line)
        for mask in masks:
            if mask.search(line):
                line = f"<line matching {mask.pattern}>"
                break
        if rules.trailing_whitespace == "strip":
            line = line.rstrip()
        out.append(line)
    if rules.trailing_whitespace == "strip":
        while out and not out[-1]:
            out.pop()
    return out
