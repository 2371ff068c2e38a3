# Eights Ladder: `make run` (the main job) and `make test` (the test suite). See README.md.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3
STAMP := $(VENV)/.installed

.PHONY: run test test-engine install demo bench lint clean playthroughs messages

$(STAMP): pyproject.toml engine/pyproject.toml engine/setup.py engine/src/eights_engine/_fastplay.c
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ./engine  # the rules engine, its own package (engine/README.md)
	$(PY) -m pip install --quiet -e ".[test]"
	@touch $(STAMP)

# the pages' translations (docs/TRANSLATING.md): each catalogue compiled by msgfmt (Debian's gettext)
MO := $(patsubst %.po,%.mo,$(wildcard locale/*/LC_MESSAGES/*.po))
%.mo: %.po
	@if command -v msgfmt >/dev/null 2>&1; then msgfmt --check -o $@ $<; \
	else echo "msgfmt is missing (install gettext): $< stays uncompiled, the site reads English"; fi

install: $(STAMP) $(MO)

## The main job: set up, start two example HTTP bots, play demo matches, print the leaderboard, serve :8000
run: install
	VENV=$(VENV) bash bin/run

## The test suite: starts PostgreSQL and Redis when installed and down, says what to install when missing (bin/services)
test: install
	bash bin/services
	bash bin/test-engine
	$(PY) -m pytest
	$(VENV)/bin/lint-imports

## The engine package's own tests, in a fresh virtual environment without Django (engine/README.md)
test-engine:
	bash bin/test-engine

## Regenerate the golden playthroughs (engine/tests/playthroughs/) after reviewing a change of engine behaviour
playthroughs: install
	$(PY) -m eights_engine playthroughs --write

bench: install
	$(PY) benchmarks/engine_bench.py
	$(PY) benchmarks/service_bench.py

clean:
	rm -rf $(VENV) var .pytest_cache .hypothesis

## After marking new words for translation: refresh locale/*/LC_MESSAGES/*.po from the code (then translate them)
messages: install
	$(PY) manage.py makemessages -l ru -l bg --ignore='.venv/*' --ignore='var/*' --ignore='tests/*' --ignore='benchmarks/*' --ignore='examples/*' --ignore='build/*' --ignore='*.egg-info/*'
	$(PY) manage.py makemessages -d djangojs -l ru -l bg --ignore='.venv/*' --ignore='var/*' --ignore='tests/*' --ignore='benchmarks/*' --ignore='examples/*' --ignore='build/*' --ignore='*.egg-info/*'
