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

# (Re)start the operator and the receiver so they run the code just built.
"$here/cluster-down.sh" --only operator 2>/dev/null || true
"$here/cluster-down.sh" --only receiver 2>/dev/null || true
cd "$root"
log "starting the operator (log: $state/logs/operator.log)"
WAITGATE_METRICS_HOST=127.0.0.1 setsid nohup node dist/operator/main.js >"$state/logs/operator.log" 2>&1 < /dev/null &
echo $! > "$state/pids/operator.pid"

# The receiver's webhook secrets: made once per cluster, kept in the state folder.
[ -s "$state/github-webhook-secret" ] || openssl rand -hex 20 > "$state/github-webhook-secret"
[ -s "$state/gitlab-webhook-token" ] || openssl rand -hex 20 > "$state/gitlab-webhook-token"
chmod 600 "$state/github-webhook-secret" "$state/gitlab-webhook-token"
receiver_port=${WAITGATE_RECEIVER_PORT:-8080}
log "starting the receiver on 127.0.0.1:$receiver_port (log: $state/logs/receiver.log)"
WAITGATE_RECEIVER_HOST=127.0.0.1 WAITGATE_RECEIVER_PORT=$receiver_port WAITGATE_RECEIVER_METRICS_HOST=127.0.0.1 \
WAITGATE_GITHUB_WEBHOOK_SECRET=$(cat "$state/github-webhook-secret") \
WAITGATE_GITLAB_WEBHOOK_TOKEN=$(cat "$state/gitlab-webhook-token") \
  setsid nohup node dist/receiver/main.js >"$state/logs/receiver.log" 2>&1 < /dev/null &
echo $! > "$state/pids/receiver.pid"

after=$(date -u -d '+10 seconds' +%Y-%m-%dT%H:%M:%SZ)
kubectl delete heldjob example-deploy -n default --ignore-not-found --wait=true >/dev/null
sed "s/\"AFTER\"/\"$after\"/" "$root/examples/heldjob.yaml" | kubectl apply -f - >/dev/null
log "example HeldJob default/example-deploy waits until $after, then runs"
cat <<TXT

waitgate is running against the local cluster. To watch it:
$(printf '%s\n' "$exports" | sed 's/^/  /')
  export PATH=${WAITGATE_CACHE:-$HOME/.cache/waitgate}/bin/active:\$PATH
  kubectl get heldjobs -A -w
The receiver listens on http://127.0.0.1:$receiver_port (POST /webhooks/github, /webhooks/gitlab);
its GitHub secret is in $state/github-webhook-secret. Send a signed test delivery with:
  hack/send-delivery.sh waitgate:deploy acme/web 7
Stop everything with: make cluster-down
TXT
