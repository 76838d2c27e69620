#!/usr/bin/env bash
# Puts the npm package's files under demo/gort/ (a copy of js/dist, built by
# js/build.sh), so the page imports ./gort/gort.mjs as any app would and the
# server only ever serves demo/. GORT_DIST=dir copies an already built dist
# instead (e.g. another checkout's), skipping the build.
set -euo pipefail
cd "$(dirname "$0")/.."
DIST="${GORT_DIST:-}"
if [[ -z "$DIST" ]]; then
  bash js/build.sh
  DIST=js/dist
fi
rm -rf demo/gort.tmp
mkdir demo/gort.tmp
cp -R "$DIST"/. demo/gort.tmp/
rm -f demo/gort.tmp/gort-test.wasm demo/gort.tmp/gort-cli.wasm demo/gort.tmp/*.cjs
rm -rf demo/gort
mv demo/gort.tmp demo/gort
