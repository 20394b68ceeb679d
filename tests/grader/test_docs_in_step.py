"""The tables that must change together stay together: every verdict has its style, meaning and
place in the README; every comparator the schema accepts exists and is documented; every command
and flag the README shows is one the command line has."""

from __future__ import annotations

import argparse
import re
from typing import get_args

import pytest

from grader import cli
from grader.exercise import project_root
from grader.judge.compare import COMPARATORS
from grader.judge.verdicts import VERDICT_MEANINGS, Verdict
from grader.report.reports import ERROR_VERDICTS, VERDICT_STYLES
from grader.report.summary import GROUPED_VERDICTS
from grader.suite.schema import Comparator

ROOT = project_root()
README = (ROOT / "README.md").read_text()


def _section(text: str, title: str) -> str:
    found = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert found is not None, f"no '## {title}' section"
    return found.group(1)


def test_every_verdict_has_a_meaning_and_a_style() -> None:
    assert set(VERDICT_MEANINGS) == set(Verdict)
    assert set(VERDICT_STYLES) == set(Verdict)


def test_the_grouping_tables_name_only_verdicts() -> None:
    assert set(ERROR_VERDICTS) <= set(Verdict) - {Verdict.AC, Verdict.WA}
    assert set(GROUPED_VERDICTS) <= {verdict.value for verdict in Verdict} - {"AC"}


def test_the_readme_explains_every_verdict() -> None:
    explained = set(re.findall(r"`([A-Z]{2,3})`", _section(README, "Verdicts")))
    assert explained == {verdict.value for verdict in Verdict}


def test_every_comparator_of_the_schema_exists_and_is_documented() -> None:
    assert set(COMPARATORS) == set(get_args(Comparator))
    suites = (ROOT / "docs" / "suites.md").read_text()
    for name in COMPARATORS:
        assert f"`{name}`" in suites, f"docs/suites.md does not explain the comparator {name}"


def _readme_commands() -> list[tuple[str, set[str]]]:
    """(command, flags) of each row of the README's command table."""
    rows = re.findall(r"^\| `grader (\w+)([^`]*)` \|", _section(README, "Commands"), re.MULTILINE)
    assert rows, "the README's command table has no row"
    return [(name, set(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", rest))) for name, rest in rows]


def _options(command: str) -> set[str]:
    action = next(a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {flag for option in action.choices[command]._actions for flag in option.option_strings}


@pytest.mark.parametrize(
    ("command", "flags"), _readme_commands(), ids=[name for name, _flags in _readme_commands()]
)
def test_each_command_of_the_readme_has_the_flags_it_shows(command: str, flags: set[str]) -> None:
    assert command in cli.COMMANDS
    assert flags <= _options(command), f"grader {command} --help lacks {flags - _options(command)}"


def test_the_readme_names_every_command() -> None:
    assert {name for name, _flags in _readme_commands()} == set(cli.COMMANDS)
