// One runtime on one model, in its own worker thread: bench.mjs starts a
// fresh worker for every (model, runtime) pair, so each gets a fresh
// WebAssembly instance — "cold create" really is cold, a crash (gort's Go
// runtime dying of out-of-memory) takes down only that pair, and the peak
// wasm memory is this model's alone. WebAssembly memory never shrinks, so its
// final size is its peak.
//
// The main thread drives the workers one step at a time ({cmd: 'create' |
// 'run' | 'outputs' | 'memory'}), so they never compete for the CPU.
import { parentPort, workerData } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readInputs, makeInputs } from './inputs.mjs';

// Every WebAssembly.Memory the runtime makes or exports: onnxruntime-web
// (Emscripten, threaded build) constructs a shared one in JS; Go's wasm
// exports its own ("mem").
const memories = [];
const OrigMemory = WebAssembly.Memory;
WebAssembly.Memory = new Proxy(OrigMemory, {
  construct(target, args) { const m = Reflect.construct(target, args); memories.push(m); return m; },
});
const collect = (r) => {
  const inst = r && r.instance ? r.instance : r;
  if (inst && inst.exports) for (const v of Object.values(inst.exports)) if (v instanceof OrigMemory && !memories.includes(v)) memories.push(v);
  return r;
};
for (const fn of ['instantiate', 'instantiateStreaming']) {
  const orig = WebAssembly[fn];
  if (orig) WebAssembly[fn] = async function (...args) { return collect(await orig.apply(this, args)); };
}
const peakMemory = () => memories.reduce((m, x) => Math.max(m, x.buffer.byteLength), 0);

// spec (corpus models only): {id, inputs, outputs} from tools/corpus/corpus.json:
// the inputs are generated from it, and only the named outputs compared.
const { runtime, threads, dir, gortURL, ortURL, spec } = workerData;
let rt, session, feeds;

async function create() {
  const model = new Uint8Array(readFileSync(join(dir, 'model.onnx')));
  const t0 = performance.now();
  if (runtime === 'gort') {
    rt = await import(gortURL);
    session = await rt.InferenceSession.create(model, { intraOpNumThreads: threads || 1 });
  } else {
    rt = await import(ortURL);
    if (threads) rt.env.wasm.numThreads = threads;
    rt.env.wasm.proxy = false;
    rt.env.logLevel = 'error';
    session = await rt.InferenceSession.create(model, { executionProviders: ['wasm'], logSeverityLevel: 3 });
  }
  const ms = performance.now() - t0;
  feeds = {};
  if (spec?.inputs) for (const t of makeInputs(spec.inputs, spec.id)) feeds[t.name] = new rt.Tensor(t.type, t.data, t.dims);
  else readInputs(dir).forEach((t, i) => { feeds[session.inputNames[i]] = new rt.Tensor(t.type, t.data, t.dims); });
  return { ms, threads: runtime === 'gort' ? session.threads : rt.env.wasm.numThreads, version: runtime === 'gort' ? '' : rt.env.versions?.web };
}

let last;
async function run() {
  const t0 = performance.now();
  last = await session.run(feeds);
  return { ms: performance.now() - t0 };
}

// The last run's outputs, as float32 copies (the agreement check).
function outputs() {
  const out = {};
  for (const name of spec?.outputs || session.outputNames) {
    const t = last[name];
    if (!t) throw new Error(`no output ${name}`);
    out[name] = { dims: Array.from(t.dims), data: Float32Array.from(t.data, Number) };
  }
  return out;
}

parentPort.on('message', async (msg) => {
  try {
    let res;
    switch (msg.cmd) {
      case 'create': res = await create(); break;
      case 'run': res = await run(); break;
      case 'outputs': res = outputs(); break;
      case 'memory': {
        // gort also reports its own (the exported "mem"): a cross-check of the hook.
        let own = 0;
        if (runtime === 'gort' && rt?._memory) own = (await rt._memory()).wasmMemoryBytes || 0;
        res = { bytes: Math.max(peakMemory(), own) };
        break;
      }
      default: throw new Error('unknown command ' + msg.cmd);
    }
    parentPort.postMessage({ ok: true, res });
  } catch (e) {
    parentPort.postMessage({ ok: false, error: String(e && e.message ? e.message : e).split('\n')[0].slice(0, 200) });
  }
});
