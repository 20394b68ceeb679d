"""Where the project's folders are."""

from __future__ import annotations

import os
from pathlib import Path


def project_root() -> Path:
    """The checkout holding exercises/, reference/, suites/, fixtures/ ($GRADER_ROOT overrides)."""
    override = os.environ.get("GRADER_ROOT")
    if override:
        return Path(override).resolve()
    return Path(__file__).resolve().parent.parent


def exercise_dir(name: str) -> Path:
    return project_root() / "exercises" / name


def reference_dir(name: str) -> Path:
    return project_root() / "reference" / name


def suites_dir() -> Path:
    return project_root() / "suites"


def suite_path(name: str) -> Path:
    return suites_dir() / f"{name}.yaml"


def fixtures_dir(name: str) -> Path:
    return project_root() / "fixtures" / name
