"""The closed set of verdicts and the one result type every test produces."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Verdict(StrEnum):
    AC = "AC"
    WA = "WA"
    TLE = "TLE"
    MLE = "MLE"
    RTE = "RTE"
    OLE = "OLE"
    NI = "NI"
    CE = "CE"
    JE = "JE"

    @property
    def meaning(self) -> str:
        return VERDICT_MEANINGS[self]


VERDICT_MEANINGS = {
    Verdict.AC: "accepted",
    Verdict.WA: "wrong answer",
    Verdict.TLE: "time limit exceeded",
    Verdict.MLE: "memory limit exceeded",
    Verdict.RTE: "run-time error",
    Verdict.OLE: "output limit exceeded",
    Verdict.NI: "not implemented",
    Verdict.CE: "does not import",
    Verdict.JE: "grader error",
}


@dataclass
class Usage:
    """What one run of a test cost."""

    cpu_s: float = 0.0
    wall_s: float = 0.0
    peak_mb: float = 0.0  # what the memory limit judged (above the interpreter's own)
    memory_measured: bool = True  # by a memory cgroup; else peak_mb is "not measured" in reports
    resident_mb: float = 0.0  # the test process's peak resident size, all of it


@dataclass
class TestResult:
    __test__ = False  # a result, not a test for pytest to collect
    name: str
    verdict: Verdict
    points: float
    max_points: float
    visibility: str
    kind: str = "call"
    usage: Usage = field(default_factory=Usage)
    message: str = ""
    details: str = ""
    stdout: str | None = None
    limits: dict[str, float] = field(default_factory=dict)
    limits_note: str = ""
    question: str = ""  # the question the test belongs to (empty in a suite that declares none)
    description: str = ""  # what the test checks, in the author's words (the suite's `description:`)
    cause: str = ""  # a CE's reason, the same in every test it stops (Judgement.cause)

    @property
    def passed(self) -> bool:
        return self.verdict is Verdict.AC
