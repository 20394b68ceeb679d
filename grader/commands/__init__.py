"""One module per command of the `grader` command line; each is a function
`main(*, ..., console=None) -> int` with keyword-only options, which `grader.cli` calls.

The exit status of every command, as docs/commands.md states it ("Exit status"):
"""

EXIT_OK = 0  # the command did its work (whatever the scores)
EXIT_GRADER_FAILED = 1  # the grader's own fault: a bug (traceback kept) or a JE
EXIT_USAGE = 2  # the command line asks for what cannot be (argparse, flags that do not go together)
EXIT_BAD_INPUT = 3  # the user's input is wrong (a suite, a submission, a file): one line each
EXIT_CHECK_FAILED = 4  # `verify` or `record` found a problem in a suite
