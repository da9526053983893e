# shellcheck shell=bash
# shellcheck disable=SC2154,SC2034 # here, cache and base_work belong to hack/image.sh
# Sourced by hack/image.sh: the base images it builds FROM, assembled on this machine where no
# registry serves the upstream ones. Nothing here retags an upstream name; both live under
# waitgate.local/:
#
#   waitgate.local/debian:bookworm-minbase     `debootstrap --variant=minbase bookworm` from the
#                                              machine's Debian mirror, trimmed as debian:*-slim is
#   waitgate.local/node:<NODE>-bookworm-slim   that, plus the pinned Node (hack/versions.env) in
#                                              /usr/local/bin, npm NPM_VERSION from the npm registry
#                                              in /usr/local/lib/node_modules/npm (npm and npx in
#                                              /usr/local/bin), and the user node (1000:1000,
#                                              /home/node), as the official node image has them
#
# Each carries the label dev.waitgate.base-key: the machine's architecture, the hash of this
# file and, for the node base, the pinned Node and npm versions. Each is saved as an archive in
# $WAITGATE_CACHE/images/base/ under that key, so a machine (or a CI cache) that has the archive
# loads it in seconds instead of running debootstrap again; editing this file builds them anew.
#
# Uses from hack/image.sh: tool, cache, root, log, fail, install_packages, img_exists,
# img_label, img_build, img_save, img_load.

NPM_VERSION=11.21.3
base_dir=$cache/images/base

base_arch() {
  case $(uname -m) in
    x86_64) echo x64 ;;
    aarch64 | arm64) echo arm64 ;;
    *) fail "no pinned Node.js for $(uname -m): cannot assemble the local base image" ;;
  esac
}

base_key() { # debian | node
  local arch hash
  arch=$(base_arch)
  hash=$(sha256sum "$here/image-base.sh" | cut -c1-12)
  case $1 in
    debian) printf 'bookworm-%s-%s' "$arch" "$hash" ;;
    node) printf '%s-npm-%s-%s-%s' "$NODE_VERSION" "$NPM_VERSION" "$arch" "$hash" ;;
  esac
}

base_name() { # debian | node
  case $1 in
    debian) echo waitgate.local/debian:bookworm-minbase ;;
    node) echo "waitgate.local/node:$NODE_VERSION-bookworm-slim" ;;
  esac
}

base_archive() { # debian | node
  echo "$base_dir/$1-$(base_key "$1").tar"
}

# 0 when the base is in the builder's storage with this key, loading it from the cached
# archive first when only that is there.
base_ready() { # debian | node
  local name key archive
  name=$(base_name "$1")
  key=$(base_key "$1")
  [ "$(img_label "$name" dev.waitgate.base-key)" = "$key" ] && return 0
  archive=$(base_archive "$1")
  [ -s "$archive" ] || return 1
  log "loading $name from $archive"
  img_load "$archive" "$name" >&2 || return 1
  [ "$(img_label "$name" dev.waitgate.base-key)" = "$key" ]
}

# The machine's Debian mirror for SUITE (bookworm or bookworm-security): the first URI that
# /etc/apt/sources.list or sources.list.d lists for it, in either format.
debian_mirror() { # suite
  local suite=$1 files=() f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && files+=("$f")
  done
  [ ${#files[@]} -gt 0 ] || return 0
  awk -v suite="$suite" '
    function found(u) { print u; exit }
    FILENAME ~ /\.sources$/ {
      if ($0 ~ /^[[:space:]]*$/) { uris = ""; suites = ""; next }
      if (tolower($1) == "uris:") { uris = $2 }
      if (tolower($1) == "suites:") { suites = " " substr($0, index($0, ":") + 1) " " }
      if (uris != "" && suites ~ ("[[:space:]]" suite "[[:space:]]")) found(uris)
      next
    }
    $1 == "deb" {
      sub(/\[[^]]*\][[:space:]]*/, "")
      if ($3 == suite) found($2)
    }' "${files[@]}"
}

# The local waitgate.local/debian base: debootstrap into a folder, trim it as the slim images
# are (no documentation, manuals or translations; apt keeps no package cache), and add it to an
# empty image.
build_debian_base() {
  local name key mirror security work rootfs
  name=$(base_name debian)
  key=$(base_key debian)
  [ "$(id -u)" = 0 ] || fail "assembling $name needs root (debootstrap); run as root, or where a registry serves debian:bookworm-slim and node:24-bookworm-slim"
  command -v debootstrap >/dev/null 2>&1 || install_packages debootstrap
  mirror=${WAITGATE_DEBIAN_MIRROR:-$(debian_mirror bookworm)}
  mirror=${mirror:-http://deb.debian.org/debian}
  security=$(debian_mirror bookworm-security)
  security=${security:-http://deb.debian.org/debian-security}
  mkdir -p "$base_dir"
  work=$(mktemp -d "$base_dir/work.XXXXXX")
  base_work=$work
  rootfs=$work/rootfs
  log "debootstrap --variant=minbase bookworm from $mirror (log: $base_dir/debootstrap.log)"
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$base_dir/debootstrap.log" 2>&1 ||
    fail "debootstrap failed (see $base_dir/debootstrap.log)"

  # The runtime supplies /dev, /proc, /sys, resolv.conf and the hostname.
  rm -rf "${rootfs:?}"/dev/* "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin \
    "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log "$rootfs"/var/log/apt/* \
    "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/* \
    "$rootfs"/usr/share/groff/* "$rootfs"/usr/share/lintian/* "$rootfs"/usr/share/linda/*
  find "$rootfs/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
  find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
  : >"$rootfs/etc/resolv.conf"
  [ ! -f "$rootfs/etc/hostname" ] || : >"$rootfs/etc/hostname"
  # Packages installed later are trimmed the same way, and start no services while building.
  cat >"$rootfs/etc/dpkg/dpkg.cfg.d/waitgate-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
EOF
  cat >"$rootfs/etc/apt/apt.conf.d/waitgate-slim" <<'EOF'
APT::Install-Recommends "false";
Acquire::Languages "none";
Acquire::GzipIndexes "true";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
EOF
  printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
  chmod 0755 "$rootfs/usr/sbin/policy-rc.d"
  rm -f "$rootfs/etc/apt/sources.list"
  cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF

  mkdir "$work/context"
  tar --numeric-owner -C "$rootfs" -cf "$work/context/rootfs.tar" .
  rm -rf --one-file-system "$rootfs"
  cat >"$work/context/Containerfile" <<'EOF'
FROM scratch
ADD rootfs.tar /
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# debootstrap installs bookworm as released; bookworm-updates and bookworm-security bring it up to date.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get upgrade -y \
 && rm -rf /var/lib/apt/lists/*
CMD ["bash"]
EOF
  # One layer: the upgrade would otherwise keep every file it replaces twice.
  img_build squash -t "$name" --label "dev.waitgate.base-key=$key" -f "$work/context/Containerfile" "$work/context" >&2
  rm -rf --one-file-system "$work"
  base_work=""
}

# The local waitgate.local/node base, FROM the debian one: the pinned Node binary (the one
# hack/install-tools.sh unpacks into the cache, fetched the same way when it is not there) and
# npm as the npm registry serves it.
build_node_base() {
  local name key arch debian node_bin npm_tgz work
  name=$(base_name node)
  key=$(base_key node)
  arch=$(base_arch)
  debian=$(base_name debian)
  mkdir -p "$base_dir"
  work=$(mktemp -d "$base_dir/work.XXXXXX")
  base_work=$work
  node_bin=$cache/node/$NODE_VERSION-$arch/bin/node
  if [ ! -x "$node_bin" ]; then
    log "fetching Node.js $NODE_VERSION (node-linux-$arch from the npm registry)"
    (cd "$work" && npm pack --silent "node-linux-$arch@$NODE_VERSION" >/dev/null && tar xzf ./node-linux-*.tgz) ||
      fail "could not fetch node-linux-$arch@$NODE_VERSION from the npm registry"
    mkdir -p "$(dirname "$node_bin")"
    install -m 0755 "$work/package/bin/node" "$node_bin.tmp"
    mv "$node_bin.tmp" "$node_bin"
    rm -rf "$work/package" "$work"/node-linux-*.tgz
  fi
  npm_tgz=$cache/npm/npm-$NPM_VERSION.tgz
  if [ ! -s "$npm_tgz" ]; then
    log "fetching npm $NPM_VERSION from the npm registry"
    mkdir -p "$cache/npm"
    (cd "$work" && npm pack --silent "npm@$NPM_VERSION" >/dev/null) || fail "could not fetch npm@$NPM_VERSION from the npm registry"
    mv "$work/npm-$NPM_VERSION.tgz" "$npm_tgz"
  fi

  mkdir -p "$work/context/npm"
  install -m 0755 "$node_bin" "$work/context/node"
  tar -xzf "$npm_tgz" -C "$work/context/npm" --strip-components=1 --no-same-owner
  chmod 0755 "$work/context/npm/bin/npm-cli.js" "$work/context/npm/bin/npx-cli.js"
  cat >"$work/context/Containerfile" <<EOF
FROM $debian
ENV NODE_VERSION=$NODE_VERSION
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN groupadd --gid 1000 node \\
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \\
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && node --version && npm --version
CMD ["node"]
EOF
  img_build never -t "$name" --label "dev.waitgate.base-key=$key" -f "$work/context/Containerfile" "$work/context" >&2
  rm -rf --one-file-system "$work"
  base_work=""
}

# Makes sure the builder has the local base: from its storage, from the cached archive, or
# built (and archived) here.
local_base() { # debian | node
  local kind=$1 name archive
  base_ready "$kind" && return 0
  [ "$kind" = debian ] || local_base debian
  name=$(base_name "$kind")
  log "assembling $name (cached in $base_dir)"
  "build_${kind}_base"
  archive=$(base_archive "$kind")
  rm -f "$base_dir/$kind"-*.tar
  log "saving $name to $archive"
  img_save "$name" "$archive.tmp" >&2
  mv "$archive.tmp" "$archive"
}
