"""The `>>>` examples in the grader's own docstrings hold."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import grader

MODULES = sorted(info.name for info in pkgutil.walk_packages(grader.__path__, "grader.")
                 if not info.name.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_of_a_grader_module_hold(name: str) -> None:
    if name.startswith("grader.service."):  # Django's models need configured settings
        from grader.service.setup import configure_without_course

        configure_without_course()
    outcome = doctest.testmod(importlib.import_module(name))
    assert outcome.failed == 0
