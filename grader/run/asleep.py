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

from collections import deque
from collections.abc import Callable, Iterable

AFTER_S = 3.0
CPU_SHARE = 0.01  # CPU seconds per wall second below which a test that is not runnable sleeps

# A test that naps in a loop (short sleeps with a little work between) uses more CPU than a
# sleeper and is often runnable when sampled on a busy machine (woken, waiting for a CPU). The
# kernel's scheduler statistics say how long its threads ran or waited to run: over NAP_WINDOW_S,
# a test whose threads together ran or waited to run under NAP_BUSY_SHARE of the time slept the
# rest, so it is asleep too. A computing test runs or waits to run all the time, however busy
# the machine is (`bench/sleepers.py`).
NAP_WINDOW_S = 6.0
NAP_BUSY_SHARE = 0.5


def scheduled_ns(tid: int) -> int | None:
    """How long a thread has run on a CPU plus waited for one (ns, /proc/TID/schedstat), None if
    it is gone or the kernel keeps no such statistics."""
    try:
        with open(f"/proc/{tid}/schedstat", "rb") as stats:
            ran, waited, _slices = stats.read().split()
        return int(ran) + int(waited)
    except (OSError, ValueError):
        return None


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
        self.scheduled: dict[int, int] = {}  # per thread, its scheduler time at the last sample
        self.busy_s = 0.0  # the test's threads' time running or waiting to run, summed
        self.samples: deque[tuple[float, float]] = deque()  # (time, busy_s) over NAP_WINDOW_S
        self.napped = False  # ended by the nap rule rather than by a stretch of sleep

    def asleep(self, now: float, cpu_s: float, threads: Callable[[], Iterable[int]]) -> bool:
        """Whether the test has been asleep for `after_s` by `now`, its CPU time being `cpu_s`,
        or mostly asleep for NAP_WINDOW_S (the nap rule).

        A test that has not used any CPU yet is waiting for its request from the fork server,
        not sleeping.
        """
        then, cpu_then = self.then, self.cpu_then
        self.then, self.cpu_then = now, cpu_s
        if cpu_s <= 0:
            return False
        tids = list(threads())
        if self._naps(now, tids):
            self.napped = True
            return True
        if self.since is None:
            worked = cpu_s - cpu_then > CPU_SHARE * (now - then)
        else:
            worked = cpu_s - self.cpu_since > CPU_SHARE * (now - self.since)
        if worked or awake(tids):
            self.since = None
            return False
        if self.since is None:
            self.since, self.cpu_since = then, cpu_then
        self.longest_s = max(self.longest_s, now - self.since)
        return now - self.since >= self.after_s

    def _naps(self, now: float, tids: list[int]) -> bool:
        """Whether, over the last NAP_WINDOW_S, the test's threads together ran or waited to run
        under NAP_BUSY_SHARE of the time (the nap rule)."""
        for tid in tids:
            scheduled = scheduled_ns(tid)
            if scheduled is None:
                continue
            self.busy_s += (scheduled - self.scheduled.get(tid, 0)) / 1e9
            self.scheduled[tid] = scheduled
        samples = self.samples
        samples.append((now, self.busy_s))
        while len(samples) > 1 and samples[1][0] <= now - NAP_WINDOW_S:
            samples.popleft()
        first_time, first_busy = samples[0]
        window = now - first_time
        if window < NAP_WINDOW_S or not self.scheduled:
            return False
        if self.busy_s - first_busy >= NAP_BUSY_SHARE * window:
            return False
        self.longest_s = max(self.longest_s, window)
        return True
