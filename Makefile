# Penta: `make run` plays, `make test` checks everything. Each sets itself up in ./.venv.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# The languages with a catalog; English is the language of the messages themselves.
LOCALES := fr fi hu th he

.PHONY: run test lint typecheck pytest translations extract strategy bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.runtime: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.dev: pyproject.toml $(VENV)/.runtime
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

## Compile the gettext catalogs (.po → .mo); the .mo files are build output, never committed.
translations: $(VENV)/.runtime
	$(BIN)/pybabel compile --statistics -d app/locales -D messages

## Play: the game on http://$(HOST):$(PORT) with SQLite in ./data.
run: $(VENV)/.runtime translations
	$(BIN)/uvicorn app.main:app --host $(HOST) --port $(PORT) --timeout-graceful-shutdown 5

## The whole suite: lint, format, types, unit/API/property tests and real-browser tests.
test: $(VENV)/.dev translations
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest

## Re-extract the messages of Python code and templates into the template and every catalog
## (a missing catalog is created); tests/i18n checks that each one translates every message.
extract: $(VENV)/.runtime
	$(BIN)/pybabel extract -F babel.cfg -k _ -k N_ -k gettext -k ngettext:1,2 \
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
