#!/usr/bin/env bash
# actionlint, the linter of GitHub Actions workflows that `make lint` runs over
# .github/workflows: built from its Go module (the version in versions.env) into the cache
# outside the clone, only when missing, and linked into the active folder. Prints its path.
# A cold build (empty Go module and build caches) took about 40 s on a 2-core machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
. "$here/versions.env"
cache=${WAITGATE_CACHE:-$HOME/.cache/waitgate}
dir=$cache/bin/actionlint-$ACTIONLINT_VERSION
if [ ! -x "$dir/actionlint" ]; then
  command -v go >/dev/null 2>&1 || { echo "install-actionlint: go is required to build actionlint" >&2; exit 1; }
  echo "install-actionlint: building actionlint $ACTIONLINT_VERSION from its Go module" >&2
  GOBIN="$dir" GOFLAGS=-modcacherw go install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION" >&2
fi
mkdir -p "$cache/bin/active"
ln -sfn "$dir/actionlint" "$cache/bin/active/actionlint"
echo "$dir/actionlint"
