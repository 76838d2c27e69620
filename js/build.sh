#!/usr/bin/env bash
# Builds js/dist from scratch: gort.wasm (the Go runtime for GOOS=js
# GOARCH=wasm, trimmed and stripped), the wasm_exec.js of the same toolchain,
# the ES module (gort.mjs), the classic script defining the global `gort`
# (gort.js), the CommonJS entry (gort.cjs), the proxy worker
# (gort.worker.mjs) and the TypeScript types (index.d.ts).
#
# No bundler package: the entries are js/src's modules, concatenated by
# tools/concat.mjs, and Go's wasm_exec.js, wrapped by a few lines each, which
# is all the packaging this needs.
set -euo pipefail
export GOTOOLCHAIN=auto
export PATH="$PATH:/usr/local/go/bin:$HOME/go/bin"
cd "$(dirname "$0")"
JS="$PWD"
ROOT="$(cd .. && pwd)"
FINAL="$JS/dist"
GO="${GO:-go}"

# Build into a scratch directory and swap it in at the end, so that a failed
# build leaves no half-written dist behind.
DIST="$JS/dist.tmp.$$"
rm -rf "$DIST"
mkdir -p "$DIST"
trap 'rm -rf "$DIST"' EXIT

# gortlite: the ONNX messages as plain structs decoded by runtime/onnxpb's own
# wire decoder, so no protobuf-go runtime is linked (3.8 MB raw, 650 KB gzip).
# GOEXPERIMENT=simd: the float32 kernels use WebAssembly SIMD128 through
# simd/archsimd (ops/kernels/sgemm_simd.go); Node ≥ 20 (package.json engines) and
# current browsers all run it.
FLAGS=(-trimpath -ldflags='-s -w')
# Code that runs once per model, per node or per tool call (decoding, loading,
# planning, the session and the executor's step loop, the model checks, the
# WebGPU glue, control flow, rarely used operator families) is compiled
# without inlining: about 150 KB less gzip, which keeps gort.wasm under its
# 2.5 MB budget; the kernels and the common operators keep it. ops/rnn is
# the recurrent ops' drivers (their step kernels are ops/rnn/kern); ops/contrib
# is onnxruntime's operators, whose inner loops are ops/kernels' and
# ops/attention's (11 KB less gzip); ops/window parses pooling and
# convolution attributes, once per node.
for p in runtime runtime/errs runtime/op runtime/exec runtime/onnxpb runtime/check runtime/shapes runtime/printer \
  runtime/npy runtime/schema runtime/graph runtime/diverge runtime/compare 'wasm/...' runtime/plan runtime/protoconv options \
  runtime/gpu ops/webgpu ops/ml ops/text ops/signal ops/spatial ops/training ops/loss ops/random ops/numeric \
  ops/image ops/kvcache ops/attention ops/control ops/rnn ops/contrib ops/window; do
  FLAGS+=("-gcflags=github.com/gort-dev/gort/$p=-l")
done
# The same for the standard library's packages that only ever run per call
# or on error paths: fmt and reflect (messages), regexp/syntax (compiling a
# pattern, not matching), time, and syscall/js (the bridge: each of its calls
# is a call into JavaScript anyway): 32 KB less gzip.
for p in fmt internal/fmtsort reflect regexp/syntax time syscall/js; do
  FLAGS+=("-gcflags=$p=-l")
done
(cd "$ROOT" && GOOS=js GOARCH=wasm GOEXPERIMENT=simd "$GO" build -tags gortlite "${FLAGS[@]}" -o "$DIST/gort.wasm" ./wasm)
# The linker writes the initial memory as ~100,000 data segments, one per run
# of non-zero bytes; merging those with small zero gaps between them gives the
# same memory for 165 KB less gzip (tools/wasmdata.mjs).
node tools/wasmdata.mjs "$DIST/gort.wasm"
# The `gort` command of the package (bin/gort.mjs) runs the native CLI,
# cmd/gort, compiled for GOOS=js on its own: a page never downloads it,
# so the command line costs gort.wasm nothing.
(cd "$ROOT" && GOOS=js GOARCH=wasm GOEXPERIMENT=simd "$GO" build -tags gortlite "${FLAGS[@]}" -o "$DIST/gort-cli.wasm" ./cmd/gort)
node tools/wasmdata.mjs "$DIST/gort-cli.wasm"

WASM_EXEC="$("$GO" env GOROOT)/lib/wasm/wasm_exec.js"
[[ -f "$WASM_EXEC" ]] || WASM_EXEC="$("$GO" env GOROOT)/misc/wasm/wasm_exec.js" # before Go 1.24
cp "$WASM_EXEC" "$DIST/wasm_exec.js"

VERSION="$(node -p 'require("./package.json").version')"
GOVERSION="$("$GO" env GOVERSION)"

# The prelude runs wasm_exec.js inside a function so that the Go class and the
# fs/process/path stubs it defines stay off the global object (a stub
# `process` would make other libraries think they run in Node). Go's syscall
# package reads those globals once at start-up, so installGoGlobals puts them
# back just for that moment. `fs` is also a local: wasm_exec.js writes Go's
# stdout/stderr through the free variable `fs`.
prelude() {
  cat <<JS
const gortGo = (() => {
  const names = ['fs', 'process', 'path'];
  const had = {};
  for (const n of names) had[n] = Object.prototype.hasOwnProperty.call(globalThis, n);
  const hadGo = Object.getOwnPropertyDescriptor(globalThis, 'Go');
  let fs; // eslint-disable-line prefer-const
  // ---- wasm_exec.js of ${GOVERSION} (BSD-style license, (c) The Go Authors) ----
JS
  sed 's/^"use strict";$//' "$WASM_EXEC"
  cat <<'JS'
  // ---- end of wasm_exec.js ----
  fs = globalThis.fs;
  const Go = globalThis.Go;
  if (hadGo) Object.defineProperty(globalThis, 'Go', hadGo); else delete globalThis.Go;
  const stubs = {};
  for (const n of names) {
    if (!had[n]) { stubs[n] = globalThis[n]; delete globalThis[n]; }
  }
  function installGoGlobals() {
    const added = [];
    for (const n of Object.keys(stubs)) {
      if (!(n in globalThis)) { globalThis[n] = stubs[n]; added.push(n); }
    }
    return () => { for (const n of added) if (globalThis[n] === stubs[n]) delete globalThis[n]; };
  }
  return { Go, installGoGlobals };
})();
JS
}

# The API's modules (js/src, entry src/index.js) as one body of top-level
# declarations; each entry below wraps it and fills in platform.js.
BODY="$DIST/body.js"
node tools/concat.mjs src/index.js > "$BODY"
COMMON="platform.Go = gortGo.Go; platform.installGoGlobals = gortGo.installGoGlobals; platform.version = '${VERSION}';"

# The ES entry names gort.wasm and the worker in the one form bundlers
# (webpack 5, Vite, Parcel) recognise and rewrite to the files they emit:
# new URL('./file', import.meta.url) with a literal path. import.meta.url
# appears nowhere else that matters (webpack inlines it as a build-time
# file:// URL).
{
  echo "// gort ${VERSION} — ES module entry. Generated by js/build.sh; do not edit."
  prelude
  cat "$BODY"
  cat <<JS
${COMMON}
platform.wasmUrl = () => new URL('./gort.wasm', import.meta.url).href;
platform.newWorker = () => new Worker(new URL('./gort.worker.mjs', import.meta.url), { type: 'module', name: 'gort' });
platform.workerUrl = () => new URL('./gort.worker.mjs', import.meta.url);
platform.moduleUrl = () => import.meta.url;
export { InferenceSession, Tensor, env, ErrorCode, check, inferShapes, printGraph, capabilities, compare, diverge, readNpy, writeNpy };
export default gort;
JS
} > "$DIST/gort.mjs"

{
  echo "// gort ${VERSION} — classic script: defines the global \`gort\`. Generated by js/build.sh; do not edit."
  echo "(function () {"
  echo "'use strict';"
  prelude
  cat "$BODY"
  cat <<JS
${COMMON}
// The script's own URL locates gort.wasm; it is only knowable while the script runs.
const base = typeof document === 'object' && document && document.currentScript && document.currentScript.src
  ? document.currentScript.src
  : (typeof location === 'object' && location ? location.href : undefined);
platform.wasmUrl = () => (base ? new URL('gort.wasm', base).href : undefined);
platform.newWorker = () => new Worker(new URL('gort.worker.mjs', base), { type: 'module', name: 'gort' });
platform.moduleUrl = () => base;
globalThis.gort = gort;
})();
JS
} > "$DIST/gort.js"

{
  echo "// gort ${VERSION} — CommonJS entry. Generated by js/build.sh; do not edit."
  echo "'use strict';"
  prelude
  cat "$BODY"
  cat <<JS
${COMMON}
// A plain file path (no require of Node built-ins here, so that a bundler
// that meets this file does not fail on them).
platform.wasmUrl = () => __dirname + '/gort.wasm';
platform.workerUrl = () => __dirname + '/gort.worker.mjs';
module.exports = gort;
module.exports.default = gort;
JS
} > "$DIST/gort.cjs"

# The worker is self-contained (no import of gort.mjs), so that a bundler
# following new Worker(new URL(...)) meets no cycle; it is told where
# gort.wasm is by the page. It serves the proxy (env.wasm.proxy) and the
# thread pool's workers (threads.js), in pages and under Node's
# worker_threads.
{
  echo "// gort ${VERSION} — the proxy worker (env.wasm.proxy). Generated by js/build.sh; do not edit."
  prelude
  cat "$BODY"
  cat <<JS
${COMMON}
platform.newWorker = () => new Worker(new URL('./gort.worker.mjs', import.meta.url), { type: 'module', name: 'gort' });
platform.workerUrl = () => new URL('./gort.worker.mjs', import.meta.url);
// A Worker in a page; in Node, a worker_threads thread of the pool (its
// parentPort holds messages until the listener is set). No top-level await:
// bundlers (Vite) emit workers as classic scripts.
if (typeof self === 'object' && self && typeof self.postMessage === 'function') serveWorker(self);
else nodeImport('worker_threads').then((m) => serveWorker(nodeScope(m.parentPort)));
JS
} > "$DIST/gort.worker.mjs"
rm "$BODY"

cp index.d.ts "$DIST/index.d.ts"

rm -rf "$FINAL"
mv "$DIST" "$FINAL"
trap - EXIT
DIST="$FINAL"

raw=$(wc -c < "$DIST/gort.wasm")
gz=$(gzip -9 -c "$DIST/gort.wasm" | wc -c)
echo "js/dist: gort.wasm ${raw} bytes raw, ${gz} bytes gzip -9 ($GOVERSION)"
# The download budget of the design card: gort.wasm ≤ 2.5 MB gzip, with
# everything in it (SIMD kernels, schemas, model checks, WebGPU).
if (( gz > 2500000 )); then
  echo "js/build.sh: gort.wasm is ${gz} bytes gzip, over the 2,500,000-byte budget" >&2
  exit 1
fi
