#!/usr/bin/env bash
# `make release`: the three artifacts of a release, at one version (package.json's, which the
# chart's version and appVersion must equal), in dist/release (WAITGATE_RELEASE_DIR moves it):
#   image   IMAGE:VERSION built by hack/image.sh (`make image`: docker, podman or buildah, Debian's
#           buildah installed where none is, a locally assembled base where no registry serves
#           one) and saved as image/waitgate-image-VERSION.tar; skipped, in one line, only where
#           no builder is and none can be installed (hack/image.sh exits 3)
#   chart   chart/waitgate-VERSION.tgz (helm package), what `helm push` sends to an OCI registry
#   npm     npm/waitgate-VERSION.tgz (npm pack, built first), what `npm publish` sends
# Prints the three paths last. Fails before building anything when the versions disagree, and
# after packing when the versions inside the artifacts do.
# The image repository is the chart's image.repository (WAITGATE_IMAGE overrides it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=${WAITGATE_RELEASE_DIR:-$root/dist/release}
version=$("$here/release-version.sh" "$root")
repository=${WAITGATE_IMAGE:-$(sed -n '/^image:/,/^[^[:space:]#]/s/^[[:space:]]*repository:[[:space:]]*\([^[:space:]#]*\).*/\1/p' "$root/charts/waitgate/values.yaml" | head -n 1)}
[ -n "$repository" ] || { echo "release: no image.repository in charts/waitgate/values.yaml" >&2; exit 1; }
image=$repository:$version
echo "release: waitgate $version" >&2

rm -rf "$out"
mkdir -p "$out"
packed=$("$here/release-pack.sh" "$out")
# The single-file CLI: both executables, their archives, SHA256SUMS and the krew manifest.
krew=$("$here/release-cli.sh" "$out")
chart=$(sed -n 1p <<<"$packed")
npm_tgz=$(sed -n 2p <<<"$packed")

# The image: hack/image.sh, into the release folder. It prints the archive's path last.
image_rc=0
image_tar=$(WAITGATE_IMAGE="$repository" WAITGATE_IMAGE_DIR="$out/image" "$here/image.sh" waitgate) || image_rc=$?
case $image_rc in
  0) image_line="image: $image_tar ($image)" ;;
  3) image_line="image: skipped (no docker, podman or buildah here, and none can be installed): $image not built" ;;
  *)
    echo "release: building the image failed (above)" >&2
    exit 1
    ;;
esac

echo "$image_line"
echo "chart: $chart"
echo "cli:   $out/kubectl-waitgate-linux-x64 $out/kubectl-waitgate-linux-arm64 (SHA256SUMS, krew: $krew)"
echo "npm:   $npm_tgz"
