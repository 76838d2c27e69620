// Per-run times of one model through gort's JS package, to see how many runs
// V8 needs before gort's code is optimised (a diagnostic, not part of make bench):
//   node tools/bench/js/series.mjs .cache/bench/gen_vad_lstm [runs]
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { readInputs } from './inputs.mjs';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const gort = await import(pathToFileURL(join(root, 'js/dist/gort.mjs')).href);
const dir = process.argv[2];
const runs = Number(process.argv[3] || 60);
const pauseMs = Number(process.argv[4] || 0); // idle time between runs (as when interleaved with another runtime)
let t0 = performance.now();
const session = await gort.InferenceSession.create(readFileSync(join(dir, 'model.onnx')));
const times = [`create ${(performance.now() - t0).toFixed(1)}`];
const feeds = {};
readInputs(dir).forEach((t, i) => { feeds[session.inputNames[i]] = new gort.Tensor(t.type, t.data, t.dims); });
for (let i = 0; i < runs; i++) {
  if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
  t0 = performance.now();
  await session.run(feeds);
  times.push((performance.now() - t0).toFixed(1));
}
console.log(times.join(' '));
