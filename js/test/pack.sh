#!/usr/bin/env bash
# `npm pack`, install the tarball into a fresh temporary project, and use it
# from there as a new user would: ESM import, CommonJS require, the types
# file, and the CLI through npx.
set -euo pipefail
JS="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$(cd "$JS/.." && pwd)"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

cd "$JS"
TGZ="$(npm pack --silent --pack-destination "$TMP" 2>/dev/null | tail -1)"
echo "packed $TGZ ($(wc -c < "$TMP/$TGZ") bytes)"
tar -tzf "$TMP/$TGZ" | sort > "$TMP/contents"
for f in package/dist/gort.wasm package/dist/gort.mjs package/dist/gort.js package/dist/gort.cjs \
         package/dist/gort.worker.mjs package/dist/index.d.ts package/dist/wasm_exec.js package/bin/gort.mjs \
         package/dist/gort-cli.wasm; do
  grep -qx "$f" "$TMP/contents" || { echo "missing from the package: $f"; exit 1; }
done
if grep -q 'gort-test.wasm\|package/test/' "$TMP/contents"; then echo "test files in the package"; exit 1; fi

mkdir "$TMP/app"
cd "$TMP/app"
npm init -y >/dev/null
npm install --no-audit --no-fund --offline "$TMP/$TGZ" >/dev/null
cp "$JS/test/onnx.mjs" .
cat > esm.mjs <<'JS'
import * as gort from 'gort';
import { passthrough } from './onnx.mjs';
const s = await gort.InferenceSession.create(passthrough([{ name: 'x', type: { tensor: 'int64', shape: [2] } }]));
const r = await s.run({ x: new gort.Tensor('int64', new BigInt64Array([7n, -7n]), [2]) });
if (r.x.data[1] !== -7n) throw new Error('bad result');
await s.release();
console.log('esm ok', gort.env.versions.gort);
JS
node esm.mjs
cat > cjs.cjs <<'JS'
const gort = require('gort');
const { readFileSync } = require('fs');
gort.InferenceSession.create(readFileSync(process.argv[2])).then(async (s) => {
  console.log('cjs ok', s.inputNames.join(','), '->', s.outputNames.join(','));
  await s.release();
});
JS
node cjs.cjs "$ROOT/testdata/bench/test_squeezenet/model.onnx"
test -f node_modules/gort/dist/index.d.ts
node -e "const p=require('gort/package.json'); if(!p.exports['.'].types) process.exit(1)"
npx --no-install gort run "$ROOT/testdata/bench/test_squeezenet/model.onnx"
echo "npm pack: ok"
