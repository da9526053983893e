#!/usr/bin/env bash
# Sends a signed GitHub "issue labelled" delivery to the receiver `make up` started.
#   hack/send-delivery.sh LABEL OWNER/REPO NUMBER
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
state=${WAITGATE_CLUSTER_DIR:-$here/../.cluster}
label=${1:?label}; repo=${2:?owner/repo}; number=${3:?number}
port=${WAITGATE_RECEIVER_PORT:-8080}
body=$(printf '{"action":"labeled","label":{"name":"%s"},"repository":{"full_name":"%s"},"issue":{"number":%s}}' "$label" "$repo" "$number")
sig=$(printf '%s' "$body" | openssl dgst -sha256 -hmac "$(cat "$state/github-webhook-secret")" | sed 's/^.* //')
python3 - "$port" "$body" "$sig" <<'PY'
import sys, urllib.request, uuid
port, body, sig = sys.argv[1], sys.argv[2].encode(), sys.argv[3]
req = urllib.request.Request(f"http://127.0.0.1:{port}/webhooks/github", data=body, method="POST", headers={
    "content-type": "application/json", "x-github-event": "issues",
    "x-github-delivery": str(uuid.uuid4()), "x-hub-signature-256": f"sha256={sig}"})
try:
    with urllib.request.urlopen(req, timeout=30) as r:
        print(r.status, r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code, e.read().decode()); sys.exit(1)
PY
