# corpus-mcp: local development and the container lifecycle.
# Two set-up commands on a fresh machine: `make run` and `make test`.

SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# Local runs: a ./corpus folder (with ./corpus.toml) when there is one, else the demo corpus.
DEMO_DIR := $(CURDIR)/.demo-corpus
HAS_LOCAL_CORPUS := $(wildcard corpus/.)
LOCAL_ROOT := $(or $(CORPUS_ROOT),$(if $(HAS_LOCAL_CORPUS),$(CURDIR)/corpus,$(DEMO_DIR)))
LOCAL_CONFIG := $(or $(CORPUS_CONFIG),$(if $(HAS_LOCAL_CORPUS),$(CURDIR)/corpus.toml,$(DEMO_DIR)/corpus.toml))
LOCAL_ENV := CORPUS_ROOT=$(LOCAL_ROOT) CORPUS_CONFIG=$(LOCAL_CONFIG) MCP_HOST=$(or $(MCP_HOST),127.0.0.1)

# Container engine: podman (default) or docker.
ENGINE ?= podman
export ENGINE

.PHONY: help venv run serve demo test lint format validate-corpus corpus-list bench relevance \
        build start stop down restart logs ps clean

help:
	@echo "make run              serve MCP at http://127.0.0.1:8000/mcp (demo corpus if none configured)"
	@echo "make test             run the whole test suite"
	@echo "make lint | format    ruff + mypy strict | ruff format and fixes"
	@echo "make validate-corpus  open and check every enabled library (ENGINE=... for the container image)"
	@echo "make corpus-list      list configured libraries without opening them"
	@echo "make bench relevance  benchmarks and the relevance evaluation"
	@echo "make build start stop down restart logs ps   container lifecycle (ENGINE=podman|docker)"

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $@

venv: $(STAMP)

demo: $(STAMP)
	@if [ "$(LOCAL_ROOT)" = "$(DEMO_DIR)" ] && [ ! -f $(DEMO_DIR)/corpus.toml ]; then \
	  echo "no ./corpus folder: building the demo corpus in $(DEMO_DIR)"; \
	  $(BIN)/python -m corpus_mcp.demo $(DEMO_DIR); fi

run: demo
	$(LOCAL_ENV) $(BIN)/corpus-mcp serve

serve: run

validate-corpus: demo
ifeq ($(origin ENGINE),command line)
	CORPUS_ROOT=$(LOCAL_ROOT) CORPUS_CONFIG=$(LOCAL_CONFIG) container/compose.sh validate
else
	$(LOCAL_ENV) $(BIN)/corpus-mcp validate
endif

corpus-list: demo
ifeq ($(origin ENGINE),command line)
	CORPUS_ROOT=$(LOCAL_ROOT) CORPUS_CONFIG=$(LOCAL_CONFIG) container/compose.sh list
else
	$(LOCAL_ENV) $(BIN)/corpus-mcp list
endif

# The interoperability test drives the server with the TypeScript MCP SDK (needs Node).
INTEROP := tests/interop/node_modules/.package-lock.json

$(INTEROP): tests/interop/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  npm ci --prefix tests/interop --no-audit --no-fund --loglevel=error; \
	else echo "npm not found: the TypeScript SDK interoperability test will be skipped"; fi

test: $(STAMP) $(INTEROP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check src tests scripts container
	$(BIN)/ruff format --check src tests scripts container
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format src tests scripts container
	$(BIN)/ruff check --fix src tests scripts container

bench: $(STAMP)
	$(BIN)/python scripts/bench_fetch.py
	$(BIN)/python scripts/bench_search.py

relevance: $(STAMP)
	$(BIN)/python scripts/relevance.py

build start stop down restart logs ps:
	container/compose.sh $@

clean:
	rm -rf $(DEMO_DIR) .pytest_cache .mypy_cache .ruff_cache .hypothesis
