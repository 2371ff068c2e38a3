# Eights Ladder: `make run` (the main job) and `make test` (the test suite). See README.md.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3
STAMP := $(VENV)/.installed

.PHONY: run test install demo bench lint clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test]"
	@touch $(STAMP)

install: $(STAMP)

## The main job: set up, play demo matches, print the leaderboard, serve http://127.0.0.1:8000
run: install
	@mkdir -p var
	$(PY) manage.py migrate --noinput
	$(PY) manage.py demo_setup
	@if [ -n "$$CELERY_BROKER_URL" ]; then \
	  echo "== broker $$CELERY_BROKER_URL: web + Celery worker + beat (Procfile); demo matches are queued =="; \
	  ( $(PY) manage.py ladder_run --matches 6 --timeout 900 && $(PY) manage.py leaderboard ) & \
	  PATH="$(abspath $(VENV))/bin:$$PATH" exec $(VENV)/bin/honcho start -f Procfile; \
	else \
	  echo "== no broker: SQLite and in-process tasks; playing 6 demo matches =="; \
	  $(PY) manage.py ladder_run --matches 6 && $(PY) manage.py leaderboard && \
	  echo "== serving http://127.0.0.1:8000 while the ladder keeps playing (Ctrl-C stops) ==" && \
	  PATH="$(abspath $(VENV))/bin:$$PATH" exec $(VENV)/bin/honcho start -f Procfile.dev; \
	fi

## The test suite: needs PostgreSQL and Redis on 127.0.0.1 (see README.md)
test: install
	$(PY) -m pytest
	$(VENV)/bin/lint-imports

bench: install
	$(PY) benchmarks/engine_bench.py
	$(PY) benchmarks/service_bench.py

clean:
	rm -rf $(VENV) var .pytest_cache .hypothesis
