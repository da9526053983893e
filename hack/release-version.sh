#!/usr/bin/env bash
# Prints the release's one version: package.json's "version", after checking that the chart's
# version and appVersion (the image tag) are the same. Exits 1, naming each, when they are not.
#   hack/release-version.sh [ROOT]   (default: this clone)
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
pkg=$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).version' "$root/package.json")
chart_field() { sed -n "s/^$1:[[:space:]]*[\"']\{0,1\}\([^\"'[:space:]]*\).*/\1/p" "$root/charts/waitgate/Chart.yaml" | head -n 1; }
chart=$(chart_field version)
app=$(chart_field appVersion)
if [ "$pkg" != "$chart" ] || [ "$pkg" != "$app" ]; then
  echo "release: versions disagree: package.json $pkg, Chart.yaml version ${chart:-(none)}, appVersion ${app:-(none)}; set all three to one version" >&2
  exit 1
fi
echo "$pkg"
