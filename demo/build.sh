#!/usr/bin/env bash
# Puts the npm package's files under demo/gort/ (a copy of js/dist, built by
# js/build.sh), so the page imports ./gort/gort.mjs as any app would and the
# server only ever serves demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash js/build.sh
rm -rf demo/gort.tmp
mkdir demo/gort.tmp
cp js/dist/gort.mjs js/dist/gort.js js/dist/gort.worker.mjs js/dist/gort.wasm js/dist/wasm_exec.js js/dist/index.d.ts demo/gort.tmp/
rm -rf demo/gort
mv demo/gort.tmp demo/gort
