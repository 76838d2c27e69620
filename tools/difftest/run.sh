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
# Once with gort's graph rewrites off and once on: the same cases, the same
# explanations, 0 unexplained either way.
go build -o "${TMPDIR:-/tmp}/gort-difftest" ./tools/difftest
for level in disabled all; do
  echo "difftest with graphOptimizationLevel=$level"
  "${TMPDIR:-/tmp}/gort-difftest" -opt "$level" -ort "$here/ort.js" "$@"
done
# The project's benchmark models agree with onnxruntime-node (small variants).
GORT_REQUIRE_ORT=1 go test -count=1 ./tools/genmodels
GORT_REQUIRE_ORT=1 go test -count=1 -run TestAgainstOnnxruntime ./ops/contrib
