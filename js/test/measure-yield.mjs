// Measures what yielding to the event loop costs: the squeezenet bench model
// run with yields never, every 10 ms (the default) and between every node,
// interleaved rounds, median. Not part of test.sh (timings, not checks):
//   node js/test/measure-yield.mjs [rounds]
import gort from '../dist/gort.mjs';
import { readFile } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'testdata', 'bench', 'test_squeezenet');
const rounds = Number(process.argv[2] || 5);
const s = await gort.InferenceSession.create(join(dir, 'model.onnx'));
const x = await gort._decodeValue(await readFile(join(dir, 'test_data_set_0', 'input_0.pb')));
const feeds = { [s.inputNames[0]]: x };
await s.run(feeds); // warm up (tier-up of the wasm code)
const cfg = [['never', 1e9], ['10ms', 10], ['every node', 0]];
const times = Object.fromEntries(cfg.map(([k]) => [k, []]));
for (let r = 0; r < rounds; r++) {
  for (const [k, ms] of cfg) {
    gort.env.wasm.yieldIntervalMs = ms;
    const t0 = performance.now();
    await s.run(feeds);
    times[k].push(performance.now() - t0);
  }
}
const med = (a) => a.sort((p, q) => p - q)[a.length >> 1];
const base = med(times.never);
for (const [k] of cfg) console.log(`${k.padEnd(10)} median ${med(times[k]).toFixed(1)} ms (${((med(times[k]) / base - 1) * 100).toFixed(1)}%)`);
await s.release();
