"""A test's resource limits: as a suite writes them (`LimitSpec`, the suite's own and each test's
keys over it) and resolved to plain numbers (`Limits`). Each limit's default is declared once, in
`Limits`; its bound and its meaning once, in `LimitSpec`."""

from __future__ import annotations

from pydantic import Field

from grader.suite.fields import TimeLimit
from grader.suite.model import Strict

UNCALIBRATED_TIME_S = 600.0
WALL_RULE = "max(3 x cpu_s, cpu_s + 30 s)"
WALL_NOTE = (
    "; time limits judge CPU time, the wall clock is a safety net above them "
    f"(leave wall_s out for {WALL_RULE})"
)


def default_wall_s(cpu_s: float) -> float:
    """The wall-clock limit that goes with a CPU limit when the suite sets none: max(3x, +30 s).

    Time limits judge CPU time; the wall clock is only a safety net against a test that sleeps or
    waits, set well above the CPU limit so that a busy machine slows grading but changes no verdict.
    """
    return round(max(3 * cpu_s, cpu_s + 30), 3)


class Limits(Strict):
    """Resource limits of one test run, resolved to plain numbers (made only by `LimitSpec.resolve`,
    which has checked them; the defaults here are every suite's)."""

    cpu_s: float = 10.0
    wall_s: float = default_wall_s(10.0)
    memory_mb: float = 512.0
    output_kb: float = 1024.0
    processes: int = 1
    scratch_mb: float = 64.0
    scratch_files: int = 512


DEFAULT = Limits()


class LimitSpec(Strict):
    """Limits as a suite writes them; times may be relative. A test's `limits:` is one too, of which
    only the keys it sets count (`merged`)."""

    cpu_s: TimeLimit = Field(
        DEFAULT.cpu_s,
        description="CPU seconds of the whole process tree (going over "
        "is TLE), or '3x': three times the reference's CPU time on this machine",
    )
    wall_s: TimeLimit | None = Field(
        None,
        description="wall-clock seconds before the test is killed (TLE): only a safety net, "
        f"since time limits judge CPU time. Unset: {WALL_RULE} of the resolved CPU limit; else "
        "seconds (not below an absolute cpu_s) or a multiple of the reference's wall time ('5x')",
    )
    memory_mb: float = Field(DEFAULT.memory_mb, gt=0, description="peak resident memory of the process tree")
    output_kb: float = Field(DEFAULT.output_kb, gt=0, description="bytes the test may write to stdout")
    processes: int = Field(
        DEFAULT.processes, ge=1, description="processes alive at once, the test's own included"
    )
    floor_s: float = Field(1.0, gt=0, description="the least a relative time limit resolves to")
    scratch_mb: float = Field(
        DEFAULT.scratch_mb,
        gt=0,
        description="size in MB of the test's private writable "
        "space: its /tmp and its working folder, fresh for every test",
    )
    scratch_files: int = Field(
        DEFAULT.scratch_files,
        ge=1,
        description="how many files and folders the test may create in its private writable space",
    )

    def wall_problem(self) -> str | None:
        """Why this wall_s cannot be (an absolute one below an absolute cpu_s), or None."""
        if isinstance(self.wall_s, float) and isinstance(self.cpu_s, float) and self.wall_s < self.cpu_s:
            return f"{self.wall_s:g} s is below cpu_s {self.cpu_s:g} s" + WALL_NOTE
        return None

    def merged(self, overrides: LimitSpec | None) -> LimitSpec:
        """These limits with the keys a test's `limits:` sets."""
        if overrides is None:
            return self
        return self.model_copy(update=overrides.model_dump(exclude_unset=True))

    def sets(self, key: str) -> bool:
        return key in self.model_fields_set

    @property
    def relative(self) -> bool:
        return isinstance(self.cpu_s, str) or isinstance(self.wall_s, str)

    def resolve(self, reference_cpu_s: float | None = None, reference_wall_s: float | None = None) -> Limits:
        """Plain limits; relative times need the reference's (else they are left generous).

        Without a wall_s of its own the wall-clock limit follows the resolved CPU limit
        (`default_wall_s`).
        """

        def seconds(value: float | str, reference: float | None) -> float:
            if isinstance(value, str):
                if reference is None:
                    return UNCALIBRATED_TIME_S
                return round(max(self.floor_s, float(value[:-1]) * reference), 3)
            return float(value)

        cpu_s = seconds(self.cpu_s, reference_cpu_s)
        wall_s = default_wall_s(cpu_s) if self.wall_s is None else seconds(self.wall_s, reference_wall_s)
        return Limits(
            cpu_s=cpu_s,
            wall_s=wall_s,
            memory_mb=self.memory_mb,
            output_kb=self.output_kb,
            processes=self.processes,
            scratch_mb=self.scratch_mb,
            scratch_files=self.scratch_files,
        )
