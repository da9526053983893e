#!/usr/bin/env bash
# `make up`: the local cluster and Valkey, the CRD and example ConfigMaps, the operator
# running against them (in the background, logging to .cluster/logs/operator.log), and an
# example HeldJob that waits a few seconds and then runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
state=${WAITGATE_CLUSTER_DIR:-$root/.cluster}
log() { printf 'up: %s\n' "$*" >&2; }

exports=$("$here/cluster-up.sh" | tail -n 2)
eval "$exports"
export PATH="${WAITGATE_CACHE:-$HOME/.cache/waitgate}/bin/active:$PATH"
(cd "$root" && npm run --silent build)

kubectl get namespace waitgate-system >/dev/null 2>&1 || kubectl create namespace waitgate-system >/dev/null
kubectl apply -f "$root/crds/" >/dev/null
kubectl apply -f "$root/examples/profiles-configmap.yaml" -f "$root/examples/triggers-configmap.yaml" >/dev/null

# (Re)start the operator so it runs the code just built.
"$here/cluster-down.sh" --only operator 2>/dev/null || true
log "starting the operator (log: $state/logs/operator.log)"
cd "$root"
setsid nohup node dist/operator/main.js >"$state/logs/operator.log" 2>&1 < /dev/null &
echo $! > "$state/pids/operator.pid"

after=$(date -u -d '+10 seconds' +%Y-%m-%dT%H:%M:%SZ)
kubectl delete heldjob example-deploy -n default --ignore-not-found --wait=true >/dev/null
sed "s/\"AFTER\"/\"$after\"/" "$root/examples/heldjob.yaml" | kubectl apply -f - >/dev/null
log "example HeldJob default/example-deploy waits until $after, then runs"
cat <<TXT

waitgate is running against the local cluster. To watch it:
$(printf '  %s\n' "$exports")
  export PATH=${WAITGATE_CACHE:-$HOME/.cache/waitgate}/bin/active:\$PATH
  kubectl get heldjobs -A -w
Stop everything with: make cluster-down
TXT
