#!/usr/bin/env bash
# The single-file CLI of a release, into DIR (default dist/release): hack/build-cli.sh builds
# kubectl-waitgate-linux-x64 and -linux-arm64; each is packed as kubectl-waitgate-linux-ARCH.tar.gz
# (kubectl-waitgate and LICENSE, what the krew manifest installs), the sums of all four files go
# to SHA256SUMS, and .krew.yaml at the root is rendered to waitgate.krew.yaml with the version,
# the archives' sha256 and their download addresses (WAITGATE_RELEASE_URL, default the GitHub
# release of that version). Prints the manifest's path last.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=${1:-$root/dist/release}
version=$("$here/release-version.sh" "$root")
base=${WAITGATE_RELEASE_URL:-https://github.com/waitgate/waitgate/releases/download/v$version}
WAITGATE_CLI_DIR="$out" "$here/build-cli.sh" >/dev/null
manifest=$(cat "$root/.krew.yaml")
manifest=${manifest//\{\{VERSION\}\}/$version}
for arch in x64 arm64; do
  stage=$(mktemp -d)
  cp "$out/kubectl-waitgate-linux-$arch" "$stage/kubectl-waitgate"
  cp "$root/LICENSE" "$stage/"
  tar -czf "$out/kubectl-waitgate-linux-$arch.tar.gz" -C "$stage" --owner=0 --group=0 --mtime='1970-01-01' kubectl-waitgate LICENSE
  rm -rf "$stage"
  sum=$(sha256sum "$out/kubectl-waitgate-linux-$arch.tar.gz" | cut -d' ' -f1)
  upper=$(tr '[:lower:]' '[:upper:]' <<<"$arch")
  manifest=${manifest//\{\{SHA256_LINUX_$upper\}\}/$sum}
  manifest=${manifest//\{\{URI_LINUX_$upper\}\}/$base/kubectl-waitgate-linux-$arch.tar.gz}
done
(cd "$out" && sha256sum kubectl-waitgate-linux-x64 kubectl-waitgate-linux-arm64 kubectl-waitgate-linux-x64.tar.gz kubectl-waitgate-linux-arm64.tar.gz >SHA256SUMS)
if grep -q '{{' <<<"$manifest"; then
  echo "release: .krew.yaml has a placeholder release-cli.sh does not fill: $(grep -o '{{[^}]*}}' <<<"$manifest" | head -n 1)" >&2
  exit 1
fi
# Drop the template's own header comment.
sed '1,/^apiVersion:/{/^#/d}' <<<"$manifest" >"$out/waitgate.krew.yaml"
echo "$out/waitgate.krew.yaml"
