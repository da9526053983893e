#!/usr/bin/env bash
# `make test`: installs what is missing, starts a control plane and Valkey of the tests' own
# (apart from the one `make up` runs, so an operator watching every namespace there cannot
# touch the tests' HeldJobs), runs every test, and stops what it started.
#
#   WAITGATE_TEST_KEEP_CLUSTER=1   leave the test cluster running afterwards
#   extra arguments go to jest, e.g. `hack/test.sh test/e2e/after.test.ts`
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
export WAITGATE_CLUSTER_DIR=${WAITGATE_TEST_CLUSTER_DIR:-$root/.cluster-test}
export WAITGATE_PORT_BASE=${WAITGATE_TEST_PORT_BASE:-36500}
started=$(date +%s)

exports=$("$here/cluster-up.sh" | tail -n 2)
eval "$exports"
export PATH="${WAITGATE_CACHE:-$HOME/.cache/waitgate}/bin/active:$PATH"
if [ "${WAITGATE_TEST_KEEP_CLUSTER:-}" != 1 ]; then
  trap '"$here/cluster-down.sh" >/dev/null 2>&1 || true' EXIT
fi
(cd "$root" && npm run --silent build)

results=$(mktemp)
rc=0
(cd "$root" && NODE_OPTIONS=--experimental-vm-modules npx jest --json --outputFile="$results" "$@") || rc=$?
# The plain closing line CI reads, from jest's own counts.
[ -s "$results" ] && python3 - "$results" <<'PY' || true
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{r['numPassedTests']} passed, {r['numFailedTests']} failed, {r['numPendingTests'] + r['numTodoTests']} skipped")
PY
rm -f "$results"
echo "test: finished in $(( $(date +%s) - started ))s" >&2
exit $rc
