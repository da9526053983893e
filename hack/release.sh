#!/usr/bin/env bash
# `make release`: the three artifacts of a release, at one version (package.json's, which the
# chart's version and appVersion must equal), in dist/release (WAITGATE_RELEASE_DIR moves it):
#   image   IMAGE:VERSION built with docker, podman or buildah, whichever is found first, and
#           saved as image/waitgate-image-VERSION.tar; skipped, in one line, where none is
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
chart=$(sed -n 1p <<<"$packed")
npm_tgz=$(sed -n 2p <<<"$packed")

image_line=""
labels=(--label "org.opencontainers.image.version=$version" --label "org.opencontainers.image.source=https://github.com/waitgate/waitgate")
image_tar=$out/image/waitgate-image-$version.tar
# The first tool that is present and works: a docker CLI without a daemon does not count.
no_engine=""
for tool in docker podman buildah; do
  command -v "$tool" >/dev/null 2>&1 || continue
  if ! "$tool" info >/dev/null 2>&1; then
    no_engine="$no_engine; $tool is there but '$tool info' fails"
    continue
  fi
  mkdir -p "$out/image"
  case $tool in
    buildah)
      buildah bud "${labels[@]}" -t "$image" "$root" >&2
      buildah push "$image" "docker-archive:$image_tar:$image" >&2
      ;;
    *)
      "$tool" build "${labels[@]}" -t "$image" "$root" >&2
      "$tool" save -o "$image_tar" "$image" >&2
      ;;
  esac
  image_line="image: $image_tar ($image, built with $tool)"
  break
done
: "${image_line:=image: skipped (no working docker, podman or buildah here$no_engine): $image not built}"

echo "$image_line"
echo "chart: $chart"
echo "npm:   $npm_tgz"
