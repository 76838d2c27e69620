// Side-by-side benchmark: gort (js/dist) and onnxruntime-web, both
// single-threaded WebAssembly in this one Node process, on the same model and
// the same input. Prints load and inference medians and gort/ORT ratios
// (below 1 means gort is faster).
//
//   node tools/bench/js/bench.mjs testdata/bench/test_squeezenet [...]
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';

const here = fileURLToPath(new URL('.', import.meta.url));
const gort = await import(resolve(here, '../../../js/dist/gort.mjs'));

ort.env.wasm.numThreads = 1;
ort.env.wasm.proxy = false;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function time(fn, n) {
  const ts = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    ts.push(performance.now() - t0);
  }
  return median(ts);
}

// The bench models' input_0.pb: a TensorProto with float32 raw_data. gort's
// own decoder (the package's test hook) would do, but a tiny parser keeps
// this script independent of internals.
function readInput(path) {
  const b = readFileSync(path);
  let i = 0;
  const dims = [];
  let raw = null;
  const varint = () => {
    let x = 0n, s = 0n;
    for (;;) { const c = b[i++]; x |= BigInt(c & 0x7f) << s; s += 7n; if (!(c & 0x80)) return x; }
  };
  while (i < b.length) {
    const key = Number(varint());
    const field = key >> 3, wt = key & 7;
    if (wt === 0) { const v = varint(); if (field === 1) dims.push(Number(v)); }
    else if (wt === 2) {
      const len = Number(varint());
      if (field === 1) { const end = i + len; while (i < end) dims.push(Number(varint())); }
      else if (field === 9) raw = b.subarray(i, i + len);
      i += len;
    } else if (wt === 5) i += 4; else if (wt === 1) i += 8;
    else throw new Error('unexpected wire type ' + wt);
  }
  const data = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
  return { dims, data };
}

for (const dir of process.argv.slice(2)) {
  const model = new Uint8Array(readFileSync(join(dir, 'model.onnx')));
  const { dims, data } = readInput(join(dir, 'test_data_set_0', 'input_0.pb'));
  const runs = Number(process.env.GORT_BENCH_RUNS || 5);

  let gs, os;
  const gLoad = await time(async () => { if (gs) await gs.release(); gs = await gort.InferenceSession.create(model); }, 3);
  const oLoad = await time(async () => { if (os) await os.release(); os = await ort.InferenceSession.create(model, { executionProviders: ['wasm'] }); }, 3);
  const gFeeds = { [gs.inputNames[0]]: new gort.Tensor('float32', data, dims) };
  const oFeeds = { [os.inputNames[0]]: new ort.Tensor('float32', data, dims) };
  await gs.run(gFeeds); await os.run(oFeeds); // warm-up
  const gRun = await time(() => gs.run(gFeeds), runs);
  const oRun = await time(() => os.run(oFeeds), runs);
  const name = dir.split('/').filter(Boolean).pop();
  console.log(`${name}: load gort ${gLoad.toFixed(1)} ms, ORT-web ${oLoad.toFixed(1)} ms (ratio ${(gLoad / oLoad).toFixed(2)}); ` +
    `inference gort ${gRun.toFixed(1)} ms, ORT-web ${oRun.toFixed(1)} ms (ratio ${(gRun / oRun).toFixed(2)}), median of ${runs}, onnxruntime-web ${ort.env.versions?.web ?? ''} 1 thread`);
  await gs.release(); await os.release();
}
