#!/usr/bin/env bash
# CI smoke test of corpus-mcp replicas behind HAProxy (podman-compose.replicas.yml), run by
# .ci/run after the container smoke test (whose set-up and image it reuses):
#   1. lint: hadolint on HAProxy's Containerfile, the merged compose files against the
#      compose spec (HAProxy's configuration is checked by its image build);
#   2. two replicas and HAProxy started over the demo corpus on a free port through the
#      Makefile's path (REPLICAS=2 container/compose.sh start), HAProxy's checks waited for;
#   3. MCP through the one endpoint (scripts/smoke_client.py: search and fetch in both
#      protocol eras, Host/Origin), then a short load in each era, after which each
#      replica's own log must show searches and fetches: both replicas serve both eras;
#   4. hardening: HAProxy and a replica as non-root, read-only root, no capabilities,
#      no-new-privileges; only HAProxy publishes a port, on 127.0.0.1;
#   5. calls/s through the balancer with 2 replicas; then one replica SIGKILLed under a
#      bounded load (scripts/balancer_load.py): no failed call after HAProxy noticed (its
#      check interval x fall count = 2 s at most; observe layer4 takes a replica out at the
#      first refused connection), with the failures inside that window, the time HAProxy
#      took and the calls it retried on the other replica reported; calls/s with 1 replica;
#      the killed replica started again and back in the pool;
#   6. a graceful stop (make stop): HAProxy's soft stop and the servers' SIGTERM, exit 0.
# Everything is torn down in an EXIT trap, also on failure (after printing the logs).
# Timings on 2 cores: about 2 minutes after the container smoke test (HAProxy's image
# adds about 30 s the first time). The figures are printed in one FIGURES line at the end.
# Set CONTAINER_SMOKE=skip to skip it (e.g. on a machine without apt).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${CONTAINER_SMOKE:-}" == skip ]]; then
  echo "replicas smoke: skipped (CONTAINER_SMOKE=skip)"
  exit 0
fi

readonly SMOKE_NAME="replicas smoke"
readonly REPLICA_COUNT=2
readonly UP_TIMEOUT_SECONDS=90
readonly APP_UID=10001
readonly BALANCER_UID=10002
readonly NOTICE_SECONDS=2 # haproxy.cfg: inter 1s x fall 2
readonly LOAD_CLIENTS=8
readonly LOAD_SECONDS=15
readonly KILL_LOAD_SECONDS=20
readonly KILL_AFTER_SECONDS=6
# shellcheck source=.ci/container-common.sh
source .ci/container-common.sh

teardown() {
  local status=$?
  trap - EXIT
  if [[ $status -ne 0 ]]; then
    echo "== replicas smoke failed (exit $status): logs" >&2
    container/compose.sh logs >&2 2>&1 || true
  fi
  step "tear down"
  local leftovers
  leftovers="$(project_containers)"
  if [[ -n "$leftovers" ]]; then
    # shellcheck disable=SC2086 # one id a line
    podman rm --force --time 5 $leftovers >/dev/null 2>&1 || true
  fi
  REPLICAS=$REPLICA_COUNT container/compose.sh down >/dev/null 2>&1 ||
    echo "replicas smoke: compose down failed" >&2
  step "done (exit $status)"
  exit "$status"
}

project_containers() {
  podman ps --all --quiet --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME" "$@"
}

service_ids() {
  project_containers --filter "label=com.docker.compose.service=$1"
}

balancer_id() {
  local id
  id="$(service_ids haproxy)"
  [[ -n "$id" ]] || fail "no HAProxy container"
  echo "$id"
}

# Replicas HAProxy sees UP, from its stats page (container loopback only, haproxy.cfg).
servers_up() {
  # shellcheck disable=SC2016 # expanded inside the container
  podman exec "$(balancer_id)" bash -c 'exec 3<>/dev/tcp/127.0.0.1/8404 &&
    printf "GET /stats;csv HTTP/1.0\r\n\r\n" >&3 && cat <&3' |
    awk -F, '$1 == "replicas" && $2 ~ /^replica/ && $18 ~ /^UP/ {n++} END {print n + 0}'
}

# Wait until HAProxy sees $1 replicas UP; every container must stay up meanwhile.
wait_servers_up() {
  local wanted="$1" deadline=$((SECONDS + UP_TIMEOUT_SECONDS)) id state
  until [[ "$(servers_up)" -ge "$wanted" ]]; do
    for id in $(project_containers); do
      state="$(podman inspect --format '{{.State.Status}}' "$id")"
      [[ "$state" == running ]] || fail "container $id is $state"
    done
    ((SECONDS < deadline)) || fail "HAProxy did not see $wanted replicas up within $UP_TIMEOUT_SECONDS s"
    sleep 0.5
  done
  echo "HAProxy sees $(servers_up) replicas UP"
}

# "searches fetches" a replica has logged so far.
tool_calls() {
  local log
  log="$(podman logs "$1" 2>&1)"
  echo "$(grep -c 'tool=search outcome=ok' <<<"$log" || true) $(grep -c 'tool=fetch outcome=ok' <<<"$log" || true)"
}

# A short load in one protocol era; every replica must log new searches and fetches.
check_era_reaches_every_replica() {
  local era="$1" id before after
  declare -A counts
  for id in $(service_ids corpus-mcp); do counts[$id]="$(tool_calls "$id")"; done
  "$PYTHON" scripts/balancer_load.py "$URL" --era "$era" --clients 4 --seconds 3 >/dev/null ||
    fail "calls failed in the $era era"
  for id in $(service_ids corpus-mcp); do
    read -r -a before <<<"${counts[$id]}"
    read -r -a after <<<"$(tool_calls "$id")"
    ((after[0] > before[0] && after[1] > before[1])) ||
      fail "replica $id got no search or no fetch in the $era era (${before[*]} -> ${after[*]})"
    echo "ok [$era] replica ${id:0:12}: +$((after[0] - before[0])) searches, +$((after[1] - before[1])) fetches"
  done
}

check_hardening() {
  local balancer replica ports
  balancer="$(balancer_id)"
  replica="$(service_ids corpus-mcp | sed -n 1p)"
  check_locked_down "$balancer" "$BALANCER_UID"
  check_locked_down "$replica" "$APP_UID"
  if podman exec "$replica" touch /corpus/probe 2>/dev/null; then
    fail "the corpus mount of a replica is writable"
  fi
  ports="$(podman port "$balancer")"
  [[ "$ports" == "8000/tcp -> 127.0.0.1:$MCP_PORT" ]] || fail "HAProxy publishes '$ports'"
  for replica in $(service_ids corpus-mcp); do
    [[ -z "$(podman port "$replica")" ]] || fail "replica $replica publishes a port"
  done
  echo "hardening: HAProxy uid $BALANCER_UID and replicas uid $APP_UID, read-only roots, CapEff 0," \
    "NoNewPrivs 1; only 127.0.0.1:$MCP_PORT published"
}

# The JSON summary (last line) of a balancer_load.py run saved in $1, field $2.
summary_field() {
  tail -1 "$1" | "$PYTHON" -c "import json, sys; print(json.load(sys.stdin)['$2'])"
}

# calls/s through the balancer, into THROUGHPUT; the load's report is printed.
measure_throughput() {
  local label="$1" out=".container/load-$1.log"
  "$PYTHON" scripts/balancer_load.py "$URL" --clients "$LOAD_CLIENTS" --seconds "$LOAD_SECONDS" |
    tee "$out" || fail "calls failed through the balancer with $label"
  THROUGHPUT="$(summary_field "$out" calls_per_second)"
}

# SIGKILL one replica under load; HAProxy's log then tells when it noticed and what it retried.
kill_one_replica() {
  local victim="$1" out=".container/load-kill.log" killed_at noticed_at
  "$PYTHON" scripts/balancer_load.py "$URL" --clients "$LOAD_CLIENTS" --seconds "$KILL_LOAD_SECONDS" \
    --event-after "$KILL_AFTER_SECONDS" --notice "$NOTICE_SECONDS" \
    --event "podman kill --signal KILL $victim" | tee "$out" ||
    fail "calls failed after HAProxy noticed the killed replica (or the kill failed)"
  FAILED_IN_WINDOW="$(summary_field "$out" failed_in_notice_window)"
  FAILED_TOTAL="$(summary_field "$out" failed)"
  killed_at="$(summary_field "$out" event_unix_time)"
  local log
  log="$(podman logs --timestamps --since "${killed_at%.*}" "$(balancer_id)" 2>&1)"
  noticed_at="$(grep -m1 ' is DOWN' <<<"$log" | awk '{print $1}')"
  [[ -n "$noticed_at" ]] || fail "HAProxy never marked the killed replica DOWN"
  NOTICED_MS="$("$PYTHON" -c "
from datetime import datetime
noticed = datetime.fromisoformat('$noticed_at'.replace('Z', '+00:00')[:26] + '+00:00')
print(round((noticed.timestamp() - $killed_at) * 1000))")"
  RETRIED="$(grep -c '"POST /mcp' <<<"$log" || true)"
  echo "HAProxy marked the replica DOWN ${NOTICED_MS} ms after the kill:"
  grep -m1 ' is DOWN' <<<"$log" | cut -d' ' -f2-
  echo "requests HAProxy logged as abnormal (retried or redispatched) since the kill: $RETRIED"
  grep '"POST /mcp' <<<"$log" | cut -d' ' -f2- || true
  # httplog: the five timers (Tq/Tw/Tc/Tr/Ta), then the status the client got.
  if grep '"POST /mcp' <<<"$log" | grep -Eq '(-?[0-9]+/){4}\+?-?[0-9]+ 5[0-9]{2} '; then
    fail "HAProxy answered a call with a 5xx status after the kill"
  fi
}

main() {
  setup_podman

  step "lint HAProxy's Containerfile (hadolint) and the merged compose files (compose spec)"
  hadolint container/haproxy/Containerfile
  podman-compose -f podman-compose.yml -f podman-compose.replicas.yml config >.container/replicas-compose.yml 2>/dev/null
  check-jsonschema --builtin-schema vendor.compose-spec .container/replicas-compose.yml

  demo_corpus

  export ENGINE=podman COMPOSE_PROJECT_NAME=corpus-mcp-replicas-smoke REPLICAS=$REPLICA_COUNT
  export CORPUS_ROOT="$DEMO_DIR" CORPUS_CONFIG="$DEMO_DIR/corpus.toml"
  MCP_PORT="$(free_port)"
  export MCP_PORT
  URL="http://127.0.0.1:$MCP_PORT/mcp"
  trap teardown EXIT
  container/compose.sh down >/dev/null 2>&1 || true # leftovers of an interrupted run

  step "build and start $REPLICA_COUNT replicas behind HAProxy on 127.0.0.1:$MCP_PORT (make start REPLICAS=$REPLICA_COUNT)"
  container/compose.sh start >.container/replicas-start.log 2>&1 ||
    { tail -40 .container/replicas-start.log >&2; fail "build or start failed (.container/replicas-start.log)"; }
  podman image prune --force --filter label=org.opencontainers.image.title=corpus-mcp-haproxy >/dev/null
  [[ "$(service_ids corpus-mcp | wc -l)" -eq $REPLICA_COUNT ]] || fail "not $REPLICA_COUNT replicas"
  wait_servers_up "$REPLICA_COUNT"

  step "MCP through the balancer: search and fetch in both protocol eras"
  "$PYTHON" scripts/smoke_client.py "$URL"
  check_era_reaches_every_replica modern
  check_era_reaches_every_replica legacy

  step "hardening"
  check_hardening
  container/compose.sh ps

  step "calls/s through the balancer with $REPLICA_COUNT replicas ($LOAD_CLIENTS clients, $LOAD_SECONDS s)"
  local two_replicas one_replica victim
  measure_throughput "$REPLICA_COUNT-replicas"
  two_replicas="$THROUGHPUT"

  step "SIGKILL one replica under load ($LOAD_CLIENTS clients, $KILL_LOAD_SECONDS s, kill at $KILL_AFTER_SECONDS s)"
  victim="$(service_ids corpus-mcp | tail -1)"
  kill_one_replica "$victim"

  step "calls/s through the balancer with the one replica left"
  measure_throughput 1-replica
  one_replica="$THROUGHPUT"

  step "the killed replica started again and back in the pool"
  podman start "$victim" >/dev/null
  wait_servers_up "$REPLICA_COUNT"
  "$PYTHON" scripts/smoke_client.py "$URL" >/dev/null || fail "MCP calls fail after the replica rejoined"

  step "graceful stop (make stop)"
  container/compose.sh stop >/dev/null 2>&1
  local id code
  for id in $(project_containers); do
    code="$(podman inspect --format '{{.State.ExitCode}}' "$id")"
    [[ "$code" == 0 ]] || fail "container $id exited with $code on stop"
  done
  echo "HAProxy and the replicas stopped with exit code 0"

  echo "FIGURES: calls/s through HAProxy: $one_replica with 1 replica, $two_replicas with 2;" \
    "replica SIGKILLed under load: $FAILED_TOTAL failed calls ($FAILED_IN_WINDOW within the" \
    "${NOTICE_SECONDS} s notice window), HAProxy noticed after $NOTICED_MS ms and retried $RETRIED calls"
}

main "$@"
