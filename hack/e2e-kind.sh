#!/usr/bin/env bash
# `make e2e-kind`: the same end-to-end suite against a kind cluster, where Docker exists.
# Needs docker and kind on PATH (this project's own machines have no Docker engine, so this
# path is not run in CI; everything it wraps is).
#
# It builds the image, creates a kind cluster, loads the image, installs the chart, starts a
# local valkey-server 9 (hack/install-tools.sh installs it), and runs the e2e suite with that cluster's KUBECONFIG. Tests that pick
# a Pod's exit code through kwok's annotation need kwok's fake nodes; on kind, run kwok in
# the cluster (kwok's own docs) or expect those to be skipped by their own checks.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
for cmd in docker kind; do
  command -v "$cmd" >/dev/null || { echo "e2e-kind: $cmd is required (Docker is not available on every machine)" >&2; exit 1; }
done
cluster=${WAITGATE_KIND_CLUSTER:-waitgate-e2e}
image=ghcr.io/waitgate/waitgate:e2e
bin=$("$here/install-tools.sh" | tail -n 1)
export PATH="$bin:$PATH"

docker build -t "$image" "$root"
kind get clusters | grep -qx "$cluster" || kind create cluster --name "$cluster"
kind load docker-image "$image" --name "$cluster"
export KUBECONFIG=$root/.cluster-kind/kubeconfig
mkdir -p "$(dirname "$KUBECONFIG")"
kind get kubeconfig --name "$cluster" > "$KUBECONFIG"
kubectl apply -f "$root/crds/"
kubectl create namespace waitgate-system --dry-run=client -o yaml | kubectl apply -f -
helm upgrade --install waitgate "$root/charts/waitgate" -n waitgate-system \
  --set image.repository=ghcr.io/waitgate/waitgate --set image.tag=e2e --set valkey.url=redis://127.0.0.1:36903 --set crds.enabled=false

valkey-server --bind 127.0.0.1 --port 36903 --save '' --appendonly no --daemonize yes
trap 'redis-cli -p 36903 shutdown nosave >/dev/null 2>&1 || true' EXIT
export VALKEY_URL=redis://127.0.0.1:36903
(cd "$root" && npm run --silent build && NODE_OPTIONS=--experimental-vm-modules npx jest --selectProjects e2e)
