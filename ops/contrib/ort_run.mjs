// Runs the com.microsoft differential cases of ops/contrib with
// onnxruntime-node (CPU, graph optimisations off, one thread) in one
// process and writes every case's outputs as JSON.
//
//   node ops/contrib/ort_run.mjs ORT_PACKAGE_DIR CASES.json OUT.json
//
// CASES.json: [{model: path, feeds: {name: {dims, type, data}}, outputs: [name]}],
// type one of TYPES' names, data the base64 of the little-endian values;
// OUT.json: one object per case, {name: {dims, type, data}} or {error: message}.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const [ortDir, casesPath, outPath] = process.argv.slice(2);
const ort = createRequire(import.meta.url)(resolve(ortDir));
const opts = { executionProviders: ['cpu'], graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, interOpNumThreads: 1, logSeverityLevel: 3 };
const TYPES = { float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array, uint8: Uint8Array, int8: Int8Array };
const typed = (type, b64) => { const b = Buffer.from(b64, 'base64'); return new TYPES[type](b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)); };
const out = [];
for (const c of JSON.parse(readFileSync(casesPath, 'utf8'))) {
  try {
    const sess = await ort.InferenceSession.create(readFileSync(c.model), opts);
    const feeds = {};
    for (const [name, t] of Object.entries(c.feeds)) feeds[name] = new ort.Tensor(t.type, typed(t.type, t.data), t.dims);
    const res = await sess.run(feeds, c.outputs);
    const o = {};
    for (const name of c.outputs) {
      const t = res[name];
      o[name] = { dims: Array.from(t.dims), type: t.type, data: Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength).toString('base64') };
    }
    out.push(o);
    await sess.release();
  } catch (e) {
    out.push({ error: String(e && e.message || e) });
  }
}
writeFileSync(outPath, JSON.stringify(out));
