# Two commands matter: `make demo` and `make test`. Both set up .venv from nothing but Python.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
# The demo needs the package alone (its runtime dependencies), not the test extras.
DEMO_STAMP := $(VENV)/.installed
# the slowest tests are listed at the end of each run: where a contributor looks to keep it short
PYTEST_ARGS ?= --durations=15
# pytest-xdist workers for `make test`: one more than the cores (PYTEST_WORKERS=0: one process). The
# integration tests wait on the programs they start: with one worker per core the 2 cores here were
# busy 84 % of a run (8 min 20 s, before the tests wrote bytecode); three workers: 7 min 53 s.
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))

.PHONY: demo test test-fast venv editors sandbox otel-receiver lint bench clean

# uv installs from PyPI about 4x faster than pip: pip only bootstraps it into .venv, which keeps a
# current pip itself (the tests run `python -m pip`, whose requirement syntax must be current).
UV := $(BIN)/uv

$(UV):
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip 'uv>=0.5'

$(DEMO_STAMP): pyproject.toml | $(UV)
	$(UV) pip install --quiet --python $(BIN)/python -e .
	touch $@

$(STAMP): pyproject.toml | $(UV)
	$(UV) pip install --quiet --python $(BIN)/python -e '.[dev]'
	touch $@ $(DEMO_STAMP)

venv: $(STAMP)

demo: $(DEMO_STAMP)
	$(BIN)/python examples/newsroom/demo.py

# The two layers of tests (tests/conftest.py): `make test-fast` runs the fast layer (no subprocess, no
# server: 1 404 tests), `make test` both layers (2 250), ruff and the coverage gates.
#
# Coverage starts before pytest (`coverage run`), not from pytest-cov (`pytest --cov`): pytest imports
# its entry-point plugins, dispatchguard's own (dispatchguard.verify.pytest_plugin) among them, before
# pytest-cov starts measuring, which left the package's import unmeasured (module-not-measured).
# The xdist workers are subprocesses, measured like the CLI's (`patch = ["subprocess"]`).
# Absolute, so that the CLI and hook tests' subprocesses (run in temporary projects) report here.
test: export COVERAGE_FILE := $(CURDIR)/.coverage
# Bytecode is written and read again, whatever the machine says (this one sets
# PYTHONDONTWRITEBYTECODE): otherwise each of the hundreds of Python processes the tests start
# compiles all it imports (crewai: 6.5 s of CPU instead of 4.1 s) and each xdist worker rewrites the
# asserts of every test module. uv installs no bytecode (pip does): the first import writes it, for
# the modules the tests import only. A fresh clone's `.ci/run`: 8 min 19 s -> 5 min 46 s to 6 min 17 s.
test test-fast: export PYTHONDONTWRITEBYTECODE :=
test: $(STAMP) editors sandbox otel-receiver
	@echo "== ruff (the configuration in pyproject.toml)"
	$(BIN)/ruff check .
	rm -f .coverage .coverage.*
	$(BIN)/python -m coverage run -m pytest -n $(PYTEST_WORKERS) --dist worksteal $(PYTEST_ARGS)
	$(BIN)/python -m coverage combine --quiet
	@echo "== coverage gate: the runtime (branch coverage >= 95%)"
	$(BIN)/dispatchguard coverage --quiet --fail-under 95 --include 'src/dispatchguard/runtime/**/*.py'
	@echo "== coverage gate: the linter core (branch coverage >= 90%)"
	$(BIN)/dispatchguard coverage --quiet --fail-under 90 --include 'src/dispatchguard/lint/**/*.py'
	@echo "== coverage gate: the whole package (branch coverage >= 90%)"
	$(BIN)/dispatchguard coverage --quiet --fail-under 90 --include 'src/dispatchguard/**/*.py'

# One process: two xdist workers each collect the whole suite (about 25 s of CPU), more than they
# save on this layer (measured: 37 s one process, 55 s two workers, 2 cores).
test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not integration" $(PYTEST_ARGS)

# The programs the tests drive besides Python's: Debian's Neovim (0.7, the oldest the editor docs
# support) for the headless editor test, installed only when running as root (CI); where it cannot be
# installed that test says it is skipped.
editors:
	@command -v nvim >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
		&& (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim) >/dev/null 2>&1; } \
		|| echo "== nvim could not be installed: the Neovim test will be skipped"

# Debian's bubblewrap, the namespace sandbox of `dispatchguard verify` (tests/verify/test_isolation.py
# runs each attack under it and under the fallback seal), installed only when running as root (CI);
# where it cannot be installed the namespace half of those tests says it is skipped.
sandbox:
	@command -v bwrap >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
		&& (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap) >/dev/null 2>&1; } \
		|| echo "== bwrap could not be installed: the namespace sandbox tests will be skipped"

# A real OTLP/HTTP receiver for the end-to-end tracing test: Arize Phoenix (a maintained trace
# store with a REST API to read spans back), in an environment of its own because its
# dependencies (mcp 2) clash with ours. Where it cannot be installed that test says it is skipped.
PHOENIX_VENV := .venv-phoenix
PHOENIX_SPEC := arize-phoenix>=20,<21
otel-receiver: $(PHOENIX_VENV)/.installed

$(PHOENIX_VENV)/.installed: | $(UV)
	test -x $(PHOENIX_VENV)/bin/python || $(UV) venv --quiet --python $(PYTHON) $(PHOENIX_VENV)
	$(UV) pip install --quiet --python $(PHOENIX_VENV)/bin/python '$(PHOENIX_SPEC)' \
		&& touch $@ || echo "== Phoenix could not be installed: the OTLP end-to-end test will be skipped"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/dispatchguard check --no-cache .

bench: $(STAMP)
	for script in benchmarks/*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) $(PHOENIX_VENV) .coverage .coverage.* .pytest_cache .hypothesis .dispatchguard_cache
