#!/usr/bin/env bash
# actionlint, the linter of GitHub Actions workflows that `make lint` runs over
# .github/workflows: built from its Go module (the version in versions.env) into the cache
# outside the clone, only when missing, and linked into the active folder. Prints its path.
# A cold build (empty Go module and build caches) took about 40 s on a 2-core machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
. "$here/versions.env"
exec "$here/install-go-tool.sh" actionlint "$ACTIONLINT_VERSION" github.com/rhysd/actionlint/cmd/actionlint
