# shellcheck shell=bash
# Shared by the container smoke tests (.ci/container-smoke.sh, .ci/replicas-smoke.sh): sourced
# from the repository's root after SMOKE_NAME is set. Progress lines, failures, free ports,
# podman's set-up, the demo corpus, and the hardening every container of ours must show.

readonly STARTED=$SECONDS
readonly DEMO_DIR="$PWD/.container/demo-corpus"
PYTHON="$PWD/.venv/bin/python"

step() { echo "== $SMOKE_NAME [$((SECONDS - STARTED)) s] $*"; }
fail() {
  echo "$SMOKE_NAME: FAILED: $*" >&2
  exit 1
}

free_port() {
  "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# podman on this machine (container/podman-host-setup.sh: packages, tools, the debootstrapped
# base image; cached between runs), exported into the caller's environment.
setup_podman() {
  step "set up podman (packages, tools, base image)"
  eval "$(container/podman-host-setup.sh)"
}

# The venv (for the MCP clients) and a fresh demo corpus that uid 10001 can read.
demo_corpus() {
  [[ -x "$PYTHON" ]] || make --silent venv
  step "demo corpus"
  rm -rf "$DEMO_DIR"
  "$PYTHON" -m corpus_mcp.demo "$DEMO_DIR" >/dev/null
  chmod -R a+rX "$DEMO_DIR"
}

# Inside a running container: it runs as uid $2, cannot write its root filesystem, has no
# capabilities and cannot gain privileges.
check_locked_down() {
  local id="$1" expected_uid="$2" uid status
  uid="$(podman exec "$id" id -u)"
  [[ "$uid" == "$expected_uid" ]] || fail "container $id runs as uid $uid, expected $expected_uid"
  [[ "$(podman inspect --format '{{.HostConfig.ReadonlyRootfs}}' "$id")" == true ]] ||
    fail "container $id: the root filesystem is not read-only"
  if podman exec "$id" touch /probe 2>/dev/null; then
    fail "container $id could write to its root filesystem"
  fi
  status="$(podman exec "$id" cat /proc/1/status)"
  grep -Eq '^CapEff:[[:space:]]+0+$' <<<"$status" ||
    fail "container $id: the process has capabilities: $(grep CapEff <<<"$status")"
  grep -Eq '^NoNewPrivs:[[:space:]]+1$' <<<"$status" || fail "container $id: no-new-privileges is not set"
}
