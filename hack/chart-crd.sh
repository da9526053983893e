#!/usr/bin/env bash
# Copies the generated CRD (crds/*.yaml, made by `npm run gen:crd`) into the Helm chart's
# crds/ folder, byte for byte. Helm installs what is in charts/waitgate/crds/ before
# anything else on `helm install` (and never touches it on upgrade; see docs/helm.md).
#
#   hack/chart-crd.sh           copy
#   hack/chart-crd.sh --check   exit 1, naming the file, if the chart's copy differs
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/crds
dst=$root/charts/waitgate/crds
mode=${1:-copy}

shopt -s nullglob
files=("$src"/*.yaml)
[ ${#files[@]} -gt 0 ] || { echo "chart-crd: no CRD in $src" >&2; exit 1; }

case "$mode" in
  copy)
    mkdir -p "$dst"
    # Nothing stale: a CRD removed from crds/ leaves the chart too.
    for f in "$dst"/*.yaml; do [ -e "$src/$(basename "$f")" ] || rm -f "$f"; done
    for f in "${files[@]}"; do cp "$f" "$dst/"; done
    echo "chart-crd: copied ${#files[@]} CRD file(s) to charts/waitgate/crds/"
    ;;
  --check)
    rc=0
    for f in "${files[@]}"; do
      if ! cmp -s "$f" "$dst/$(basename "$f")"; then
        echo "chart-crd: charts/waitgate/crds/$(basename "$f") differs from crds/$(basename "$f"); run hack/chart-crd.sh" >&2
        rc=1
      fi
    done
    for f in "$dst"/*.yaml; do
      [ -e "$src/$(basename "$f")" ] || { echo "chart-crd: charts/waitgate/crds/$(basename "$f") has no source in crds/" >&2; rc=1; }
    done
    exit $rc
    ;;
  *)
    echo "usage: hack/chart-crd.sh [--check]" >&2
    exit 2
    ;;
esac
