#!/usr/bin/env bash
# `make lint`: ESLint with the type-checked rules (eslint.config.js), the import map of
# docs/development.md (hack/import-map.ts), Prettier's check (.prettierrc.json, .prettierignore),
# and actionlint over .github/workflows. All always run; exits 1 if any found something.
# `npm run format` rewrites what Prettier would change.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if [ ! -x node_modules/.bin/eslint ] || [ ! -x node_modules/.bin/prettier ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund >&2 || exit 1
fi

rc=0
if npx --no -- eslint .; then
  echo "lint: eslint: clean" >&2
else
  echo "lint: eslint found problems (above)" >&2
  rc=1
fi
# Which top-level folder may import which (docs/development.md, "The map"); Node runs the
# TypeScript file itself, no build needed.
if node hack/import-map.ts; then
  echo "lint: import map: every import keeps to the map of docs/development.md" >&2
else
  echo "lint: import map: the imports above break the map of docs/development.md" >&2
  rc=1
fi
if npx --no -- prettier --check --log-level warn .; then
  echo "lint: prettier: every file formatted" >&2
else
  echo "lint: prettier: the files above are not formatted; \`npm run format\` rewrites them" >&2
  rc=1
fi
# The CI workflows, with actionlint (built into the cache when missing: hack/install-actionlint.sh).
if [ -d .github/workflows ]; then
  if actionlint=$("$root/hack/install-actionlint.sh"); then
    if "$actionlint" -no-color; then
      echo "lint: actionlint: every workflow is clean" >&2
    else
      echo "lint: actionlint found problems in .github/workflows (above)" >&2
      rc=1
    fi
  else
    echo "lint: actionlint could not be installed (above)" >&2
    rc=1
  fi
fi
exit $rc
