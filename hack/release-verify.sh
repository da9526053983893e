#!/usr/bin/env bash
# Checks the versions inside built release artifacts against VERSION: the chart archive's
# Chart.yaml (version and appVersion) and the npm tarball's package.json. Exits 1 naming each
# that differs.
#   hack/release-verify.sh VERSION CHART_TGZ NPM_TGZ
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: hack/release-verify.sh VERSION CHART_TGZ NPM_TGZ" >&2; exit 2; }
version=$1 chart_tgz=$2 npm_tgz=$3
chart_yaml=$(tar -xzOf "$chart_tgz" waitgate/Chart.yaml)
field() { printf '%s\n' "$chart_yaml" | sed -n "s/^$1:[[:space:]]*[\"']\{0,1\}\([^\"'[:space:]]*\).*/\1/p" | head -n 1; }
chart=$(field version)
app=$(field appVersion)
pkg=$(tar -xzOf "$npm_tgz" package/package.json | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).version')
bad=()
[ "$chart" = "$version" ] || bad+=("$chart_tgz: Chart.yaml version ${chart:-(none)}")
[ "$app" = "$version" ] || bad+=("$chart_tgz: Chart.yaml appVersion ${app:-(none)}")
[ "$pkg" = "$version" ] || bad+=("$npm_tgz: package.json version ${pkg:-(none)}")
if [ ${#bad[@]} -gt 0 ]; then
  for b in "${bad[@]}"; do echo "release: $b, not $version" >&2; done
  exit 1
fi
