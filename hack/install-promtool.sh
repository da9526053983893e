#!/usr/bin/env bash
# promtool, which `make test` runs over the chart's alerts (test/integration/alert-rules.test.ts):
# built from the Prometheus Go module (the version in versions.env) into the cache outside the
# clone, only when missing, and linked into the active folder. Prints its path. A cold build took
# about 6 minutes on a 2-core machine; a warm cache does nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
. "$here/versions.env"
exec "$here/install-go-tool.sh" promtool "$PROMETHEUS_VERSION" github.com/prometheus/prometheus/cmd/promtool prometheus
