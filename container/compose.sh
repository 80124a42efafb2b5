#!/usr/bin/env bash
# The container lifecycle behind `make build|start|stop|down|restart|logs|ps` and
# `make validate-corpus|corpus-list|index ENGINE=...`, with podman-compose or docker compose.
#
#   container/compose.sh build|start|stop|down|restart|logs|ps|validate|list|index|stdio
#   REPLICAS=3 container/compose.sh start     (N replicas behind HAProxy)
#
# REPLICAS (1-16) adds podman-compose.replicas.yml: the server replicated, HAProxy on the
# published port. The other commands find a running replica stack by itself (its HAProxy
# container), so `make stop|down|logs|ps|restart` need no REPLICAS; switching between one
# server and replicas goes through `make down`.
#
# ENGINE=podman (default) or docker picks the tool. Host settings (CORPUS_ROOT,
# CORPUS_CONFIG, MCP_PORT, ...; environment or .env) are read by podman-compose.yml itself;
# this script checks the mounts exist first, because a missing bind source is the most
# common first-run error and each tool words it differently (or, for podman-compose without
# create_host_path, silently creates an empty folder). COMPOSE_PROJECT_NAME overrides the
# project name.
set -euo pipefail

readonly SERVICE=corpus-mcp
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly REPO="${HERE%/container}"
readonly COMPOSE_FILE="$REPO/podman-compose.yml"
readonly REPLICAS_FILE="$REPO/podman-compose.replicas.yml"
readonly BALANCER=haproxy
readonly MAX_REPLICAS=16 # HAProxy's server slots (container/haproxy/haproxy.cfg)
ENGINE="${ENGINE:-podman}"

die() {
  echo "compose.sh: $*" >&2
  exit 1
}

# The compose command for $ENGINE, as an array, or a clear message when it is missing.
compose_command() {
  case "$ENGINE" in
    podman)
      command -v podman >/dev/null || die "ENGINE=podman but podman is not installed" \
        "(Debian/Ubuntu: apt-get install podman; or use ENGINE=docker)"
      command -v podman-compose >/dev/null || die "ENGINE=podman but podman-compose is not" \
        "installed (pip install "podman-compose>=1.6"; or use ENGINE=docker)"
      COMPOSE=(podman-compose)
      ;;
    docker)
      command -v docker >/dev/null || die "ENGINE=docker but docker is not installed" \
        "(or use ENGINE=podman)"
      if docker compose version >/dev/null 2>&1; then
        COMPOSE=(docker compose)
      elif command -v docker-compose >/dev/null; then
        COMPOSE=(docker-compose)
      else
        die "ENGINE=docker but neither 'docker compose' (the compose plugin) nor" \
          "docker-compose is installed (or use ENGINE=podman)"
      fi
      ;;
    *) die "unknown ENGINE=$ENGINE; accepted: podman, docker" ;;
  esac
  if [[ -n "${COMPOSE_PROJECT_NAME:-}" ]]; then
    COMPOSE+=(-p "$COMPOSE_PROJECT_NAME")
  fi
  COMPOSE+=(-f "$COMPOSE_FILE")
}

# Containers of this project's $1 service (any state), one id a line. Both compose tools
# label their containers with the project and service names.
service_containers() {
  "$ENGINE" ps --all --quiet --filter "label=com.docker.compose.project=${COMPOSE_PROJECT_NAME:-corpus-mcp}" \
    --filter "label=com.docker.compose.service=$1"
}

# REPLICAS, checked: empty (one server) or a whole number from 1 to MAX_REPLICAS.
checked_replicas() {
  local replicas="${REPLICAS:-}"
  if [[ -n "$replicas" ]] && ! [[ "$replicas" =~ ^[0-9]+$ && "$replicas" -ge 1 && "$replicas" -le "$MAX_REPLICAS" ]]; then
    die "REPLICAS=$replicas: give a whole number from 1 to $MAX_REPLICAS (HAProxy has" \
      "$MAX_REPLICAS server slots), or leave it unset for one server without a balancer"
  fi
  echo "$replicas"
}

# Adds the replicas file when REPLICAS is given or a replica stack exists. `start` refuses
# to switch between one server and replicas over a running stack: both publish MCP_PORT.
# podman-compose acts on the containers its model names, not on what runs, so the other
# commands act on the replicas that exist (REPLICAS is taken as their number).
select_stack() {
  local command="$1" replicas existing_single
  replicas="$(checked_replicas)"
  EXISTING_REPLICAS=0
  if [[ -n "$(service_containers "$BALANCER")" ]]; then
    EXISTING_REPLICAS="$(service_containers "$SERVICE" | wc -l)"
  fi
  existing_single="$(service_containers "$SERVICE")"
  if [[ "$command" == start ]]; then
    if [[ -z "$replicas" && "$EXISTING_REPLICAS" -gt 0 ]]; then
      die "a replica stack (HAProxy and $EXISTING_REPLICAS corpus-mcp replicas) exists:" \
        "'make down' first to start one server, or 'make start REPLICAS=N' to keep replicas"
    fi
    if [[ -n "$replicas" && "$EXISTING_REPLICAS" -eq 0 && -n "$existing_single" ]]; then
      die "a single corpus-mcp server exists: 'make down' first, then 'make start REPLICAS=$replicas'"
    fi
  elif [[ "$EXISTING_REPLICAS" -gt 0 ]]; then
    export REPLICAS="$EXISTING_REPLICAS"
  fi
  if [[ -n "${REPLICAS:-}" ]]; then
    COMPOSE+=(-f "$REPLICAS_FILE")
    STACK_SERVICES=("$SERVICE" "$BALANCER")
  else
    STACK_SERVICES=("$SERVICE")
  fi
}

# The images, once per service: podman-compose builds once per container when no service is
# named (N identical builds for N replicas).
build_images() {
  "${COMPOSE[@]}" build "${STACK_SERVICES[@]}"
}

# One server: `up -d --build`, as ever. Replicas: the images built once, then `up -d`. With
# podman-compose, an existing replica stack is taken down first (with its own number of
# replicas): its recreation of a changed service (a new REPLICAS) leaves a stopped HAProxy
# removed and not started again, and a smaller REPLICAS would leave replicas running.
start() {
  if [[ ${#STACK_SERVICES[@]} -eq 1 ]]; then
    "${COMPOSE[@]}" up -d --build
    return
  fi
  build_images
  if [[ "$ENGINE" == podman && "$EXISTING_REPLICAS" -gt 0 ]]; then
    REPLICAS="$EXISTING_REPLICAS" "${COMPOSE[@]}" down
  fi
  "${COMPOSE[@]}" up -d
}

# Host paths as compose resolves them: relative to the compose file's folder.
host_path() {
  local path="$1"
  [[ "$path" = /* ]] && echo "$path" || echo "$REPO/${path#./}"
}

# A setting as compose sees it: the environment first, then the project's .env file.
setting() {
  local name="$1" default="$2" value
  value="${!name:-}"
  if [[ -z "$value" && -f "$REPO/.env" ]]; then
    value="$(sed -n "s/^[[:space:]]*${name}[[:space:]]*=[[:space:]]*//p" "$REPO/.env" | tail -1)"
    value="${value%\"}" && value="${value#\"}" && value="${value%\'}" && value="${value#\'}"
  fi
  echo "${value:-$default}"
}

check_mounts() {
  local root config
  root="$(host_path "$(setting CORPUS_ROOT ./corpus)")"
  config="$(host_path "$(setting CORPUS_CONFIG ./corpus.toml)")"
  [[ -d "$root" ]] || die "CORPUS_ROOT $root is not a folder: put your ZIM archives in" \
    "./corpus or set CORPUS_ROOT to their folder; it is mounted read-only at /corpus"
  [[ -f "$config" ]] || die "CORPUS_CONFIG $config is not a file: write one for the" \
    "archives with 'make init' (corpus-mcp init), restore the repository's corpus.toml" \
    "(git checkout corpus.toml: the default layout), or set CORPUS_CONFIG to your" \
    "manifest; it is mounted read-only at /config/corpus.toml"
}

image_exists() {
  local image="localhost/corpus-mcp:${TAG:-latest}"
  case "$ENGINE" in
    podman) podman image exists "$image" ;;
    docker) docker image inspect "$image" >/dev/null 2>&1 ;;
  esac
}

# A throwaway container from the image, with the service's mounts and environment.
run_once() {
  image_exists || "${COMPOSE[@]}" build
  "${COMPOSE[@]}" run --rm --no-deps -T "$SERVICE" "$@"
}

# MCP over stdio in a throwaway container, for MCP hosts that start a command: stdout is
# the protocol, so a build (first use only) reports on stderr.
stdio() {
  image_exists || "${COMPOSE[@]}" build >&2
  exec "${COMPOSE[@]}" run --rm --no-deps -T "$SERVICE" stdio
}

main() {
  [[ $# -eq 1 ]] || die "usage: compose.sh build|start|stop|down|restart|logs|ps|validate|list|index|stdio"
  compose_command
  case "$1" in
    build | start | stop | down | restart | logs | ps) select_stack "$1" ;;
  esac
  case "$1" in
    build) build_images ;;
    start) check_mounts && start ;;
    stop) "${COMPOSE[@]}" stop ;;
    down) "${COMPOSE[@]}" down ;;
    restart) check_mounts && "${COMPOSE[@]}" restart ;;
    logs) "${COMPOSE[@]}" logs --tail=200 "${STACK_SERVICES[@]}" ;;
    ps) "${COMPOSE[@]}" ps ;;
    validate) check_mounts && run_once validate ;;
    list) check_mounts && run_once list ;;
    index) check_mounts && run_once index ;;
    stdio) check_mounts && stdio ;;
    *) die "unknown target '$1'; accepted: build start stop down restart logs ps validate list index stdio" ;;
  esac
}

main "$@"
