#!/usr/bin/env bash
# Writes the chart's CRD template (charts/waitgate/templates/crd-<plural>.yaml) from the
# generated CRD (crds/*.yaml, made by `npm run gen:crd`): the same spec, byte for byte, under
# metadata the chart adds (its labels, and `helm.sh/resource-policy: keep` unless crds.keep is
# false), all behind crds.enabled. The CRD lives in templates/ rather than the chart's crds/
# folder so that `helm upgrade` brings a changed CRD (Helm installs crds/ once and never again).
#
#   hack/chart-crd.sh           write
#   hack/chart-crd.sh --check   exit 1, naming the file, if the chart's template differs
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/crds
dst=$root/charts/waitgate/templates
mode=${1:-write}

shopt -s nullglob
files=("$src"/*.yaml)
[ ${#files[@]} -gt 0 ] || { echo "chart-crd: no CRD in $src" >&2; exit 1; }

# The template for one generated CRD file, on stdout.
render() {
  local f=$1 name
  name=$(sed -n 's/^  name: //p' "$f" | head -n 1)
  [ -n "$name" ] || { echo "chart-crd: no metadata.name in $f" >&2; exit 1; }
  grep -q '{{' "$f" && { echo "chart-crd: $f holds '{{', which Helm would read as a template" >&2; exit 1; }
  cat <<EOF
{{- /* Written by hack/chart-crd.sh from crds/$(basename "$f"). Do not edit. */ -}}
{{- if .Values.crds.enabled }}
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: $name
  labels:
    {{- include "waitgate.labels" . | nindent 4 }}
  {{- if .Values.crds.keep }}
  annotations:
    # helm uninstall leaves the CRD, and with it every object of its kind, in place.
    helm.sh/resource-policy: keep
  {{- end }}
EOF
  # Everything from spec: on, as generated.
  sed -n '/^spec:/,$p' "$f"
  echo '{{- end }}'
}

target() { echo "$dst/crd-$(sed -n 's/^    plural: //p' "$1" | head -n 1).yaml"; }

case "$mode" in
  write)
    for f in "${files[@]}"; do render "$f" > "$(target "$f")"; done
    echo "chart-crd: wrote ${#files[@]} CRD template(s) to charts/waitgate/templates/"
    ;;
  --check)
    rc=0
    for f in "${files[@]}"; do
      t=$(target "$f")
      if ! cmp -s <(render "$f") "$t"; then
        echo "chart-crd: charts/waitgate/templates/$(basename "$t") does not match crds/$(basename "$f"); run hack/chart-crd.sh" >&2
        rc=1
      fi
    done
    exit $rc
    ;;
  *)
    echo "usage: hack/chart-crd.sh [--check]" >&2
    exit 2
    ;;
esac
