# latlab: `make up` runs the lab on this machine; `make test` runs every check.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
PY := $(VENV)/bin/python
PY_STAMP := $(VENV)/.installed
TOOLS_STAMP := $(VENV)/.suite-tools
SUITE_FILES := $(wildcard workers/suites/*/suite.toml)
NODE_STAMP := frontend/node_modules/.installed
DIST := frontend/dist/index.html
FRONTEND_SOURCES := $(shell find frontend/src -type f 2>/dev/null) frontend/index.html \
	frontend/vite.config.ts frontend/tsconfig.json

.PHONY: help up test lint pytest frontend-test system system-test openapi clean

help:
	@echo "make up      start the lab (Postgres, Redis, api, workers, dashboard)"
	@echo "make test    linters, type checks, pytest, vitest and the browser test"
	@echo "make openapi regenerate frontend/openapi.json and the typed API client"

system:
	@scripts/bootstrap.sh

system-test:
	@scripts/bootstrap.sh --test

$(PY_STAMP): contract/pyproject.toml workers/pyproject.toml cli/pyproject.toml backend/pyproject.toml stack/pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e contract -e workers -e cli -e 'backend[dev]' -e stack
	touch $@

# The suites' pip packages and go-installed tools ([toolchain] in each suite.toml).
$(TOOLS_STAMP): $(PY_STAMP) $(SUITE_FILES) scripts/toolchain.py
	python3 scripts/toolchain.py install $(abspath $(VENV))/bin/python
	touch $@

$(NODE_STAMP): frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(DIST): $(NODE_STAMP) $(FRONTEND_SOURCES)
	cd frontend && npm run build

up: system $(TOOLS_STAMP) $(DIST)
	$(PY) -m latlab_stack up

lint: $(TOOLS_STAMP) $(NODE_STAMP)
	$(VENV)/bin/ruff check backend contract workers/latlab_workers workers/tests cli stack migrations bench
	$(VENV)/bin/mypy backend/latlab contract/latlab_contract workers/latlab_workers cli/latlab_cli stack/latlab_stack
	$(VENV)/bin/mypy bench
	cd frontend && npm run typecheck

frontend-test: $(NODE_STAMP)
	cd frontend && npm test

# The tests wait far more than they compute: PYTEST_WORKERS labs side by side, each running
# one test file at a time (backend/tests/conftest.py); then, alone, the tests whose
# measurements the others would disturb (marked serial).
PYTEST_WORKERS ?= 4
pytest: $(TOOLS_STAMP) $(DIST)
	$(VENV)/bin/pytest -n $(PYTEST_WORKERS) --dist loadfile -m "not serial"
	$(VENV)/bin/pytest -m serial

test: system-test lint frontend-test pytest

openapi: $(PY_STAMP) $(NODE_STAMP)
	$(PY) -c 'import json; from latlab.main import app; print(json.dumps(app.openapi(), indent=2))' > frontend/openapi.json
	cd frontend && npm run gen:api

clean:
	rm -rf $(VENV) frontend/node_modules frontend/dist
