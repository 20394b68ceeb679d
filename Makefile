# `make demo`: set up and grade the bundled sample submissions. `make test`: set up, lint and run every
# test. `make test-fast`: the development loop (no test marked slow or needing bubblewrap).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast lint bench verify clean goldens

# The grader's default sandbox is bubblewrap: install it when it is missing and we can (root with
# apt-get); otherwise say so in one line and go on (the tests that need it are then skipped).
# `grader verify` applies the known submissions (fixtures/NAME/mutants/) with GNU patch: likewise.
# The submission service's browser tests drive Debian's chromium with chromium-driver: likewise.
# Its TLS proxy test runs Debian's nginx in front of it (docs/service.md's server block): likewise.
# Its PostgreSQL tests start a throw-away cluster with Debian's postgresql: likewise.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	@if ! command -v patch >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq patch) >/dev/null 2>&1; \
	  fi; \
	  command -v patch >/dev/null 2>&1 || \
	    echo "note: GNU patch could not be installed; grader verify cannot apply mutants"; \
	fi
	@if ! command -v bwrap >/dev/null 2>&1; then \
	  if [ "$$(id -u)" != 0 ]; then why="not root"; \
	  elif ! command -v apt-get >/dev/null 2>&1; then why="no apt-get"; \
	  elif (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap) \
	       >/dev/null 2>&1 && command -v bwrap >/dev/null 2>&1; then why=""; \
	  else why="apt-get install bubblewrap failed"; fi; \
	  if [ -n "$$why" ]; then \
	    echo "note: bubblewrap could not be installed ($$why); tests that need it will be skipped"; \
	  fi; \
	fi
	@if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
	     chromium-driver) >/dev/null 2>&1; \
	  fi; \
	  command -v chromedriver >/dev/null 2>&1 || \
	    echo "note: chromium and chromium-driver could not be installed; the service's browser tests will be skipped"; \
	fi
	@if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx) \
	     >/dev/null 2>&1; \
	  fi; \
	  command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || \
	    echo "note: nginx could not be installed; the service's TLS proxy test will be skipped"; \
	fi
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql) \
	     >/dev/null 2>&1; \
	  fi; \
	  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || \
	    echo "note: postgresql could not be installed; the service's PostgreSQL tests will be skipped"; \
	fi
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/grader list
	$(BIN)/grader batch bitgrid samples/bitgrid --out demo-out --sandbox auto
	$(BIN)/grader grade bitgrid samples/bitgrid/bob --results demo-out/bob.results.json --sandbox auto

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	for folder in exercises/*/; do name=$$(basename $$folder); [ "$$name" != __pycache__ ] || continue; \
	  MYPYPATH=exercises/$$name $(BIN)/mypy --strict --explicit-package-bases --no-error-summary exercises/$$name || exit 1; \
	  MYPYPATH=exercises/$$name $(BIN)/mypy --strict --explicit-package-bases --no-error-summary reference/$$name || exit 1; \
	done
	$(BIN)/lint-imports --no-cache

# pytest exits 5 when it collects no test at all; that is a failure of its own kind, not a pass.
# Two workers (pytest-xdist) share the tests, an idle one stealing from the other's queue; the
# longest tests start first (tests/conftest.py). PARALLEL= runs them in one process. The 25
# slowest are listed at the end: where the wait goes.
PARALLEL ?= -n 2 --dist worksteal
# The fast tests wait more than they compute (timeouts, servers starting): one worker more than
# there are cores keeps both busy (2 cores: 101 s instead of 126 s for 1335 tests, idle).
FAST_PARALLEL ?= -n $(shell echo $$(( $$(nproc) + 1 ))) --dist worksteal
# Bytecode is written (into the ignored __pycache__ folders) even where the environment says not
# to: the tests start hundreds of interpreters (`grader` commands, services, workers), and each
# would compile the grader's modules again, every xdist worker its test modules too (8 % of
# `make test-fast`'s time).
KEEP_BYTECODE := PYTHONDONTWRITEBYTECODE=
# `make lint` runs beside the tests, its output kept and shown after theirs: mypy is one process
# on one core, and the first minute of the tests leaves the other core half idle. Either failing
# fails `make test`.
test: $(STAMP)
	log=$$(mktemp); $(MAKE) --no-print-directory lint > $$log 2>&1 & lint=$$!; \
	$(KEEP_BYTECODE) $(BIN)/python -m pytest $(PARALLEL) --durations=25; status=$$?; \
	wait $$lint; linted=$$?; cat $$log; rm -f $$log; \
	if [ $$linted -ne 0 ]; then echo "make lint failed (its output is above)"; exit $$linted; fi; \
	if [ $$status -eq 5 ]; then echo "pytest collected no tests"; exit 1; fi; exit $$status

test-fast: $(STAMP)
	$(KEEP_BYTECODE) $(BIN)/python -m pytest -q $(FAST_PARALLEL) -m "not slow and not bwrap"; status=$$?; \
	if [ $$status -eq 5 ]; then echo "pytest collected no tests"; exit 1; fi; exit $$status

verify: $(STAMP)
	for suite in fixtures/*/suite.yaml; do $(BIN)/grader verify $$suite || exit 1; done

bench: $(STAMP)
	for script in bench/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) demo-out

# The report writers' golden files, regenerated after a deliberate change (review: git diff tests/).
goldens: $(STAMP)
	GRADER_UPDATE_GOLDENS=1 $(BIN)/python -m pytest -q tests/grader/report/test_goldens.py
