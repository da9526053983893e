#!/usr/bin/env bash
# `make test`: installs what is missing, lints (hack/lint.sh: eslint and prettier --check),
# starts a control plane and Valkey of the tests' own (apart from the one `make up` runs, so an
# operator watching every namespace there cannot touch the tests' HeldJobs), runs every test
# (unit, integration, the Redis 7 lane, e2e, then the serial lane), and stops what it started. A lint failure fails the run, after
# the tests have run.
#
#   WAITGATE_TEST_KEEP_CLUSTER=1   leave the test cluster running afterwards
#   WAITGATE_TEST_IMAGE=0          do not build and load the image (helm-install.test.ts skips)
#   WAITGATE_TEST_LINT=0|1         skip or force the lint (default: lint a full run, not one
#                                  given jest arguments)
#   WAITGATE_VALKEY_SERVER=redis   the cluster's Valkey is Debian's redis-server 7, not
#                                  valkey-server 9 (hack/cluster-up.sh; docs/valkey.md)
#   extra arguments go to jest, e.g. `hack/test.sh test/e2e/after.test.ts`
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
export WAITGATE_CLUSTER_DIR=${WAITGATE_TEST_CLUSTER_DIR:-$root/.cluster-test}
export WAITGATE_PORT_BASE=${WAITGATE_TEST_PORT_BASE:-36500}
started=$(date +%s)
# Tools first (the pinned Node.js among them), so the lint and the tests run on it.
bin=$("$here/install-tools.sh" | tail -n 1)
export PATH="$bin:$PATH"
echo "test: node $(node -v)" >&2

lint_rc=0
if [ "${WAITGATE_TEST_LINT:-$([ $# -eq 0 ] && echo 1 || echo 0)}" = 1 ]; then
  "$here/lint.sh" || lint_rc=$?
fi

exports=$("$here/cluster-up.sh" | tail -n 2)
eval "$exports"
export PATH="${WAITGATE_CACHE:-$HOME/.cache/waitgate}/bin/active:$PATH"
if [ "${WAITGATE_TEST_KEEP_CLUSTER:-}" != 1 ]; then
  trap '"$here/cluster-down.sh" >/dev/null 2>&1 || true' EXIT
fi
(cd "$root" && npm run --silent build)

# Where the real node runs, the image built from this checkout and the trial Valkey's, loaded
# into it for test/e2e/helm-install.test.ts (with a second tag of the image to upgrade to).
if [ "$(cat "$WAITGATE_CLUSTER_DIR/real-node" 2>/dev/null)" = ready ] && [ "${WAITGATE_TEST_IMAGE:-1}" != 0 ]; then
  image_tar=$("$here/image.sh" | tail -n 1)
  valkey_tar=$("$here/image.sh" valkey | tail -n 1)
  "$here/cluster/real-node.sh" load "$image_tar" "$valkey_tar"
  WAITGATE_E2E_IMAGE=$("$here/cluster/real-node.sh" name "$image_tar")
  WAITGATE_E2E_IMAGE_NEXT=$WAITGATE_E2E_IMAGE-next
  WAITGATE_E2E_VALKEY_IMAGE=$("$here/cluster/real-node.sh" name "$valkey_tar")
  "$here/cluster/real-node.sh" tag "$WAITGATE_E2E_IMAGE" "$WAITGATE_E2E_IMAGE_NEXT"
  export WAITGATE_E2E_IMAGE WAITGATE_E2E_IMAGE_NEXT WAITGATE_E2E_VALKEY_IMAGE
fi

# Two runs: every project but serial side by side (integration on the cluster's valkey-server 9,
# redis7 the Redis 7 lane on a redis-server 7 of its own, jest.config.js), then the serial lane
# (test/serial: tests whose cluster-wide policies would disturb the others) one file at a time. Arguments go to both;
# --selectProjects among them picks the lanes (`make e2e` passes e2e: the serial lane is skipped).
results=$(mktemp)
serial_results=$(mktemp)
rc=0
lanes_given=0
for a in "$@"; do [ "$a" = --selectProjects ] && lanes_given=1; done
if [ "$lanes_given" = 1 ]; then
  (cd "$root" && NODE_OPTIONS=--experimental-vm-modules npx jest --json --outputFile="$results" "$@") || rc=$?
else
  (cd "$root" && NODE_OPTIONS=--experimental-vm-modules npx jest --json --outputFile="$results" \
    --selectProjects unit integration redis7 e2e --passWithNoTests "$@") || rc=$?
  if [ -n "$(cd "$root" && npx jest --listTests --selectProjects serial "$@" 2>/dev/null)" ]; then
    (cd "$root" && NODE_OPTIONS=--experimental-vm-modules npx jest --json --outputFile="$serial_results" \
      --selectProjects serial --runInBand --passWithNoTests "$@") || rc=$?
  fi
fi
# The plain closing line CI reads, from jest's own counts (both runs summed).
python3 - "$results" "$serial_results" <<'PY' || true
import json, os, sys
runs = [json.load(open(p)) for p in sys.argv[1:] if os.path.getsize(p) > 0]
if runs:
    total = lambda k: sum(r[k] for r in runs)
    # Each test skipped, by name and file: a skip is read, never only counted.
    for r in runs:
        for f in r.get('testResults', []):
            for a in f.get('assertionResults', []):
                if a.get('status') in ('pending', 'skipped', 'todo'):
                    print(f"skipped: {os.path.relpath(f['name'])}: {a.get('fullName') or a.get('title')}")
    print(f"{total('numPassedTests')} passed, {total('numFailedTests')} failed, {total('numPendingTests') + total('numTodoTests')} skipped")
PY
rm -f "$results" "$serial_results"
echo "test: finished in $(( $(date +%s) - started ))s" >&2
if [ "$lint_rc" != 0 ]; then
  echo "test: FAILED: lint (eslint or prettier --check; see the start of the output, or run make lint)" >&2
  [ "$rc" != 0 ] || rc=$lint_rc
fi
exit $rc
