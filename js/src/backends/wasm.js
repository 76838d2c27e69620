// The in-thread wasm backend: runs gort.wasm on the calling thread (the
// page's, a worker's, or Node's). One Go instance per backend serves every
// session; it is started on first use and restarted if it ever dies.
import { ErrorCode, gortError } from '../errors.js';
import { isNodePath, macrotask, readSource } from '../io.js';
import { platform } from '../platform.js';
import { quickLimitMs, runQuick } from './quick.js';
import { threadPool, threadsFor } from '../threads.js';

const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d]; // "\0asm"
const isWasm = (b) => b.byteLength >= 4 && WASM_MAGIC.every((x, i) => b[i] === x);

const HOW_TO_SET = 'Serve gort.wasm (it ships in the package as dist/gort.wasm) and set gort.env.wasmPaths to the URL of ' +
  "its directory (e.g. env.wasmPaths = '/assets/'), or set gort.env.wasmBinary to its bytes";

// Fetches and compiles gort.wasm from the first of urls that serves it,
// streaming where the server sends application/wasm. Every failure (HTTP
// status, a page that is not wasm such as an SPA's index.html, a network
// error) is remembered; none served → GORT_WASM_FETCH naming each URL.
async function instantiateFrom(urls, importObject) {
  const tried = [];
  for (const url of urls) {
    try {
      if (isNodePath(url)) {
        const bytes = await readSource(url, 'gort.wasm');
        if (!isWasm(bytes)) throw new Error('the file is not WebAssembly');
        return await WebAssembly.instantiate(bytes, importObject());
      }
      const r = await fetch(url);
      if (!r.ok) throw new Error(`HTTP ${r.status}${r.statusText ? ' ' + r.statusText : ''}`);
      const type = r.headers.get('content-type') || '';
      if (typeof WebAssembly.instantiateStreaming === 'function' && /^application\/wasm\b/i.test(type)) {
        try {
          return await WebAssembly.instantiateStreaming(r, importObject());
        } catch (e) {
          if (e instanceof WebAssembly.LinkError) throw e;
          throw new Error(`not a usable WebAssembly module (${e && e.message ? e.message : e})`);
        }
      }
      const bytes = new Uint8Array(await r.arrayBuffer());
      if (!isWasm(bytes)) throw new Error(`the response is not WebAssembly (content-type ${type || 'none'})`);
      return await WebAssembly.instantiate(bytes, importObject());
    } catch (e) {
      if (e instanceof WebAssembly.LinkError) throw gortError(ErrorCode.INTERNAL, `gort.wasm from ${url} does not match this script: ${e.message}`);
      const why = e && e.message ? e.message.replace(/^GORT_\w+: /, '') : String(e);
      tried.push(`${url} (${why})`);
    }
  }
  throw gortError(ErrorCode.WASM_FETCH, `cannot load gort.wasm; tried ${tried.join(', ')}. ${HOW_TO_SET}.`, { urls: urls.slice() });
}

/**
 * wasmBackend(source) → a backend (see backends/index.js) running gort.wasm
 * here. source() gives (a promise of) {bytes} or {urls} (env.js's wasmSource); it is read
 * when the instance starts.
 */
export function wasmBackend(source) {
  let starting = null;
  let inst = null; // {api, go, instance, dead, pending: Set}

  let goPending = null;
  function go0() {
    if (!goPending) goPending = new platform.Go();
    return goPending;
  }

  // → {module, instance}; the module is kept for the thread pool's workers.
  async function instantiate() {
    const src = await source();
    if (src.module) {
      return { module: src.module, instance: await WebAssembly.instantiate(src.module, go0().importObject) };
    }
    if (src.bytes) {
      if (!isWasm(src.bytes)) throw gortError(ErrorCode.WASM_FETCH, 'env.wasmBinary is not WebAssembly (it should be the bytes of gort.wasm)');
      return WebAssembly.instantiate(src.bytes, go0().importObject);
    }
    return instantiateFrom(src.urls, () => go0().importObject);
  }

  async function start() {
    const { module, instance } = await instantiate();
    const go = go0();
    goPending = null;
    const key = `__gort_${Math.random().toString(36).slice(2)}_${Date.now()}`;
    let api = null;
    globalThis[key] = (a) => { api = a; };
    go.argv = ['gort', key];
    go.env = {};
    const state = { api: null, go, instance, module, pool: null, dead: false, pending: new Set() };
    go.exit = (code) => {
      state.dead = true;
      const err = gortError(ErrorCode.INTERNAL, `the gort runtime stopped (exit code ${code}); sessions must be created again`);
      for (const reject of state.pending) reject(err);
      state.pending.clear();
      if (inst === state) inst = null;
    };
    // Go's syscall package reads these globals once, during start-up.
    const restore = platform.installGoGlobals();
    try {
      go.run(instance).catch(() => {});
    } finally {
      restore();
      delete globalThis[key];
    }
    if (!api) throw gortError(ErrorCode.INTERNAL, 'gort.wasm did not start');
    if (api.version !== 1) throw gortError(ErrorCode.INTERNAL, `gort.wasm speaks bridge version ${api.version}, this script needs 1: serve the gort.wasm of the same build`);
    state.api = api;
    return state;
  }

  async function get() {
    if (inst && !inst.dead) return inst;
    if (!starting) {
      starting = start().then((s) => { inst = s; starting = null; return s; }, (e) => { starting = null; throw e; });
    }
    return starting;
  }

  // Calls a Promise-returning bridge function, rejecting if Go dies meanwhile.
  function track(state, f) {
    return new Promise((resolve, reject) => {
      state.pending.add(reject);
      let p;
      try {
        p = f(state.api);
      } catch (e) {
        state.pending.delete(reject);
        reject(gortError(ErrorCode.INTERNAL, `gort.wasm failed: ${e && e.message ? e.message : e}`));
        return;
      }
      p.then((v) => { state.pending.delete(reject); resolve(v); },
        (e) => { state.pending.delete(reject); reject(e); });
    });
  }

  function syncCall(state, f) {
    let v;
    try {
      v = f(state.api);
    } catch (e) {
      throw gortError(ErrorCode.INTERNAL, `gort.wasm failed: ${e && e.message ? e.message : e}`);
    }
    if (v instanceof Error) throw v;
    return v;
  }

  return {
    name: 'wasm',
    proxied: false,
    async ready() { await get(); },
    // The thread pool of the running instance (tests), or null.
    threadPool() { return inst ? inst.pool : null; },
    async load(bytes, opts) {
      const s = await get();
      const info = await track(s, (api) => api.load(bytes, opts));
      info.state = s;
      // More threads: the model loaded in the pool's workers too (threads.js).
      const n = await threadsFor(info.threads);
      if (n > 1 && info.splitSteps) {
        s.pool = s.pool || threadPool(s.module);
        info.pool = await s.pool.attach(bytes, opts, info, n);
      }
      return info;
    },
    async run(info, runId, feeds, fetches, ro) {
      const s = info.state;
      if (s.dead) throw gortError(ErrorCode.INTERNAL, 'the gort runtime stopped; create the session again');
      const t0 = performance.now();
      // A session whose last run was short runs synchronously (quick.js),
      // unless GPU outputs are asked for or its last run gave worker
      // threads parts (a synchronous run cannot wait for them).
      if (!info.lastRunSplit && info.lastRunMs < quickLimitMs(ro.yieldIntervalMs) && !(ro.gpuOutputs && ro.gpuOutputs.length)) {
        let out;
        try {
          out = runQuick(s.api, s.instance.exports.mem, info, feeds, fetches);
        } catch (e) {
          if (s.dead) throw gortError(ErrorCode.INTERNAL, `gort.wasm failed: ${e && e.message ? e.message : e}`);
          throw e;
        }
        if (out) {
          info.lastRunMs = performance.now() - t0;
          info.quickRuns = (info.quickRuns || 0) + 1; // for tests
          return out;
        }
      }
      const threads = info.pool ? info.pool.forRun : undefined;
      const parts = info.pool ? info.pool.parts : 0;
      const out = await track(s, (api) => api.run(info.id, runId, feeds, fetches, { yieldIntervalMs: ro.yieldIntervalMs, macrotask, gpuOutputs: ro.gpuOutputs, threads }));
      info.lastRunMs = performance.now() - t0;
      info.lastRunSplit = info.pool ? info.pool.parts > parts : false;
      return out;
    },
    abort(info, runId) {
      if (!info.state.dead) syncCall(info.state, (api) => api.abort(runId));
    },
    release(info) {
      if (info.pool) info.pool.release();
      if (!info.state.dead) syncCall(info.state, (api) => api.release(info.id));
    },
    // A worker's part of a split step (wasm/threads.go): the part's bytes.
    runPart(info, step, inputs, lo, hi, pixels, spare) {
      if (info.state.dead) throw gortError(ErrorCode.WORKER_LOST, 'the gort runtime of this worker stopped');
      return syncCall(info.state, (api) => api.runPart(info.id, step, inputs, lo, hi, pixels, spare));
    },
    async decode(bytes, kind) {
      const s = await get();
      return track(s, (api) => api.decode(bytes, kind));
    },
    async memory() {
      const s = await get();
      const m = syncCall(s, (api) => api.memory());
      m.wasmMemoryBytes = s.instance.exports.mem.buffer.byteLength;
      return m;
    },
    async ops() {
      const s = await get();
      return syncCall(s, (api) => api.ops());
    },
    // The providers in use by a session now (they change after a lost
    // WebGPU device): {executionProviders, webgpuUnavailable, adapter, placements}.
    providers(info) {
      if (info.state.dead) return info.providers;
      return syncCall(info.state, (api) => api.providers(info.id));
    },
    // The GPUDevice of WebGPU sessions (env.webgpu.device), opened if need be.
    async gpuDevice() {
      const s = await get();
      return track(s, (api) => api.gpuDevice());
    },
    // The model checks of checks.js: one of TOOLS, called with plain
    // arguments (bytes, wire tensors, option objects).
    async tool(name, args) {
      if (!TOOLS.includes(name)) throw gortError(ErrorCode.INTERNAL, `unknown tool ${name}`);
      const s = await get();
      return track(s, (api) => api[name](...args));
    },
  };
}

/** The bridge functions behind the model checks (wasm/checks.go). */
export const TOOLS = ['check', 'inferShapes', 'printGraph', 'capabilities', 'compareValues', 'diverge', 'readNpy', 'writeNpy'];
