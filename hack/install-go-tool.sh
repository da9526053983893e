#!/usr/bin/env bash
# One Go-built tool into the cache outside the clone: `install-go-tool.sh NAME VERSION PACKAGE`
# builds PACKAGE@VERSION with `go install` into $CACHE/bin/<NAME's folder>-VERSION only when the
# binary is missing, links it into the active folder, and prints its path. A warm cache does
# nothing. The folder is FOLDER if given as a fourth argument, else NAME.
set -euo pipefail
name=$1 version=$2 package=$3 folder=${4:-$1}
cache=${WAITGATE_CACHE:-$HOME/.cache/waitgate}
dir=$cache/bin/$folder-$version
if [ ! -x "$dir/$name" ]; then
  command -v go >/dev/null 2>&1 || { echo "install-$name: go is required to build $name" >&2; exit 1; }
  echo "install-$name: building $name $version from its Go module (once)" >&2
  GOBIN="$dir" GOFLAGS="-modcacherw -mod=mod" go install "$package@$version" >&2
fi
mkdir -p "$cache/bin/active"
ln -sfn "$dir/$name" "$cache/bin/active/$name"
echo "$dir/$name"
