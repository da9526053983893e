#!/usr/bin/env bash
# The packaging half of `make release`: the Helm chart (`helm package`) and the npm tarball
# (`npm pack`) into OUT_DIR/chart and OUT_DIR/npm (both are named waitgate-VERSION.tgz), at the
# one version hack/release-version.sh agrees on, then checks the versions inside both. Prints
# the chart's path, then the tarball's.
#   WAITGATE_RELEASE_NO_BUILD=1  npm pack without its prepack build (packs dist/ as it is;
#                                hack/release.test.ts uses it so it never rewrites dist/ under
#                                tests that run from it)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=${1:?usage: hack/release-pack.sh OUT_DIR}
version=$("$here/release-version.sh" "$root")
mkdir -p "$out/chart" "$out/npm"
out=$(cd "$out" && pwd)

helm package "$root/charts/waitgate" --destination "$out/chart" >&2
chart=$out/chart/waitgate-$version.tgz

pack_args=(--pack-destination "$out/npm")
[ "${WAITGATE_RELEASE_NO_BUILD:-}" = 1 ] && pack_args+=(--ignore-scripts)
(cd "$root" && npm pack "${pack_args[@]}" >&2)
npm_tgz=$out/npm/waitgate-$version.tgz

for f in "$chart" "$npm_tgz"; do
  [ -s "$f" ] || { echo "release: $f was not made" >&2; exit 1; }
done
"$here/release-verify.sh" "$version" "$chart" "$npm_tgz"
echo "$chart"
echo "$npm_tgz"
