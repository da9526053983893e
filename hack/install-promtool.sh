#!/usr/bin/env bash
# promtool, which `make test` runs over the chart's alerts (test/integration/alert-rules.test.ts):
# built from the Prometheus Go module (the version in versions.env) into the cache outside the
# clone, only when missing, and linked into the active folder. Prints its path. A cold build took
# about 6 minutes on a 2-core machine; a warm cache does nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
. "$here/versions.env"
cache=${WAITGATE_CACHE:-$HOME/.cache/waitgate}
dir=$cache/bin/prometheus-$PROMETHEUS_VERSION
if [ ! -x "$dir/promtool" ]; then
  command -v go >/dev/null 2>&1 || { echo "install-promtool: go is required to build promtool" >&2; exit 1; }
  echo "install-promtool: building promtool $PROMETHEUS_VERSION from its Go module (a few minutes, once)" >&2
  GOBIN="$dir" GOFLAGS="-modcacherw -mod=mod" go install "github.com/prometheus/prometheus/cmd/promtool@$PROMETHEUS_VERSION" >&2
fi
mkdir -p "$cache/bin/active"
ln -sfn "$dir/promtool" "$cache/bin/active/promtool"
echo "$dir/promtool"
