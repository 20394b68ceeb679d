"""Confine this process as a test is confined, then become the interpreter running a driver.

`python -I -S launch.py UID SECCOMP_HEX REACH... -- PROGRAM ARGS...`, inside bubblewrap (`grader run
--submission`, grader/run/interactive.py): the interactive twin of `testprocess.confine_ahead`,
through the same `confine.lock_down`. Standard library only, an entry script of the box (see
`__init__.py`). As root it opens the way to the folders in REACH (the interpreter, the code), gives
/tmp to everyone, then locks itself down: UID (`-`: keep the caller's), no capability,
no_new_privs, the seccomp filter; then it executes PROGRAM. Any refused step ends it with status
71 and the reason.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grader.run.box import confine
else:  # an entry script of the box: its folder first on sys.path, then its siblings (__init__.py)
    sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
    import confine


def main(argv: list[str]) -> None:
    uid_text, program_hex, *rest = argv
    separator = rest.index("--")
    reach, command = rest[:separator], rest[separator + 1 :]
    try:
        if uid_text != "-":
            confine.reach(reach, [])
            os.chmod("/tmp", 0o1777)
        confine.lock_down(None if uid_text == "-" else int(uid_text), bytes.fromhex(program_hex))
        os.chdir("/tmp")
    except (OSError, ValueError) as error:
        sys.stderr.write(f"grader run: the sandbox could not be set up: {error}\n")
        sys.exit(71)
    os.execv(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
