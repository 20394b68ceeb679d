"""Run a command so that a test can tell, from outside, when nothing of it is left.

`python tests/reaper.py LOG COMMAND...` makes itself a child subreaper (PR_SET_CHILD_SUBREAPER),
starts COMMAND in a session of its own with its output in LOG, and reaps: every process the command
leaves behind (an orphan, whatever its session or pid namespace) is re-parented here. It prints
JSON lines: {"pid": P} once started, {"exit": CODE} when the command ended (negative: killed by
that signal), {"gone": true} when no process of it is left; then it exits.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys

PR_SET_CHILD_SUBREAPER = 36


def say(**message: object) -> None:
    print(json.dumps(message), flush=True)


def main() -> int:
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        say(error=f"prctl(PR_SET_CHILD_SUBREAPER): errno {ctypes.get_errno()}")
        return 1
    with open(sys.argv[1], "wb") as log:
        child = subprocess.Popen(
            sys.argv[2:], stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True
        )
    say(pid=child.pid)
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        if pid == child.pid:
            say(exit=os.waitstatus_to_exitcode(status))
    say(gone=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
