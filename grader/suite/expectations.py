"""Recorded expectations: where they live, how they are read, written and fingerprinted."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from grader.errors import UserError
from grader.suite.cases import steps_of
from grader.suite.load import LoadedSuite
from grader.suite.normalize import normalized_lines
from grader.suite.schema import Step, TestSpec

__all__ = [
    "MissingExpectation",
    "call_file",
    "fingerprint",
    "input_names",
    "load_call",
    "load_transcript",
    "recorded_fingerprint",
    "steps_of",
    "write",
]


class MissingExpectation(UserError, FileNotFoundError):
    """A test whose expected values were never recorded."""


def call_file(loaded: LoadedSuite, test: TestSpec) -> Path:
    return loaded.exercise.expected_file(test.name)


def load_call(loaded: LoadedSuite, test: TestSpec) -> list[dict[str, Any]]:
    path = call_file(loaded, test)
    if not path.is_file():
        raise MissingExpectation(f"{path}: not recorded; run `grader record {loaded.name}`")
    data = json.loads(path.read_text())
    outcomes: list[dict[str, Any]] = data["steps"]
    return outcomes


def load_transcript(loaded: LoadedSuite, test: TestSpec) -> tuple[str, int]:
    assert test.transcript is not None
    path = loaded.fixtures / test.transcript.expected
    meta = call_file(loaded, test)
    if not path.is_file() or not meta.is_file():
        raise MissingExpectation(f"{path}: not recorded; run `grader record {loaded.name}`")
    exit_code: int = json.loads(meta.read_text()).get("exit", 0)
    return path.read_bytes().decode("utf-8", "replace"), exit_code


def fingerprint(loaded: LoadedSuite, test: TestSpec) -> str:
    """A hash of what a recorded expectation depends on: reference, given files, test, inputs."""
    digest = hashlib.sha256()
    suite = loaded.suite
    for folder, names in ((loaded.exercise.reference, suite.submit), (loaded.exercise.stubs, suite.given)):
        for name in names:
            digest.update(name.encode())
            path = folder / name
            digest.update(path.read_bytes() if path.exists() else b"<missing>")
    # The recording never depends on how answers are judged (a checker reads them afterwards).
    ignored: dict[str, Any] = dict.fromkeys(
        ("points", "visibility", "limits", "description", "reference_helpers", "question", "checker", "game"),
        True,
    )
    if test.steps is not None:
        ignored["steps"] = {"__all__": {"checker"}}
    if test.interactive is None:  # a key the tests recorded before it existed never had
        ignored["interactive"] = True
    digest.update(test.model_dump_json(exclude=ignored).encode())
    if test.transcript is None:
        steps = [
            step.model_dump(exclude_defaults=True, exclude={"checker"}) for step in steps_of(test, loaded)
        ]
        digest.update(json.dumps(steps, sort_keys=True).encode())
    for name in input_names(test):
        path = loaded.fixtures / name
        digest.update(path.read_bytes() if path.exists() else b"<missing>")
    if test.interactive is not None:  # the referee plays the game that is recorded
        path = loaded.exercise.generator(test.interactive.referee.partition(":")[0])
        digest.update(path.read_bytes() if path.is_file() else b"<missing>")
    return digest.hexdigest()[:16]


def input_names(test: TestSpec) -> list[str]:
    """The fixture files a test reads (stdin and {fixture: ...} arguments)."""
    names: list[str] = []
    if test.transcript is not None:
        if test.transcript.stdin:
            names.append(test.transcript.stdin)
        names += [arg["fixture"] for arg in test.transcript.args if isinstance(arg, dict)]
    for step in test.steps or []:
        names += _fixture_args(step.args)
    return names


def _fixture_args(value: Any) -> list[str]:
    if isinstance(value, dict) and set(value) == {"fixture"}:
        return [value["fixture"]]
    if isinstance(value, list):
        return [name for item in value for name in _fixture_args(item)]
    if isinstance(value, dict):
        return [name for item in value.values() for name in _fixture_args(item)]
    return []


def recorded_fingerprint(loaded: LoadedSuite, test: TestSpec) -> str | None:
    path = call_file(loaded, test)
    if not path.is_file():
        return None
    value = json.loads(path.read_text()).get("fingerprint")
    return value if isinstance(value, str) else None


def _same_transcript(loaded: LoadedSuite, test: TestSpec, path: Path, new: bytes) -> bool:
    """Whether the recorded transcript already equals `new` once normalized (masked timings...).

    Keeping the old bytes then keeps `git diff` quiet about lines that never count.
    """
    if not path.is_file():
        return False
    rules = test.normalize or loaded.suite.normalize
    old_lines = normalized_lines(path.read_bytes().decode("utf-8", "replace"), rules)
    return old_lines == normalized_lines(
        new.decode("utf-8", "replace"), rules
    ) and path.read_bytes().endswith(b"\n") == new.endswith(b"\n")


def without_traceback(step: dict[str, Any]) -> dict[str, Any]:
    """A step's outcome as recorded: an exception is its class and message, never the
    reference's traceback (its function names and lines would ship to students in handouts).

    >>> without_traceback({"raises": "ValueError", "message": "bad", "traceback": "File ..."})
    {'raises': 'ValueError', 'message': 'bad'}
    """
    return {key: value for key, value in step.items() if key not in ("traceback", "origin")}


def with_calls(steps: list[Step], outcomes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each recorded outcome with the call (or read) and arguments of its step in front of it.

    A step kept under a name leaves an outcome only when it failed (`let_failed`).

    >>> with_calls([Step(call="b.Board", let="b"), Step(call="b.play", args=[4])], [{"value": 1}])
    [{'call': 'b.play', 'args': [4], 'value': 1}]
    """
    annotated: list[dict[str, Any]] = []
    pending = list(outcomes)
    for step in steps:
        if not step.compared and not (pending and pending[0].get("let_failed")):
            continue
        if not pending:
            break
        what = step.model_dump(include={"call", "get", "args", "kwargs"}, exclude_defaults=True)
        annotated.append({**what, **dict(sorted(pending.pop(0).items()))})
    if pending or len(annotated) != len(outcomes):
        raise ValueError(
            f"{len(outcomes)} outcomes recorded for {len(steps)} steps "
            f"({len(annotated)} of them compared or failed)"
        )
    return annotated


def _json_lines(meta: dict[str, Any]) -> str:
    """`meta` as JSON with each recorded step on one line, so that `git diff` shows a step whole.

    >>> print(_json_lines({"test": "t", "steps": [{"call": "f", "value": 1}]}), end="")
    {
     "test": "t",
     "steps": [
      {"call": "f", "value": 1}
     ]
    }
    """
    lines = [f" {json.dumps(key)}: {json.dumps(value)}" for key, value in meta.items() if key != "steps"]
    if "steps" in meta:
        steps = ",\n".join(f"  {json.dumps(step)}" for step in meta["steps"])
        lines.append(f' "steps": [\n{steps}\n ]' if steps else ' "steps": []')
    return "{\n" + ",\n".join(lines) + "\n}\n"


def write(loaded: LoadedSuite, test: TestSpec, recorded: Any) -> list[Path]:
    """Store what the reference did for `test`; returns the files written."""
    loaded.exercise.expected.mkdir(parents=True, exist_ok=True)
    meta: dict[str, Any] = {"test": test.name, "fingerprint": fingerprint(loaded, test)}
    written = [call_file(loaded, test)]
    if test.transcript is not None:
        transcript = loaded.fixtures / test.transcript.expected
        meta["exit"] = recorded["exit"]
        if not _same_transcript(loaded, test, transcript, recorded["stdout"]):
            transcript.write_bytes(recorded["stdout"])
            written.append(transcript)
    elif test.interactive is not None:  # the reference's game, kept for review (never compared)
        meta["verdict"], meta["game"] = recorded["verdict"], recorded["game"]
    else:
        meta["steps"] = with_calls(steps_of(test, loaded), [without_traceback(step) for step in recorded])
    call_file(loaded, test).write_text(_json_lines(meta), encoding="utf-8")
    return written
