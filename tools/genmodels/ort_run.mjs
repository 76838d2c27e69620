// Runs one model directory (model.onnx + test_data_set_0/input_N.pb) with
// onnxruntime-node (the CPU build that tools/difftest installs) and writes its
// outputs as JSON: {name: {dims, data: base64 of little-endian float32}}.
// Used by genmodels_test.go to check that the generated models mean the same
// to onnxruntime as to gort.
//
//   node tools/genmodels/ort_run.mjs MODEL_DIR OUT.json
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readInputs } from '../bench/js/inputs.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const ort = createRequire(join(here, '../difftest/package.json'))('onnxruntime-node');

const [dir, out] = process.argv.slice(2);
const opts = { executionProviders: ['cpu'], graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, interOpNumThreads: 1, logSeverityLevel: 3 };
const sess = await ort.InferenceSession.create(readFileSync(join(dir, 'model.onnx')), opts);
const feeds = {};
readInputs(dir).forEach((t, i) => { feeds[sess.inputNames[i]] = new ort.Tensor(t.type, t.data, t.dims); });
const res = await sess.run(feeds);
const json = {};
for (const name of sess.outputNames) {
  const t = res[name];
  if (t.type !== 'float32') throw new Error(`${name}: ${t.type}, expected float32`);
  json[name] = { dims: Array.from(t.dims), data: Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength).toString('base64') };
}
writeFileSync(out, JSON.stringify(json));
