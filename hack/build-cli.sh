#!/usr/bin/env bash
# `make cli`: the command line as one file per architecture, dist/release/kubectl-waitgate-linux-x64
# and -linux-arm64 (WAITGATE_CLI_DIR moves them), Node single executable applications that need
# no Node.js on the machine. The CLI is bundled to one CommonJS file (hack/bundle-cli.ts), made
# a SEA blob by the pinned Node (node --experimental-sea-config), and injected with postject
# into the node binary of each architecture, from the npm package node-linux-<arch> at
# NODE_VERSION (hack/versions.env), cached under $WAITGATE_CACHE/sea, never in the clone.
# An executable built from the same bundle and Node is reused from $WAITGATE_CACHE/cli/<hash>.
# Needs `npm run build` first (make cli runs it). The last line is this machine's executable.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cache=${WAITGATE_CACHE:-$HOME/.cache/waitgate}
out=${WAITGATE_CLI_DIR:-$root/dist/release}
# shellcheck source=versions.env
. "$here/versions.env"
[ -f "$root/dist/cli/main.js" ] || { echo "cli: run \`npm run build\` first" >&2; exit 1; }
host_node=$(node --version)
[ "$host_node" = "v$NODE_VERSION" ] || { echo "cli: the SEA blob is made by Node v$NODE_VERSION; this node is $host_node (export PATH=\"$cache/bin/active:\$PATH\")" >&2; exit 1; }

work="$root/dist/sea"
mkdir -p "$work" "$out" "$cache/sea"
node "$root/dist/hack/bundle-cli.js" "$work/waitgate.cjs" >/dev/null
hash=$( (sha256sum <"$work/waitgate.cjs"; echo "node $NODE_VERSION"; sha256sum <"$0") | sha256sum | cut -c1-16)
built="$cache/cli/$hash"

# The node binary of one architecture, from its npm package, unpacked once into the cache.
node_binary() {
  local arch=$1 dir="$cache/sea/node-linux-$1-$NODE_VERSION"
  if [ ! -x "$dir/bin/node" ]; then
    local tgz="$cache/sea/node-linux-$arch-$NODE_VERSION.tgz"
    [ -f "$tgz" ] || (cd "$cache/sea" && npm pack "node-linux-$arch@$NODE_VERSION" --silent >/dev/null)
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    tar -xzf "$tgz" -C "$dir.tmp" --strip-components=1
    [ -x "$dir.tmp/bin/node" ] || { echo "cli: node-linux-$arch@$NODE_VERSION has no bin/node" >&2; exit 1; }
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  echo "$dir/bin/node"
}

if [ ! -f "$built/done" ]; then
  rm -rf "$built.tmp" && mkdir -p "$built.tmp"
  # No code cache and no snapshot: the blob is then the same for both architectures.
  cat >"$built.tmp/sea-config.json" <<JSON
{ "main": "$work/waitgate.cjs", "output": "$built.tmp/sea-prep.blob", "disableExperimentalSEAWarning": true, "useCodeCache": false, "useSnapshot": false }
JSON
  node --experimental-sea-config "$built.tmp/sea-config.json" >/dev/null 2>&1 ||
    { echo "cli: node --experimental-sea-config failed" >&2; node --experimental-sea-config "$built.tmp/sea-config.json"; exit 1; }
  for arch in x64 arm64; do
    exe="$built.tmp/kubectl-waitgate-linux-$arch"
    cp "$(node_binary "$arch")" "$exe"
    chmod u+w "$exe"
    "$root/node_modules/.bin/postject" "$exe" NODE_SEA_BLOB "$built.tmp/sea-prep.blob" \
      --sentinel-fuse NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2 >"$built.tmp/postject.log" 2>&1 ||
      { cat "$built.tmp/postject.log" >&2; echo "cli: postject failed for $arch" >&2; exit 1; }
    chmod 755 "$exe"
  done
  touch "$built.tmp/done"
  rm -rf "$built" && mv "$built.tmp" "$built"
fi
for arch in x64 arm64; do cp "$built/kubectl-waitgate-linux-$arch" "$out/"; done
case $(uname -m) in
  x86_64) mine=x64 ;;
  aarch64 | arm64) mine=arm64 ;;
  *) echo "cli: no executable for $(uname -m)" >&2; exit 1 ;;
esac
echo "built kubectl-waitgate-linux-x64 and -linux-arm64 in $out ($hash)" >&2
echo "$out/kubectl-waitgate-linux-$mine"
