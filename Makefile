# corpus-mcp: local development and the container lifecycle.
# Two set-up commands on a fresh machine: `make run` and `make test`.

SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# Local runs: the archives in ./corpus (or CORPUS_ROOT) described by ./corpus.toml (or
# CORPUS_CONFIG): the repository ships it for the default layout, in patterns that serve the
# newest snapshot present; `make init FORCE=1` rewrites it for other archives. Without
# ./corpus, the demo corpus and its own manifest.
DEMO_DIR := $(CURDIR)/.demo-corpus
HAS_LOCAL_CORPUS := $(wildcard corpus/.)
LOCAL_ROOT := $(or $(CORPUS_ROOT),$(if $(HAS_LOCAL_CORPUS),$(CURDIR)/corpus,$(DEMO_DIR)))
LOCAL_CONFIG := $(or $(CORPUS_CONFIG),$(if $(filter $(DEMO_DIR),$(LOCAL_ROOT)),$(DEMO_DIR)/corpus.toml,$(CURDIR)/corpus.toml))
LOCAL_ENV := CORPUS_ROOT="$(LOCAL_ROOT)" CORPUS_CONFIG="$(LOCAL_CONFIG)"
INIT_COMMAND := $(BIN)/corpus-mcp init "$(LOCAL_ROOT)" --output "$(LOCAL_CONFIG)"

# Container engine: podman (default) or docker.
ENGINE ?= podman
export ENGINE

.PHONY: help venv run serve demo manifest init test lint format validate-corpus corpus-list index \
        bench soak relevance lock upgrade-lock check-lock build start stop down restart logs ps clean

# What `make help` says agrees with README.md and docs/ (tests/test_docs.py checks that every
# `make` command they name is here, and that every page and section named here exists).
help:
	@echo "corpus-mcp: offline ZIM archives as MCP search and fetch tools. Read README.md first."
	@echo
	@echo "make run              serve MCP at http://127.0.0.1:8000/mcp: ./corpus as ./corpus.toml describes"
	@echo "                      it (the default layout; newest snapshots), else the demo corpus;"
	@echo "                      INIT=1 writes ./corpus.toml for ./corpus first (README.md, \"Quickstart\")"
	@echo "make test             the whole test suite and its coverage gate (the thorough gate where"
	@echo "                      ../shared/zims is present, the gate of what runs without it elsewhere)"
	@echo "make venv             create .venv from the lock (make run and make test do it when needed)"
	@echo
	@echo "The corpus (docs/corpus.md, docs/configuration.md):"
	@echo "make init FORCE=1     rewrite ./corpus.toml for the ZIM archives in ./corpus (corpus-mcp init)"
	@echo "make validate-corpus  open and check every enabled library (ENGINE=... for the container image)"
	@echo "make corpus-list      list configured libraries without opening them"
	@echo "make index            build the section indexes that are missing or stale (every core;"
	@echo "                      INDEX_ARGS='--library NAME --prune'; ENGINE=... for the container)"
	@echo
	@echo "The container (docs/deployment.md):"
	@echo "make build start stop down restart logs ps   container lifecycle (ENGINE=podman|docker)"
	@echo "make start REPLICAS=N N replicas behind HAProxy on the same port (stop/down/logs/ps find them)"
	@echo
	@echo "Development (DEVELOPERS.md; docs/ci.md):"
	@echo "make lint | format    ruff + mypy strict | ruff format and fixes"
	@echo "make lock | upgrade-lock [PACKAGE=x] | check-lock   the dependency lock (docs/ci.md, \"Dependencies\")"
	@echo "make bench [BENCH_ARGS=--quick]  the benchmark: corpus-mcp vs kiwix-serve and bare libzim"
	@echo "                      (docs/performance.md)"
	@echo "make relevance        the development kit's relevance cases, checked against the floor"
	@echo "                      (docs/relevance.md)"
	@echo "make soak [SOAK_ARGS=\"--duration 60\"]  16 clients for 30 min: errors, crashes, memory"
	@echo "make clean            remove the demo corpus and the tools' caches"

# Locked installs: the installer itself first (pip at the version and hash in
# requirements/pip.txt: the pip a Python bundles may resolve an extra of a pinned package
# against the index's newest release and refuse it in hash mode; DEVELOPERS.md, "Installs
# from the lock"), then every package at the version and hash in requirements/ (exported
# from uv.lock), then this package itself without dependencies or build isolation. The
# ranges in pyproject.toml stay for people who install corpus-mcp as a library.
LOCKS := requirements/pip.txt requirements/dev.txt requirements/build.txt
PIP := $(BIN)/python -m pip --disable-pip-version-check
$(STAMP): pyproject.toml $(LOCKS)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --require-hashes --requirement requirements/pip.txt
	$(PIP) install --quiet --require-hashes --requirement requirements/build.txt
	$(PIP) install --quiet --require-hashes --requirement requirements/dev.txt
	$(PIP) install --quiet --no-deps --no-build-isolation --editable .
	@touch $@

venv: $(STAMP)

# The lock: uv.lock resolves pyproject.toml once for every supported Python (3.11-3.13);
# requirements/*.txt are its pip-readable exports (runtime for the image, dev for the venv)
# plus the build backend and the installer (pip). `make lock` after editing dependencies keeps every other pin;
# `make upgrade-lock` moves everything to the newest versions the ranges allow
# (`make upgrade-lock PACKAGE=lxml` moves one). `make check-lock` fails when they disagree.
UV := $(BIN)/uv
LOCK_HEADER := \# Generated by `make lock` from uv.lock: do not edit (docs/ci.md, "Dependencies").
EXPORT = { echo '$(LOCK_HEADER)'; $(UV) export --quiet --frozen --no-header --no-emit-project \
           --format requirements-txt $(1); }
BUILD_REQUIRES := $(BIN)/python -c 'import tomllib; \
  print(*tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"], sep="\n")'
COMPILE = $(UV) pip compile --quiet --universal --python-version 3.11 --generate-hashes \
          --custom-compile-command 'make lock'
UPGRADE ?=

lock: $(STAMP)
	$(UV) lock $(UPGRADE)
	$(call EXPORT) >requirements/runtime.txt
	$(call EXPORT,--extra dev) >requirements/dev.txt
	$(BUILD_REQUIRES) | $(COMPILE) $(UPGRADE) --output-file requirements/build.txt -
	echo pip | $(COMPILE) $(UPGRADE) --output-file requirements/pip.txt -

upgrade-lock:
	$(MAKE) lock UPGRADE="$(if $(PACKAGE),--upgrade-package $(PACKAGE),--upgrade)"

check-lock: $(STAMP)
	$(UV) lock --check
	$(call EXPORT) | diff -u requirements/runtime.txt -
	$(call EXPORT,--extra dev) | diff -u requirements/dev.txt -
	@cp requirements/build.txt $(VENV)/build-check.txt
	$(BUILD_REQUIRES) | $(COMPILE) --output-file $(VENV)/build-check.txt -
	diff -u requirements/build.txt $(VENV)/build-check.txt
	@cp requirements/pip.txt $(VENV)/pip-check.txt
	echo pip | $(COMPILE) --output-file $(VENV)/pip-check.txt -
	diff -u requirements/pip.txt $(VENV)/pip-check.txt

demo: $(STAMP)
	@if [ "$(LOCAL_ROOT)" = "$(DEMO_DIR)" ] && [ ! -f $(DEMO_DIR)/corpus.toml ]; then \
	  echo "no ./corpus folder: building the demo corpus in $(DEMO_DIR)"; \
	  $(BIN)/python -m corpus_mcp.demo $(DEMO_DIR); fi

# Archives without a manifest: write it when asked (make run INIT=1), else say how.
manifest: $(STAMP)
	@if [ "$(LOCAL_ROOT)" != "$(DEMO_DIR)" ] && [ ! -e "$(LOCAL_CONFIG)" ]; then \
	  if [ -n "$(INIT)" ]; then $(INIT_COMMAND); else \
	    echo "no manifest at $(LOCAL_CONFIG) for the archives in $(LOCAL_ROOT); write it with" >&2; \
	    echo "  make init          (runs: corpus-mcp init $(LOCAL_ROOT) --output $(LOCAL_CONFIG))" >&2; \
	    echo "  make run INIT=1    (writes it, then serves)" >&2; \
	    exit 1; fi; fi

init: $(STAMP)
	@if [ "$(LOCAL_ROOT)" = "$(DEMO_DIR)" ]; then \
	  echo "make init: no ./corpus folder; put your ZIM archives in ./corpus or set CORPUS_ROOT" >&2; \
	  exit 1; fi
	@if [ -e "$(LOCAL_CONFIG)" ] && [ -z "$(FORCE)" ]; then \
	  echo "make init: $(LOCAL_CONFIG) exists (nothing was written); it may already describe your" >&2; \
	  echo "archives: make validate-corpus checks it. To replace it with a manifest for the" >&2; \
	  echo "archives in $(LOCAL_ROOT): make init FORCE=1" >&2; \
	  exit 1; fi
	$(INIT_COMMAND) $(if $(FORCE),--force)

run: demo manifest
	$(LOCAL_ENV) $(BIN)/corpus-mcp serve

serve: run

validate-corpus: demo manifest
ifeq ($(origin ENGINE),command line)
	CORPUS_ROOT=$(LOCAL_ROOT) CORPUS_CONFIG=$(LOCAL_CONFIG) container/compose.sh validate
else
	$(LOCAL_ENV) $(BIN)/corpus-mcp validate
endif

# The section indexes of every enabled library that lack one (every core; a killed run
# continues where it stopped): CORPUS_INDEX_DIR, or the container's volume with ENGINE=...
index: demo manifest
ifeq ($(origin ENGINE),command line)
	CORPUS_ROOT=$(LOCAL_ROOT) CORPUS_CONFIG=$(LOCAL_CONFIG) container/compose.sh index
else
	$(LOCAL_ENV) $(BIN)/corpus-mcp index $(INDEX_ARGS)
endif

corpus-list: demo manifest
ifeq ($(origin ENGINE),command line)
	CORPUS_ROOT=$(LOCAL_ROOT) CORPUS_CONFIG=$(LOCAL_CONFIG) container/compose.sh list
else
	$(LOCAL_ENV) $(BIN)/corpus-mcp list
endif

# The interoperability test drives the server with the TypeScript MCP SDK (needs Node).
# Without npm, or when `npm ci` fails (offline), the test is skipped with the reason,
# which npm's own words in $(INTEROP_FAILED) give; `make test` goes on either way.
INTEROP := tests/interop/node_modules/.package-lock.json
INTEROP_FAILED := tests/interop/npm-ci-failed.log

$(INTEROP): tests/interop/package-lock.json
	@rm -f $(INTEROP_FAILED)
	@if ! command -v npm >/dev/null 2>&1; then \
	  echo "npm not found: the TypeScript SDK interoperability test will be skipped"; \
	elif ! npm ci --prefix tests/interop --no-audit --no-fund --loglevel=error \
	    --fetch-retries=1 2>$(INTEROP_FAILED); then \
	  echo "npm ci failed (see $(INTEROP_FAILED)): the TypeScript SDK interoperability test will be skipped"; \
	else rm -f $(INTEROP_FAILED); fi

# COVERAGE= runs the suite without measuring coverage, so without its gate (CI's run on a
# second Python: the gates are checked on the others).
COVERAGE ?= --cov --cov-report=term
test: $(STAMP) $(INTEROP)
	$(BIN)/python -m pytest -q $(COVERAGE)

lint: $(STAMP)
	$(BIN)/ruff check src tests scripts container
	$(BIN)/ruff format --check src tests scripts container
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format src tests scripts container
	$(BIN)/ruff check --fix src tests scripts container

# The benchmark: corpus-mcp against kiwix-serve and bare libzim in one run (DEVELOPERS.md,
# "Measuring"); BENCH_ARGS=--quick for a short look.
bench: $(STAMP)
	$(BIN)/python scripts/bench.py $(BENCH_ARGS)

# The long soak (issue 23): 16 clients for 30 minutes against `serve` with WORKERS=auto,
# counting errors, crashes of serving processes and memory; exit 1 on a crash.
# SOAK_ARGS="--duration 60" for a short look, "--root DIR --config FILE" for another corpus.
soak: $(STAMP)
	$(BIN)/python scripts/soak.py $(SOAK_ARGS)

# The development kit (../shared/eval-dev) end to end: build, serve, score, check the floor.
relevance: $(STAMP)
	$(BIN)/python scripts/relevance.py --check

# REPLICAS=N (given on the command line, so in the environment) runs N replicas behind
# HAProxy (podman-compose.replicas.yml); the other targets find a replica stack by themselves.
build start stop down restart logs ps:
	container/compose.sh $@

clean:
	rm -rf $(DEMO_DIR) .pytest_cache .mypy_cache .ruff_cache .hypothesis
