"""One module per command of the `grader` command line; each has `run(args, console) -> int`."""

EXIT_OK = 0
EXIT_GRADER_FAILED = 1
EXIT_USAGE = 2
EXIT_BAD_INPUT = 3
EXIT_CHECK_FAILED = 4
