#!/usr/bin/env bash
# Runs a command against a local cluster of its own (state in .cluster-NAME, ports from
# BASE), built code, and stops the cluster afterwards.
#   hack/with-cluster.sh NAME BASE command...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
name=$1 base=$2; shift 2
# Another port base is another cluster: its state goes in a folder of its own, so two runs side
# by side (make chaos twice, on WAITGATE_CHAOS_PORT_BASE) never stop each other's.
export WAITGATE_CLUSTER_DIR=$root/.cluster-$name WAITGATE_PORT_BASE=$base
case "$name:$base" in
  chaos:36900 | fuzz:36700 | bench:36800) ;;
  *) WAITGATE_CLUSTER_DIR=$root/.cluster-$name-$base ;;
esac
# bench, chaos and fuzz run on kwok's fake nodes alone: no real node unless asked for.
export WAITGATE_REAL_NODE=${WAITGATE_REAL_NODE:-0}
eval "$("$here/cluster-up.sh" | tail -n 2)"
export PATH="${WAITGATE_CACHE:-$HOME/.cache/waitgate}/bin/active:$PATH"
trap '"$here/cluster-down.sh" >/dev/null 2>&1 || true' EXIT
(cd "$root" && npm run --silent build)
cd "$root"
"$@"
