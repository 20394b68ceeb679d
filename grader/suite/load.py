"""Loading a suite file: YAML parsed, validated, every problem one located line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from grader.errors import UserError
from grader.exercise import Exercise, project_root
from grader.suite.model import LocatedError, SuiteError
from grader.suite.schema import Suite

# libyaml's loader when PyYAML was built with it: the same documents, many times faster.
YamlLoader: type[yaml.SafeLoader] | type[yaml.CSafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class LoadedSuite:
    """A validated suite together with where it came from."""

    def __init__(
        self, suite: Suite, path: Path, node: yaml.Node | None = None, root: Path | None = None
    ) -> None:
        self.suite = suite
        self.path = path
        self.exercise = Exercise(suite.exercise, root if root is not None else project_root(), path)
        self.node = node  # the suite file's YAML nodes, for the line of a key

    def line_of(self, *loc: int | str) -> int | None:
        """The line of the suite file holding the key at `loc` (or its nearest parent)."""
        return _line_of(self.node, loc)

    @property
    def name(self) -> str:
        return self.suite.exercise

    @property
    def fixtures(self) -> Path:
        return self.exercise.fixtures

    @property
    def runnable_drivers(self) -> list[str]:
        """The given modules that run as programs (`grader run EXERCISE DRIVER`)."""
        names = []
        for name in self.suite.given:
            path = self.exercise.given_file(name)
            if path.suffix == ".py" and path.is_file() and "__main__" in path.read_text():
                names.append(path.stem)
        return names


def _line_of(node: yaml.Node | None, loc: tuple[int | str, ...]) -> int | None:
    """The 1-based line of the YAML node at a pydantic error location (or of its nearest parent)."""
    line = node.start_mark.line + 1 if node is not None else None
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            match = [v for k, v in node.value if getattr(k, "value", None) == key]
            if not match:
                break
            node = match[0]
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            break
        line = node.start_mark.line + 1
    return line


def _describe(error: dict[str, Any]) -> str:
    loc = ".".join(str(part) for part in error["loc"] if not str(part).startswith("function-"))
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        message = "unknown key"
    elif error["type"] == "missing":
        message = "required key is missing"
    return f"{loc}: {message}" if loc else message


def parse_yaml(text: str) -> tuple[yaml.Node | None, Any]:
    """The document's node tree (for line numbers) and its data, from one parse.

    >>> node, data = parse_yaml("exercise: toy\\ntests: [1]\\n")
    >>> data, node.value[1][0].start_mark.line + 1
    ({'exercise': 'toy', 'tests': [1]}, 2)
    """
    loader = YamlLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    return node, data


def read_yaml_file(path: Path, what: str, error_type: type[UserError]) -> tuple[yaml.Node | None, Any]:
    """The node tree and data of a YAML file (`what` it is, for the messages); a missing,
    unreadable or malformed file is one `error_type` line naming it (and the line)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as error:
        raise error_type(f"{path}: no such {what}") from error
    except (OSError, UnicodeDecodeError) as error:
        raise error_type(f"{path}: cannot read: {error}") from error
    try:
        return parse_yaml(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error)
        raise error_type(f"{path}{where}: malformed YAML: {problem}") from error


def located_message(path: Path, node: yaml.Node | None, error: ValidationError) -> str:
    """A validation error as one line: the file, the line of the first problem, its key path.

    >>> from pydantic import BaseModel
    >>> class Toy(BaseModel):
    ...     tests: list[int]
    >>> node, data = parse_yaml("tests:\\n  - 1\\n  - two\\n")
    >>> try:
    ...     Toy.model_validate(data)
    ... except ValidationError as error:
    ...     print(located_message(Path("toy.yaml"), node, error))
    toy.yaml:3: tests.1: Input should be a valid integer, unable to parse string as an integer
    """
    first = error.errors()[0]
    located = first.get("ctx", {}).get("error")
    if isinstance(located, LocatedError):
        first["loc"] = (*first["loc"], *located.loc)
    line = _line_of(node, tuple(first["loc"]))
    where = f":{line}" if line else ""
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"{path}{where}: {_describe(dict(first))}{more}"


def parse_suite(path: Path, root: Path | None = None) -> LoadedSuite:
    """Read and validate a suite file; every problem becomes one SuiteError line."""
    node, data = read_yaml_file(path, "suite file", SuiteError)
    if not isinstance(data, dict):
        raise SuiteError(f"{path}: a suite is a mapping with keys exercise, submit, tests, ...")
    try:
        suite = Suite.model_validate(data)
    except ValidationError as error:
        raise SuiteError(located_message(path, node, error)) from error
    return LoadedSuite(suite, path, node, root)


def load_suite(exercise_or_path: str, root: Path | None = None) -> LoadedSuite:
    """Load by exercise name (fixtures/NAME/suite.yaml) or by a path to a suite file, of the
    project at `root` (default: `project_root()`)."""
    candidate = Path(exercise_or_path)
    if candidate.suffix in {".yaml", ".yml"} or candidate.is_file():
        return parse_suite(candidate, root)
    path = Exercise.named(exercise_or_path, root).suite
    if not path.exists():
        raise SuiteError(f"{path}: no suite for exercise '{exercise_or_path}'")
    return parse_suite(path, root)


# For other YAML files validated the same way (the service's course file).
line_of = _line_of
