#!/usr/bin/env bash
# Stops what hack/cluster-up.sh started (and only that), then removes its state.
#   --keep-state     stop the processes but keep etcd's data, certificates and kubeconfig
#   --only NAME      stop one process (operator, receiver, ...) and keep the rest
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
state=${WAITGATE_CLUSTER_DIR:-$root/.cluster}
[ -d "$state/pids" ] || { echo "cluster-down: nothing started from $state" >&2; exit 0; }
stop() {
  local name=$1 pidfile=$state/pids/$1.pid pid i
  [ -s "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  # Only a process that is still the one we started (same pid, same program).
  if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- "$2"; then
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 50); do [ -d "/proc/$pid" ] || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    echo "cluster-down: stopped $name" >&2
  fi
  rm -f "$pidfile"
}
if [ "${1:-}" = "--only" ]; then
  case "${2:-}" in
    operator) stop operator "dist/operator/main.js" ;;
    receiver) stop receiver "dist/receiver/main.js" ;;
    *) echo "cluster-down: --only operator|receiver" >&2; exit 2 ;;
  esac
  exit 0
fi
# The operator and receiver that `make up` started (or its port-forward to the receiver's
# Service), then the control plane, last etcd.
stop receiver-forward "port-forward"
stop operator "dist/operator/main.js"
stop receiver "dist/receiver/main.js"
# The real node first (kubelet, its containers, containerd, their mounts): a folder still
# mounted below the state is never removed.
real_node_rc=0
"$here/cluster/real-node.sh" down || real_node_rc=$?
stop kwok kwok
stop kube-scheduler kube-scheduler
stop kube-controller-manager kube-controller-manager
stop kube-apiserver kube-apiserver
stop valkey "-server 127.0.0.1:"
# A state folder from before valkey-server kept its redis-server under this name.
stop redis redis-server
stop etcd etcd
if [ "$real_node_rc" != 0 ]; then
  echo "cluster-down: the real node left mounts below $state; state kept" >&2
  exit 1
fi
if [ "${1:-}" != "--keep-state" ]; then rm -rf --one-file-system "$state"; fi
