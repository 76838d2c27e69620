// Runs every one-node model of a difftest batch with onnxruntime-node and
// writes the outputs (or the error) of each. One process for the whole batch
// keeps the run fast. Usage: node ort.js cases.json results.json
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

const arrays = {
  float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array,
  uint8: Uint8Array, int8: Int8Array, uint16: Uint16Array, int16: Int16Array,
};

function toTensor(f) {
  const A = arrays[f.type];
  const data = f.type === 'int64' ? A.from(f.data.map((v) => BigInt(v))) : A.from(f.data.map((v) => (v === null ? NaN : v)));
  return new ort.Tensor(f.type, data, f.dims);
}

function fromTensor(t) {
  let data;
  if (t.type === 'int64') data = Array.from(t.data, (v) => v.toString());
  else data = Array.from(t.data, (v) => (Number.isNaN(v) ? 'NaN' : v));
  return { type: t.type, dims: Array.from(t.dims), data };
}

async function main() {
  const [input, output] = process.argv.slice(2);
  const batch = JSON.parse(fs.readFileSync(input, 'utf8'));
  const opts = { executionProviders: ['cpu'], graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, interOpNumThreads: 1, logSeverityLevel: 3 };
  ort.env.logLevel = 'fatal';
  const trace = process.env.DIFFTEST_TRACE;
  const results = {};
  for (const c of batch.cases) {
    if (trace) fs.appendFileSync(trace, c.name + '\n');
    try {
      const sess = await ort.InferenceSession.create(Buffer.from(c.model, 'base64'), opts);
      const feeds = {};
      for (const f of c.feeds) feeds[f.name] = toTensor(f);
      const out = await sess.run(feeds);
      results[c.name] = { outputs: sess.outputNames.map((n) => fromTensor(out[n])) };
      if (sess.release) await sess.release();
    } catch (e) {
      results[c.name] = { error: String(e && e.message ? e.message : e).split('\n')[0] };
    }
  }
  fs.writeFileSync(output, JSON.stringify({ version: ort.env.versions, results }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
