# Penta: `make run` plays, `make test` checks everything. Each sets itself up in ./.venv.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# The languages with a catalog; English is the language of the messages themselves.
LOCALES := fr fi hu th he

.PHONY: run test lock lint typecheck pytest translations extract strategy bench clean

# Dependencies come from uv.lock, installed by uv (pinned here, itself from PyPI into the venv).
# `make lock` re-resolves after pyproject.toml's dependencies change; --locked refuses a stale lock.
# Installed with their bytecode: where PYTHONDONTWRITEBYTECODE is set (as on our machines) every
# process otherwise compiled what it imported: 6.0 s of CPU to import the app, 2.3 s with it.
UV_VERSION := 0.13.9
UV := $(BIN)/uv
UV_SYNC := UV_PROJECT_ENVIRONMENT=$(VENV) UV_PYTHON_DOWNLOADS=never $(UV) sync --locked --inexact \
	--compile-bytecode

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(UV): | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

$(VENV)/.runtime: pyproject.toml uv.lock | $(UV)
	$(UV_SYNC)
	touch $@

$(VENV)/.dev: pyproject.toml uv.lock $(VENV)/.runtime
	$(UV_SYNC) --extra dev
	touch $@

## Re-resolve uv.lock from pyproject.toml (after adding or changing a dependency).
lock: $(UV)
	UV_PYTHON_DOWNLOADS=never $(UV) lock

## Compile the gettext catalogs (.po → .mo); the .mo files are build output, never committed.
translations: $(VENV)/.runtime
	$(BIN)/pybabel compile --statistics -d app/locales -D messages

## Play: the game on http://$(HOST):$(PORT) with SQLite in ./data.
run: $(VENV)/.runtime translations
	$(BIN)/penta serve --host $(HOST) --port $(PORT)

## axe-core (npm) for the browser tests' accessibility checks, from package-lock.json; without
## npm the checks are skipped and say so.
node_modules/.installed: package.json package-lock.json
	@if command -v npm >/dev/null; then npm ci --no-audit --no-fund && touch $@; \
	else echo "npm not found: tests/browser/test_accessibility.py will be skipped"; fi

## The whole suite: lint, format, types, unit/API/property tests and real-browser tests, each
## test that uses a database on SQLite and on PostgreSQL, spread over one pytest process per
## core and one more (pytest-xdist; TEST_WORKERS=0 runs them in this process): much of the suite
## waits on a browser, a deadline or a server's start, and on two cores three processes took
## 721 s where two took 850 s.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
test: $(VENV)/.dev translations node_modules/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m compileall -q app migrations  # as the image does: the servers start faster
	$(BIN)/python -m pytest -n $(TEST_WORKERS)

## Re-extract the messages of Python code and templates into the template and every catalog
## (a missing catalog is created); tests/i18n checks that each one translates every message.
extract: $(VENV)/.runtime
	$(BIN)/pybabel extract -F babel.cfg -k _ -k N_ -k gettext -k ngettext:1,2 -k N_plural:1,2 \
		-o app/locales/messages.pot --no-location --omit-header .
	for locale in $(LOCALES); do \
		$(BIN)/pybabel update -i app/locales/messages.pot -d app/locales -D messages -l $$locale \
			--init-missing --no-fuzzy-matching --ignore-obsolete --ignore-pot-creation-date || exit 1; \
	done

## Build the optimal strategy's table into the data directory ahead of time.
strategy: $(VENV)/.runtime
	$(BIN)/python -m app.strategy build

## The benchmarks, each printing its figures: the computer player, load against a bare
## FastAPI+SQLite baseline, live-event latency (real uvicorn processes on loopback).
bench: $(VENV)/.dev
	$(BIN)/python bench/strategy.py
	$(BIN)/python bench/load.py
	$(BIN)/python bench/live.py
	$(BIN)/python bench/deadlines.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
