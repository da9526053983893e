#!/usr/bin/env bash
# `make up`: the local cluster, and waitgate on it as users run it. Where the machine can run
# containers (the local cluster has its real node), it builds the image from this checkout and
# the trial Valkey's (hack/image.sh), loads both into the real node, and installs the chart
# into waitgate-system: the operator with two replicas, the receiver and a trial Valkey, their
# Pods on the real node (hack/cluster/up-values.yaml). The receiver's Service is forwarded to
# 127.0.0.1:8080, and an example HeldJob waits a few seconds, runs, and ends Succeeded.
#
# Where the machine cannot run containers it says so in one line, and the operator and the
# receiver run as processes on this machine instead (logs in .cluster/logs/).
#
#   WAITGATE_RECEIVER_PORT   the local port the receiver is reached on (default 8080)
#   WAITGATE_UP_HOST=1       run the processes on the machine even where containers can run
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
state=${WAITGATE_CLUSTER_DIR:-$root/.cluster}
log() { printf 'up: %s\n' "$*" >&2; }
started=$(date +%s)
release=waitgate
ns=waitgate-system
receiver_port=${WAITGATE_RECEIVER_PORT:-8080}

exports=$("$here/cluster-up.sh" | tail -n 2)
eval "$exports"
export PATH="${WAITGATE_CACHE:-$HOME/.cache/waitgate}/bin/active:$PATH"
(cd "$root" && npm run --silent build)

# The receiver's webhook secrets: made once per cluster, kept in the state folder.
[ -s "$state/github-webhook-secret" ] || openssl rand -hex 20 > "$state/github-webhook-secret"
[ -s "$state/gitlab-webhook-token" ] || openssl rand -hex 20 > "$state/gitlab-webhook-token"
chmod 600 "$state/github-webhook-secret" "$state/gitlab-webhook-token"

stop_pidfile() { # name match
  local pidfile=$state/pids/$1.pid pid
  [ -s "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- "$2"; then
    kill -TERM "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

# Waits until the example HeldJob ends (at most two minutes) and shows it.
example_hold() {
  local after phase deadline
  after=$(date -u -d '+10 seconds' +%Y-%m-%dT%H:%M:%SZ)
  kubectl delete heldjob example-deploy -n default --ignore-not-found --wait=true >/dev/null
  kubectl apply -f - >/dev/null <<YAML
apiVersion: waitgate.dev/v1alpha1
kind: HeldJob
metadata: { name: example-deploy, namespace: default }
spec:
  target: acme/example#1
  trigger: deploy
  waitFor:
    - after: "$after"
  job:
    backoffLimit: 0
    template:
      spec:
        restartPolicy: Never
        containers:
          - name: deploy
            image: busybox:1.36
            imagePullPolicy: IfNotPresent
            command: ["sh", "-c", "echo deploying \$WAITGATE_TARGET"]
YAML
  log "example HeldJob default/example-deploy waits until $after, then runs"
  deadline=$(( $(date +%s) + 120 ))
  phase=""
  while [ "$(date +%s)" -lt "$deadline" ]; do
    phase=$(kubectl get heldjob example-deploy -n default -o jsonpath='{.status.phase}' 2>/dev/null || true)
    case $phase in Succeeded | Failed | Refused) break ;; esac
    sleep 1
  done
  kubectl get heldjob example-deploy -n default >&2 || true
  [ "$phase" = Succeeded ] || log "WARNING: the example HeldJob is ${phase:-not started} after two minutes (kubectl describe heldjob example-deploy)"
}

# --- as users run it: the image and the chart, Pods on the real node -----------------------
up_in_cluster() {
  local image_tar valkey_tar version
  version=$("$here/release-version.sh")
  image_tar=$("$here/image.sh" | tail -n 1)
  valkey_tar=$("$here/image.sh" valkey | tail -n 1)
  "$here/cluster/real-node.sh" load "$image_tar" "$valkey_tar"
  local valkey_ref valkey_repo valkey_tag
  valkey_ref=$("$here/cluster/real-node.sh" name "$valkey_tar")
  valkey_repo=${valkey_ref%:*}
  valkey_tag=${valkey_ref##*:}

  # Host processes from an earlier `make up` on this cluster go.
  "$here/cluster-down.sh" --only operator 2>/dev/null || true
  "$here/cluster-down.sh" --only receiver 2>/dev/null || true

  kubectl get namespace "$ns" >/dev/null 2>&1 || kubectl create namespace "$ns" >/dev/null
  # Every Pod of these namespaces goes to the real node (the apiserver's PodNodeSelector and
  # PodTolerationRestriction plugins add the selector and the toleration), the chart's own and
  # the Jobs it launches alike, with no value of the chart involved.
  local n
  for n in "$ns" default; do
    kubectl annotate namespace "$n" --overwrite >/dev/null \
      'scheduler.alpha.kubernetes.io/node-selector=waitgate.dev/real-node=true' \
      'scheduler.alpha.kubernetes.io/defaultTolerations=[{"key":"waitgate.dev/real-node","operator":"Equal","value":"true","effect":"NoSchedule"}]'
  done
  kubectl -n "$ns" create secret generic waitgate-webhooks \
    --from-file=github-webhook-secret="$state/github-webhook-secret" \
    --from-file=gitlab-webhook-token="$state/gitlab-webhook-token" \
    --dry-run=client -o yaml | kubectl apply -f - >/dev/null

  log "installing the chart (image ghcr.io/waitgate/waitgate:$version, trial Valkey $valkey_ref)"
  # cluster-up applied the CRD before the chart existed here; the chart takes it over.
  helm upgrade --install "$release" "$root/charts/waitgate" -n "$ns" --take-ownership \
    -f "$here/cluster/up-values.yaml" \
    --set image.tag="$version" --set image.pullPolicy=Never \
    --set valkey.image.repository="$valkey_repo" --set valkey.image.tag="$valkey_tag" \
    --set valkey.image.pullPolicy=Never \
    --set receiver.existingSecret=waitgate-webhooks \
    --wait --timeout 5m >"$state/logs/helm-install.log" 2>&1 || {
    log "helm install failed; its output:"
    cat "$state/logs/helm-install.log" >&2
    kubectl -n "$ns" get pods -o wide >&2 || true
    exit 1
  }
  kubectl -n "$ns" rollout status deployment --timeout=3m >/dev/null

  # The receiver's Service, on this machine's loopback.
  stop_pidfile receiver-forward "port-forward"
  setsid nohup kubectl -n "$ns" port-forward --address 127.0.0.1 "svc/$release-receiver" "$receiver_port:80" \
    >"$state/logs/receiver-forward.log" 2>&1 < /dev/null &
  echo $! > "$state/pids/receiver-forward.pid"
  local deadline=$(( $(date +%s) + 30 ))
  until python3 -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$receiver_port/healthz', timeout=2)" 2>/dev/null; do
    [ "$(date +%s)" -lt "$deadline" ] || { log "the receiver's port-forward did not answer; see $state/logs/receiver-forward.log"; exit 1; }
    sleep 0.5
  done

  example_hold
  echo >&2
  kubectl -n "$ns" get pods -o wide >&2
  cat <<TXT

waitgate $version runs on the local cluster as the chart installs it (helm status $release -n $ns),
its Pods on the real node. To watch it:
$(printf '%s\n' "$exports" | sed 's/^/  /')
  export PATH=${WAITGATE_CACHE:-$HOME/.cache/waitgate}/bin/active:\$PATH
  kubectl get heldjobs -A -w
The receiver's Service is forwarded to http://127.0.0.1:$receiver_port (POST /webhooks/github, /webhooks/gitlab);
its GitHub secret is in $state/github-webhook-secret. Send a signed delivery for an issue number of your choosing:
  hack/send-delivery.sh waitgate:deploy acme/web
Stop everything with: make cluster-down   (took $(( $(date +%s) - started ))s)
TXT
}

# --- where no container can run: the operator and the receiver as processes here ----------
up_on_host() {
  kubectl get namespace "$ns" >/dev/null 2>&1 || kubectl create namespace "$ns" >/dev/null
  kubectl apply -f "$root/crds/" >/dev/null
  kubectl apply -f "$root/examples/profiles-configmap.yaml" -f "$root/examples/triggers-configmap.yaml" >/dev/null

  # (Re)start the operator and the receiver so they run the code just built.
  "$here/cluster-down.sh" --only operator 2>/dev/null || true
  "$here/cluster-down.sh" --only receiver 2>/dev/null || true
  stop_pidfile receiver-forward "port-forward"
  cd "$root"
  log "starting the operator (log: $state/logs/operator.log)"
  WAITGATE_METRICS_HOST=127.0.0.1 setsid nohup node dist/operator/main.js >"$state/logs/operator.log" 2>&1 < /dev/null &
  echo $! > "$state/pids/operator.pid"
  log "starting the receiver on 127.0.0.1:$receiver_port (log: $state/logs/receiver.log)"
  WAITGATE_RECEIVER_HOST=127.0.0.1 WAITGATE_RECEIVER_PORT=$receiver_port WAITGATE_RECEIVER_METRICS_HOST=127.0.0.1 \
  WAITGATE_GITHUB_WEBHOOK_SECRET=$(cat "$state/github-webhook-secret") \
  WAITGATE_GITLAB_WEBHOOK_TOKEN=$(cat "$state/gitlab-webhook-token") \
    setsid nohup node dist/receiver/main.js >"$state/logs/receiver.log" 2>&1 < /dev/null &
  echo $! > "$state/pids/receiver.pid"

  example_hold
  cat <<TXT

waitgate runs against the local cluster as processes on this machine. To watch it:
$(printf '%s\n' "$exports" | sed 's/^/  /')
  export PATH=${WAITGATE_CACHE:-$HOME/.cache/waitgate}/bin/active:\$PATH
  kubectl get heldjobs -A -w
The receiver listens on http://127.0.0.1:$receiver_port (POST /webhooks/github, /webhooks/gitlab);
its GitHub secret is in $state/github-webhook-secret. Send a signed delivery for an issue number of your choosing:
  hack/send-delivery.sh waitgate:deploy acme/web
Its hold waits on the example profile deploy-window (examples/profiles-configmap.yaml); open the window with:
  touch /tmp/waitgate-deploy-window-open
Stop everything with: make cluster-down
TXT
}

node_state=$(cat "$state/real-node" 2>/dev/null || echo "unavailable: cluster-up wrote no $state/real-node")
if [ "$node_state" = ready ] && [ "${WAITGATE_UP_HOST:-}" != 1 ]; then
  up_in_cluster
else
  reason=${node_state#unavailable: }
  [ "${WAITGATE_UP_HOST:-}" = 1 ] && reason="WAITGATE_UP_HOST=1"
  log "containers cannot run here ($reason): the operator and the receiver run as processes on this machine"
  up_on_host
fi
