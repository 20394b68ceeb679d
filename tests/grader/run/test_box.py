"""The trust boundary is one package: the box imports only the standard library and itself, the
parent imports nothing of it but its protocol, and an import across the line breaks a contract.

grader/run/box/__init__.py states these rules; pyproject.toml ([tool.importlinter]) states them as
contracts, which tests/grader/test_architecture.py runs.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.exercise import project_root
from grader.run.sandbox import BOX, copy_box

PARENT_DOOR = "grader.run.box.protocol"  # the one module of the box the parent may import
BOX_MODULES = frozenset(path.stem for path in BOX.glob("*.py")) - {"__init__"}


def _imports(tree: ast.AST) -> list[tuple[int, str, list[str]]]:
    """(line, module, names) of every import: `import a.b` is ("a.b", []), relative ones "."."""
    found: list[tuple[int, str, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            found.append((node.lineno, module, [alias.name for alias in node.names]))
    return found


def box_problems(source: str, name: str) -> list[str]:
    """Imports of a box module that reach beyond the standard library and the box itself."""
    problems = []
    for line, module, names in _imports(ast.parse(source)):
        top = module.split(".")[0]
        if module == "grader.run.box":
            ok = bool(names) and set(names) <= BOX_MODULES
        elif module.startswith("grader.run.box."):
            ok = module.split(".")[3] in BOX_MODULES
        else:
            ok = bool(top) and (top in sys.stdlib_module_names or top in BOX_MODULES)
        if not ok:
            problems.append(f"{name}:{line} imports {module}")
    return problems


def parent_problems(source: str, name: str) -> list[str]:
    """Imports of a module outside the box that reach into it (past its protocol), by the
    package's name or by a box module's bare name."""
    problems = []
    for line, module, names in _imports(ast.parse(source)):
        reached = [f"{module}.{n}" for n in names] if module == "grader.run.box" and names else [module]
        if module == "grader.run" and "box" in names:
            reached = ["grader.run.box"]
        for target in reached:
            inside = target == "grader.run.box" or target.startswith("grader.run.box.")
            if (inside and target != PARENT_DOOR) or target.split(".")[0] in BOX_MODULES:
                problems.append(f"{name}:{line} imports {target}")
    return problems


@pytest.mark.parametrize(
    ("source", "problems"),
    [
        (
            "import os\nimport confine\nfrom grader.run.box.protocol import GO\n"
            "from grader.run.box import swap",
            [],
        ),
        (
            "import yaml\nfrom grader.run import cgroup\nfrom . import confine\nimport grader",
            ["m:1 imports yaml", "m:2 imports grader.run", "m:3 imports .", "m:4 imports grader"],
        ),
    ],
)
def test_what_the_box_may_import(source: str, problems: list[str]) -> None:
    assert box_problems(source, "m") == problems


@pytest.mark.parametrize(
    ("source", "problems"),
    [
        ("from grader.run.box.protocol import GO\nimport json\nfrom grader.run.box import protocol", []),
        (
            "import counting\nfrom grader.run.box import confine\nfrom confine import become",
            ["p:1 imports counting", "p:2 imports grader.run.box.confine", "p:3 imports confine"],
        ),
        (
            "from grader.run import box\nimport grader.run.box.worker\nimport grader.run.box",
            ["p:1 imports grader.run.box", "p:2 imports grader.run.box.worker", "p:3 imports grader.run.box"],
        ),
    ],
)
def test_what_the_parent_may_import_of_the_box(source: str, problems: list[str]) -> None:
    assert parent_problems(source, "p") == problems


def test_the_box_imports_only_the_standard_library_and_itself() -> None:
    assert {"worker", "testprocess", "confine", "protocol", "launch"} <= BOX_MODULES
    problems = [
        problem for path in sorted(BOX.glob("*.py")) for problem in box_problems(path.read_text(), path.name)
    ]
    assert not problems, problems


def test_the_box_is_one_flat_folder_of_modules() -> None:
    """What `copy_box` copies is the whole box: no subpackage, nothing but modules."""
    assert sorted(p.name for p in BOX.iterdir() if p.name != "__pycache__") == sorted(
        p.name for p in BOX.glob("*.py")
    )


def test_the_protocol_imports_nothing_of_the_box() -> None:
    """The parent imports it: that must run nothing else of the box."""
    source = (BOX / "protocol.py").read_text()
    assert [module for _, module, _ in _imports(ast.parse(source))] == ["__future__", "typing"]


def test_the_parent_reaches_the_box_only_through_its_protocol() -> None:
    root = project_root()
    outside = [
        path
        for folder in ("grader", "tests", "bench")
        for path in sorted((root / folder).rglob("*.py"))
        if BOX not in path.parents and path != Path(__file__)
    ]
    problems = [
        problem
        for path in outside
        for problem in parent_problems(path.read_text(), str(path.relative_to(root)))
    ]
    # the tests and benchmarks that exercise a box module directly, as a library
    allowed = {
        "tests/grader/run/test_counting.py",
        "tests/grader/judge/test_reference_helpers.py",
        "bench/boundary_cost.py",
    }
    assert not [problem for problem in problems if problem.split(":")[0] not in allowed], problems


def test_the_copy_is_every_module_of_the_box(tmp_path: Path) -> None:
    copied = copy_box(tmp_path, 0o644)
    assert sorted(p.name for p in copied.iterdir()) == sorted(p.name for p in BOX.glob("*.py"))
    assert all(p.stat().st_mode & 0o777 == 0o644 for p in copied.iterdir())


def test_the_copied_box_runs_alone(tmp_path: Path) -> None:
    """Copied alone, its entry scripts import their siblings (and nothing of the grader)."""
    copy_box(tmp_path)
    probe = (
        f"import sys; sys.path.insert(0, {str(tmp_path)!r}); "
        "import worker, testprocess, launch, protocol; "
        "assert 'grader' not in sys.modules, sorted(sys.modules)"
    )
    ran = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert ran.returncode == 0, ran.stderr


@pytest.mark.parametrize(
    ("module", "added"),
    [
        ("grader/judge/compare.py", "from grader.run.box import counting"),
        ("grader/run/runner.py", "from grader.run.box.worker import Server"),
        ("grader/run/box/counting.py", "from grader.run import cgroup"),
    ],
)
def test_an_import_across_the_line_breaks_a_contract(tmp_path: Path, module: str, added: str) -> None:
    root = project_root()
    shutil.copytree(root / "grader", tmp_path / "grader", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(root / "pyproject.toml", tmp_path / "pyproject.toml")
    changed = tmp_path / module
    changed.write_text(f"{added}  # noqa\n" + changed.read_text())
    lint = Path(sys.executable).with_name("lint-imports")
    ran = subprocess.run(
        [str(lint), "--no-cache", "--config", "pyproject.toml"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)},
    )
    assert ran.returncode == 1 and "BROKEN" in ran.stdout.upper(), ran.stdout + ran.stderr
    assert str(tmp_path) in _grimp_root(tmp_path), "the copy, not the project, was checked"


def _grimp_root(folder: Path) -> str:
    ran = subprocess.run(
        [sys.executable, "-c", "import grader; print(grader.__file__)"],
        capture_output=True,
        text=True,
        cwd=folder,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(folder)},
    )
    return ran.stdout
