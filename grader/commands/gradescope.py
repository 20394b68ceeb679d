"""`grader gradescope EXERCISE ZIP`: a Gradescope autograder that grades with this grader.

The zip holds, at its top, `setup.sh` (run once when Gradescope builds the image: a Python 3.11+
virtual environment with the grader's dependencies under the root, and bubblewrap where it can)
and `run_autograder` (run for each submission: grades `submission/` into `results/results.json`
with `--sandbox auto`, every test with its visibility), next to the grader's source and the
exercise's bundle (suite, given files, fixtures; the reference only to time relative limits or for
reference helpers).
The root is `/autograder`, or `$AUTOGRADER_ROOT` when set, for both scripts.
"""

from __future__ import annotations

import importlib.metadata
import os
import shlex
import tempfile
import zipfile
from pathlib import Path

from rich.console import Console

import grader
from grader.cluster.bundle import bundle_files
from grader.commands import EXIT_OK
from grader.commands.output import stdout_console
from grader.errors import UserError
from grader.judge.preflight import preflight
from grader.suite.load import LoadedSuite, load_suite

DISTRIBUTION = "gametree-grader"
FALLBACK_REQUIREMENTS = ["psutil>=5.9", "pyseccomp>=0.1.2", "pyyaml>=6.0", "pydantic>=2.5", "rich>=13.0"]

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (from source/).
# Root: /autograder, or $AUTOGRADER_ROOT. $PYTHON picks the interpreter (3.11 or newer);
# SETUP_NO_APT=1 never calls apt-get; pip reads its usual settings (PIP_NO_INDEX, PIP_FIND_LINKS).
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
VENV="$ROOT/venv"

can_apt() { [ -z "${SETUP_NO_APT:-}" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }
updated=""
apt_install() {
  [ -n "$updated" ] || { apt-get update -qq; updated=1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
pick_python() {
  for candidate in ${PYTHON:-} python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c \\
        'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      command -v "$candidate"; return 0
    fi
  done
  return 1
}

python="$(pick_python || true)"
if [ -z "$python" ] && can_apt; then
  apt_install python3.11 python3.11-venv || true
  python="$(pick_python || true)"
fi
if [ -z "$python" ]; then
  echo "setup.sh: no Python 3.11 or newer here (set PYTHON, or install python3.11)" >&2
  exit 1
fi

if ! ldconfig -p 2>/dev/null | grep -q libseccomp; then
  can_apt && apt_install libseccomp2 || echo "setup.sh: note: libseccomp2 is missing; grading will refuse"
fi
chmod -R go-rwx "$SOURCE"

if ! command -v bwrap >/dev/null 2>&1; then
  if can_apt && apt_install bubblewrap; then
    echo "setup.sh: installed bubblewrap"
  else
    echo "setup.sh: note: bubblewrap is not installed; tests run at the container level"
  fi
fi

if ! "$python" -m venv "$VENV"; then
  version="$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
  can_apt && apt_install "python$version-venv" || true
  rm -rf "$VENV"
  "$python" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$SOURCE/requirements.txt"
echo "setup.sh: grader ready in $VENV for" {exercise}
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for each submission: grade submission/ into results/results.json.
# Root: /autograder, or $AUTOGRADER_ROOT. Every test is graded; Gradescope shows each one
# per its visibility (visible, hidden, after_due_date) as results.json states it.
# Tests run as an unprivileged uid: the grader's source, the suite and its expectations are made
# unreadable to others first, so that the `container` level (used where bubblewrap cannot run, as
# in Docker) hides them. Where no level that hides hidden tests can run, or the grader fails
# before it wrote results.json, results.json grades nothing and says why.
set -uo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
RESULTS="$ROOT/results/results.json"
mkdir -p "$ROOT/results"
chmod 755 "$ROOT/results"
chmod -R go-rwx "$SOURCE"
rm -f "$RESULTS"
export GRADER_ROOT="$SOURCE" PYTHONPATH="$SOURCE"
cd "$SOURCE"
"$ROOT/venv/bin/python" -m grader grade "$SOURCE"/{suite} "$ROOT/submission" \\
  --results "$RESULTS" --sandbox auto 2> "$ROOT/results/grader.err"
status=$?
cat "$ROOT/results/grader.err" >&2
# A JE exits 1 after writing results.json, which says which test and why: it stands.
if [ ! -s "$RESULTS" ]; then
  "$ROOT/venv/bin/python" - "$RESULTS" "$status" "$ROOT/results/grader.err" <<'PY'
import json, sys
results, status, errors = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    why = open(errors, encoding="utf-8", errors="replace").read().strip().splitlines()[-1]
except (OSError, IndexError):
    why = f"the grader exited with status {status}"
json.dump({"score": 0, "tests": [], "output": "Nothing was graded: " + why[:500] +
           " (the autograder could not grade safely here; your instructor has been told)",
           "extra_data": {"graded": False, "exit_status": int(status), "why": why[:500]}},
          open(results, "w"))
PY
fi
exit 0
"""


def requirements() -> list[str]:
    """The grader's runtime dependencies, as installed (no extras)."""
    try:
        declared = importlib.metadata.requires(DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        return FALLBACK_REQUIREMENTS
    return [line for line in declared if "extra ==" not in line] or FALLBACK_REQUIREMENTS


def grader_sources() -> dict[str, bytes]:
    """The grader package's own files (wherever it is installed from), by path in the zip."""
    package = Path(grader.__file__).resolve().parent
    files: dict[str, bytes] = {}
    for path in sorted(package.rglob("*")):
        relative = path.relative_to(package.parent)
        if path.is_file() and "__pycache__" not in relative.parts and path.suffix != ".pyc":
            files[relative.as_posix()] = path.read_bytes()
    return files


def autograder_files(loaded: LoadedSuite) -> dict[str, tuple[bytes, int]]:
    """Path in the zip -> (content, mode)."""
    suite_name, exercise = bundle_files(loaded)
    files = {name: (data, 0o644) for name, data in {**exercise, **grader_sources()}.items()}
    files["requirements.txt"] = ("\n".join(requirements()) + "\n").encode(), 0o644
    files["setup.sh"] = SETUP_SH.replace("{exercise}", shlex.quote(loaded.name)).encode(), 0o755
    files["run_autograder"] = RUN_AUTOGRADER.replace("{suite}", shlex.quote(suite_name)).encode(), 0o755
    return files


def write_autograder(loaded: LoadedSuite, destination: Path) -> list[str]:
    """Write the autograder zip to `destination` (whole or not at all); the names it holds."""
    if not destination.parent.is_dir():
        raise UserError(f"{destination}: the folder {destination.parent} does not exist")
    files = autograder_files(loaded)
    handle, temporary = tempfile.mkstemp(dir=destination.parent, prefix=f".{destination.name}.")
    os.close(handle)
    try:
        with zipfile.ZipFile(temporary, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name in sorted(files):
                data, mode = files[name]
                info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
                info.external_attr = (0o100000 | mode) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, data)
        os.replace(temporary, destination)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return sorted(files)


def main(*, exercise: str, zip: Path, console: Console | None = None) -> int:
    """Write a Gradescope autograder for `exercise` to `zip` (whole, or not at all), once the
    suite passed the checks every grading makes first (else exit 3, nothing written)."""
    loaded = load_suite(exercise)
    preflight(loaded, loaded.suite.tests).stop_on_errors("nothing written")
    names = write_autograder(loaded, zip)
    stdout_console(console).print(
        f"wrote {zip}: {len(names)} file(s), setup.sh and run_autograder at the "
        f"top; upload it as the Gradescope autograder of {loaded.name}",
        highlight=False,
    )
    return EXIT_OK
