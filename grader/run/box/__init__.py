"""The box: the fork-server side of the boundary, everything that runs inside the sandbox.

Every module here is standard library only and runs, inside bubblewrap or not, as the fork server
(`worker.py`, `python -I -S worker.py CONFIG`, with `channels.py` and `talk.py`) and the test
processes it forks (`testprocess.py`, with `confine.py`, `counting.py`, `plain.py`, `swap.py`,
`streams.py`), or as the launcher of `grader run --submission` (`launch.py`). `protocol.py` is both
protocols (the parent and the fork server, the fork server and each test), every message, byte and
size named once.

How the box is carried and imported (what stays true when this folder is copied alone):

- The parent copies every `*.py` of this folder, and nothing else, into the sandbox
  (`grader.run.sandbox.copy_box`); outside bubblewrap it runs `worker.py` where it lies.
- The modules import one another as siblings, by bare name (`import confine`): the entry
  scripts (`worker.py`, `launch.py`, and `testprocess.py`, which the doctests import alone) put
  their own folder first on `sys.path` and import their siblings; `python -I` puts no other folder
  there. The fork server takes the folder off `sys.path` again before any test runs. For mypy and
  import-linter the same imports read `from grader.run.box import confine` (under TYPE_CHECKING).

What holds, checked by pyproject.toml's contracts ([tool.importlinter], run by
tests/grader/test_architecture.py) and tests/grader/run/test_box.py:

- The box imports nothing but the standard library and its own modules.
- The parent never imports the box, except `grader.run.box.protocol` (which imports nothing of
  the box): any module added here is covered by the package's name.
- No module outside the box imports a box module by its bare name (`import counting`).
"""
