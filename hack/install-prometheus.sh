#!/usr/bin/env bash
# prometheus, which the e2e test test/e2e/prometheus-dashboard.test.ts runs on loopback to scrape
# a running operator and receiver and answer every dashboard panel's query: built from the same
# Prometheus Go module and version as promtool (versions.env) into the same cache folder, only
# when missing, and linked into the active folder. Prints its path. Built without the
# `builtinassets` tag, so the binary carries no web UI: the test needs only the scrape and
# /api/v1/query.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
. "$here/versions.env"
exec "$here/install-go-tool.sh" prometheus "$PROMETHEUS_VERSION" github.com/prometheus/prometheus/cmd/prometheus prometheus
