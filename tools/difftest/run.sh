#!/usr/bin/env bash
# Differential test of gort's resampling ops against onnxruntime-node.
# Usage: bash tools/difftest/run.sh [-v]   (from anywhere)
set -euo pipefail
export GOTOOLCHAIN=auto
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if ! (cd "$here" && node -e "require('onnxruntime-node')" >/dev/null 2>&1); then
  # The postinstall script only fetches optional GPU binaries (from nuget);
  # the CPU binaries ship in the npm package, so skip it.
  (cd "$here" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --loglevel=error)
fi
cd "$root"
go run ./tools/difftest -ort "$here/ort.js" "$@"
