// One cold start, alone in this Node process: bench.mjs runs this script as
// a child process per (model, runtime, repetition) and reads the JSON line it
// prints: {create, first} in ms, or {error}.
//
// Why a process of its own: V8 optimises WebAssembly functions on background
// threads whose queue is shared by the whole process. Measured inside the
// bench's process, one runtime's optimising compiles, still queued from its
// own create, slowed the other runtime's first run by up to 3× (and which
// one paid depended on the order), so the cold figures measured the
// neighbour rather than the runtime. A page or a Node service that starts a
// model starts it in a process of its own, so that is what this measures.
//
//   node cold.mjs RUNTIME THREADS MODEL_DIR GORT_URL ORT_URL [SPEC_JSON]   (SPEC_JSON: a corpus model's {id, inputs, outputs})
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const here = fileURLToPath(new URL('.', import.meta.url));
const [runtime, threads, dir, gortURL, ortURL, specJSON] = process.argv.slice(2);
const spec = specJSON ? JSON.parse(specJSON) : null;
const worker = new Worker(join(here, 'worker.mjs'), { workerData: { runtime, threads: Number(threads), dir, gortURL, ortURL, spec } });
const call = (cmd) => new Promise((resolve, reject) => {
  worker.once('message', (m) => (m.ok ? resolve(m.res) : reject(new Error(m.error))));
  worker.once('error', reject);
  worker.postMessage({ cmd });
});
let out;
try {
  const c = await call('create');
  const r = await call('run');
  out = { create: c.ms, first: r.ms };
} catch (e) {
  out = { error: String(e && e.message ? e.message : e).split('\n')[0].slice(0, 200) };
}
console.log(JSON.stringify(out));
process.exit(0);
