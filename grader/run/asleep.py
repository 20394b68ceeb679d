"""Whether a test is asleep, judged from outside by the kernel's own numbers.

A test is asleep while none of its threads is runnable (the state field of /proc/TID/stat is not
`R`: it sleeps, waits for input that never comes, waits in the kernel, is stopped) and its
cgroup's CPU counter barely moves (under `CPU_SHARE` of the wall time: a loop of short sleeps
counts too). A test that computes is runnable even when the machine is too busy to run it, so a
CPU-bound test under load is never asleep: its CPU time is what counts. A test that waits for its
own children is asleep only while they are asleep too (they are in its cgroup, and their CPU is
its CPU). Nothing the test says is read: only the parent's view of the kernel.

`AFTER_S`, the time a test may stay asleep before it ends as TLE: an honest test never sleeps on
purpose, and what it may wait for (a page read from disk, the fork server draining its result
pipe, its turn on a busy CPU, which leaves it runnable) lasts milliseconds. Not one sample found
any of the 177 tests of the six bundled references asleep, idle or under two busy loops per core
(`bench/sleepers.py`); 3 s is 60 samples of the watchdog, and costs a sleeper 3 s a test instead
of the 30 s or more of the wall-clock safety net.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

AFTER_S = 3.0
CPU_SHARE = 0.01  # CPU seconds per wall second below which a test that is not runnable sleeps


def state(tid: int) -> str:
    """The kernel's one-letter state of a thread (R runnable, S, D, T, t, Z, X ...), '' if gone."""
    try:
        with open(f"/proc/{tid}/stat", "rb") as stat:
            after_name = stat.read().rsplit(b")", 1)[1]  # the name may hold ") "
        return after_name.split()[0].decode()
    except (OSError, IndexError, UnicodeDecodeError):
        return ""


def awake(threads: Iterable[int]) -> bool:
    """Whether any thread is runnable; True too when none is left alive (the test is ending,
    which is not sleeping)."""
    states = [state(tid) for tid in threads]
    alive = [s for s in states if s not in ("", "Z", "X", "x")]
    return not alive or "R" in alive


class SleepWatch:
    """Follows one test's sleep from sample to sample (`asleep`), and the longest stretch seen."""

    def __init__(self, started: float, after_s: float | None = None) -> None:
        self.after_s = AFTER_S if after_s is None else after_s
        self.then = started  # the previous sample (monotonic clock), and the test's CPU time then
        self.cpu_then = 0.0
        self.since: float | None = None  # when the current stretch of sleep began
        self.cpu_since = 0.0
        self.longest_s = 0.0

    def asleep(self, now: float, cpu_s: float, threads: Callable[[], Iterable[int]]) -> bool:
        """Whether the test has been asleep for `after_s` by `now`, its CPU time being `cpu_s`.

        A test that has not used any CPU yet is waiting for its request from the fork server,
        not sleeping. `threads` is read only when the CPU counter (nearly) stood still.
        """
        then, cpu_then = self.then, self.cpu_then
        self.then, self.cpu_then = now, cpu_s
        if cpu_s <= 0:
            return False
        if self.since is None:
            worked = cpu_s - cpu_then > CPU_SHARE * (now - then)
        else:
            worked = cpu_s - self.cpu_since > CPU_SHARE * (now - self.since)
        if worked or awake(threads()):
            self.since = None
            return False
        if self.since is None:
            self.since, self.cpu_since = then, cpu_then
        self.longest_s = max(self.longest_s, now - self.since)
        return now - self.since >= self.after_s
