#!/usr/bin/env bash
# Checks the executionProviders option of gort.wasm (wasm/webgpu.go) on Node + Dawn + SwiftShader,
# with and without navigator.gpu. Run after ci-webgpu.sh has installed the npm `webgpu` package.
set -euo pipefail
TOOLS=$(cd "${WEBGPU_TOOLS_DIR:-$PWD/.webgpu-tools}" && pwd)
export WEBGPU_TOOLS_DIR=$TOOLS GOROOT=$(go env GOROOT)
export VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-/usr/lib/chromium/vk_swiftshader_icd.json}
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/lib/chromium"
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$TOOLS/xdg}; mkdir -p -m 700 "$XDG_RUNTIME_DIR"
GOOS=js GOARCH=wasm go build -tags gortlite -o "$TOOLS/gort.wasm" ./wasm
MODEL=testdata/onnx-node/node/test_conv_with_strides_padding/model.onnx
node "$(dirname "$0")/bridge.test.mjs" "$TOOLS/gort.wasm" "$MODEL"
NO_WEBGPU=1 node "$(dirname "$0")/bridge.test.mjs" "$TOOLS/gort.wasm" "$MODEL"
# The JS package's GPU tensors (js/src as one module, as js/build.sh concatenates it).
{ cat "$GOROOT/lib/wasm/wasm_exec.js"; node js/tools/concat.mjs js/src/index.js
  echo "platform.Go = globalThis.Go; export { gort };"; } > "$TOOLS/gort-src.mjs"
node "$(dirname "$0")/gpubuf.test.mjs" "$TOOLS/gort-src.mjs" "$TOOLS/gort.wasm"
# The generated encoder and decoder (make test-webgpu writes them) through the JS package with executionProviders
# ['webgpu'], against wasm.
node "$(dirname "$0")/models.test.mjs" "$TOOLS/gort-src.mjs" "$TOOLS/gort.wasm" "${GORT_GENMODELS:-$PWD/.webgpu-tools/genmodels}"
