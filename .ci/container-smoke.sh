#!/usr/bin/env bash
# CI smoke test of the real container, run by .ci/run after the tests:
#   1. podman set up on this machine (container/podman-host-setup.sh: packages, tools, the
#      debootstrapped base image; cached between runs);
#   2. lint: hadolint on the Containerfile, the compose file against the compose spec;
#   3. the image built and the stack started over the demo corpus on a free port through the
#      Makefile's path (container/compose.sh start), /healthz polled; the corpus validated
#      and listed in throwaway containers (make validate-corpus ENGINE=podman);
#   4. a real MCP search and fetch through the published port (scripts/smoke_client.py),
#      and the hardening checked from inside: non-root uid, read-only root filesystem, no
#      capabilities, no-new-privileges, the image's healthcheck passing;
#   5. MCP over stdio as docs/deployment.md configures hosts: `podman run -i ... stdio`
#      (hardened, no network) and `container/compose.sh stdio`, each driven by a real
#      client, with nothing but JSON-RPC on stdout;
#   6. a stop that must be graceful (SIGTERM handled, not SIGKILLed after the grace period).
# Everything is torn down in an EXIT trap, also on failure (after printing the logs).
# Timings on 2 cores: about 2 minutes cold (plus apt-get install of podman on a new
# machine), 15-20 s warm.
# Set CONTAINER_SMOKE=skip to skip it (e.g. on a machine without apt).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${CONTAINER_SMOKE:-}" == skip ]]; then
  echo "container smoke: skipped (CONTAINER_SMOKE=skip)"
  exit 0
fi

readonly SMOKE_NAME="container smoke"
readonly HEALTH_TIMEOUT_SECONDS=60
readonly APP_UID=10001
# shellcheck source=.ci/container-common.sh
source .ci/container-common.sh

teardown() {
  local status=$?
  trap - EXIT
  if [[ $status -ne 0 ]]; then
    echo "== container smoke failed (exit $status): service logs" >&2
    container/compose.sh logs >&2 2>&1 || true
  fi
  step "tear down"
  # A container that podman is restarting cannot be removed by compose down: force it.
  local leftovers
  leftovers="$(container_id)"
  if [[ -n "$leftovers" ]]; then
    # shellcheck disable=SC2086 # one id a line
    podman rm --force --time 5 $leftovers >/dev/null 2>&1 || true
  fi
  container/compose.sh down >/dev/null 2>&1 || echo "container smoke: compose down failed" >&2
  step "done (exit $status)"
  exit "$status"
}

container_id() {
  podman ps --all --quiet --filter "label=io.podman.compose.project=$COMPOSE_PROJECT_NAME" \
    --filter "label=com.docker.compose.service=corpus-mcp"
}

# Poll /healthz (podman's own healthchecks need systemd timers, absent here); a server
# that exits during startup fails at once instead of crash-looping under the restart policy.
wait_healthy() {
  local url="$1" deadline=$((SECONDS + HEALTH_TIMEOUT_SECONDS)) id state
  until curl --silent --fail --max-time 2 "$url" >/dev/null 2>&1; do
    id="$(container_id)"
    [[ -n "$id" ]] || fail "no container was created"
    state="$(podman inspect --format '{{.State.Status}} {{.RestartCount}}' "$id")"
    [[ "$state" == "running 0" ]] || fail "the server exited during startup ($state)"
    ((SECONDS < deadline)) || fail "$url not healthy after $HEALTH_TIMEOUT_SECONDS s"
    sleep 0.5
  done
  echo "healthy: $(curl --silent "$url")"
}

# Inside the running container: who it runs as, what it may write, what it may gain.
check_hardening() {
  local id="$1"
  check_locked_down "$id" "$APP_UID"
  if podman exec "$id" touch /opt/venv/probe 2>/dev/null; then
    fail "could write to the root filesystem"
  fi
  podman exec "$id" touch /tmp/probe || fail "the /tmp tmpfs is not writable"
  if podman exec "$id" touch /corpus/probe 2>/dev/null; then
    fail "the corpus mount is writable"
  fi
  podman healthcheck run "$id" || fail "the image's healthcheck fails"
  echo "hardening: uid $APP_UID, read-only root and corpus, CapEff 0, NoNewPrivs 1, healthcheck ok"
}

# The `podman run -i` line for MCP hosts (docs/deployment.md, "The container over stdio"),
# over the smoke's corpus.
podman_run_stdio() {
  podman run -i --rm --read-only --tmpfs /tmp --cap-drop ALL \
    --security-opt no-new-privileges --network none \
    -v "$CORPUS_ROOT:/corpus:ro" -v "$CORPUS_CONFIG:/config/corpus.toml:ro" \
    "localhost/corpus-mcp:${TAG:-latest}" stdio
}

# One initialize, then EOF: the answer comes back, stdout holds JSON-RPC lines only.
check_stdout_is_protocol() {
  local initialize='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"smoke","version":"0"}}}'
  echo "$initialize" | "$@" 2>/dev/null | "$PYTHON" -c '
import json, sys
lines = sys.stdin.read().splitlines()
assert lines, "no answer on stdout"
for line in lines:
    assert json.loads(line)["jsonrpc"] == "2.0", line
print(f"ok stdout: {len(lines)} JSON-RPC line(s), nothing else")' || fail "stdout of '$*' is not only JSON-RPC"
}

main() {
  setup_podman

  step "lint Containerfile (hadolint) and podman-compose.yml (compose spec)"
  hadolint Containerfile
  check-jsonschema --builtin-schema vendor.compose-spec podman-compose.yml

  demo_corpus

  export ENGINE=podman COMPOSE_PROJECT_NAME=corpus-mcp-smoke
  export CORPUS_ROOT="$DEMO_DIR" CORPUS_CONFIG="$DEMO_DIR/corpus.toml"
  MCP_PORT="$(free_port)"
  export MCP_PORT
  trap teardown EXIT
  container/compose.sh down >/dev/null 2>&1 || true # leftovers of an interrupted run

  step "build and start on 127.0.0.1:$MCP_PORT (make start; BASE_IMAGE=$BASE_IMAGE)"
  container/compose.sh start >.container/start.log 2>&1 ||
    { tail -40 .container/start.log >&2; fail "build or start failed (.container/start.log)"; }
  # Superseded images of ours (they carry the final stage's label) go at once; other
  # dangling layers, the build stage's cache among them, only after a week.
  podman image prune --force --filter label=org.opencontainers.image.title=corpus-mcp >/dev/null
  podman image prune --force --filter until=168h >/dev/null
  wait_healthy "http://127.0.0.1:$MCP_PORT/healthz"

  step "validate and list the corpus inside the image (make validate-corpus ENGINE=podman)"
  container/compose.sh validate
  container/compose.sh list

  step "MCP search and fetch through the published port"
  "$PYTHON" scripts/smoke_client.py "http://127.0.0.1:$MCP_PORT/mcp"

  step "hardening"
  local id
  id="$(container_id)"
  [[ -n "$id" ]] || fail "the container is not running"
  check_hardening "$id"
  container/compose.sh ps

  step "MCP over stdio: podman run -i (as docs/deployment.md shows) and container/compose.sh stdio"
  LOG_LEVEL=warning "$PYTHON" scripts/smoke_client.py --stdio bash -c "$(declare -f podman_run_stdio); podman_run_stdio"
  check_stdout_is_protocol podman_run_stdio
  "$PYTHON" scripts/smoke_client.py --stdio container/compose.sh stdio
  check_stdout_is_protocol container/compose.sh stdio

  step "graceful stop"
  local stop_started=$SECONDS exit_code
  container/compose.sh stop >/dev/null 2>&1
  exit_code="$(podman inspect --format '{{.State.ExitCode}}' "$id")"
  echo "stopped in $((SECONDS - stop_started)) s, exit code $exit_code"
  [[ "$exit_code" != 137 ]] || fail "the server ignored SIGTERM and was killed"
}

main "$@"
