// The thread pool (docs/threads.md). Go's WebAssembly port has no threads,
// so gort uses more cores with Workers (worker_threads in Node), each
// running its own instance of gort.wasm (the compiled WebAssembly.Module is
// posted, not compiled again). A threaded session's model is loaded in
// every worker with the same options, so each worker's plan has the same
// steps; during a run, gort.wasm hands the workers parts of its heavy
// steps (wasm/threads.go) and computes one part itself. One pool serves
// every session of the backend.
import { ErrorCode, errorFromPlain, gortError } from './errors.js';
import { env } from './env.js';
import { nodeImport } from './io.js';
import { isNode, platform } from './platform.js';

// onnxruntime-web's formula: min(4, ceil(cores / 2)), at least 1.
const threadsOfCores = (cores) => Math.max(1, Math.min(4, Math.ceil(cores / 2)));

/**
 * The default thread count (env.wasm.numThreads 0), as onnxruntime-web's:
 * threadsOfCores in Node and in cross-origin isolated pages, else 1 (where
 * onnxruntime-web cannot use threads). gort's threads need no isolation,
 * but each holds a copy of the model: a page that did not ask for threads
 * does not get that memory cost by surprise. numThreads or
 * intraOpNumThreads ask for them.
 */
async function defaultThreads() {
  if (isNode) {
    try { return threadsOfCores((await nodeImport('os')).availableParallelism()); } catch { return 1; }
  }
  if (!globalThis.crossOriginIsolated) return 1;
  return threadsOfCores(typeof navigator === 'object' && navigator && navigator.hardwareConcurrency ? navigator.hardwareConcurrency : 1);
}

/**
 * The threads a session runs on: its intraOpNumThreads (as gort.wasm read
 * it; 0 when not given), else env.wasm.numThreads, where 0 means the default.
 */
export async function threadsFor(sessionThreads) {
  const n = sessionThreads || Number(env.wasm.numThreads) || 0;
  if (!Number.isInteger(n) || n < 0) throw gortError(ErrorCode.INVALID_ARGUMENT, `env.wasm.numThreads must be a non-negative integer, got ${env.wasm.numThreads}`);
  return n === 0 ? defaultThreads() : n;
}

// A worker: post(msg, transfer) → Promise of its reply; dead once it
// failed, exited or was terminated (every pending post then rejects).
async function startThread(module) {
  let w;
  const pending = new Map();
  let nextId = 1;
  const worker = { dead: false };
  const fail = (why) => {
    if (worker.dead) return;
    worker.dead = true;
    const err = gortError(ErrorCode.WORKER_LOST, `a gort worker thread stopped: ${why}`);
    for (const { reject } of pending.values()) reject(err);
    pending.clear();
    try { w.terminate(); } catch { /* already gone */ }
  };
  // In Node an idle worker does not keep the process alive; one that owes
  // a reply does.
  const hold = (on) => { if (isNode) { if (on) w.ref(); else w.unref(); } };
  const onReply = (m) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (!pending.size) hold(false);
    if (m.ok) p.resolve(m.value); else p.reject(errorFromPlain(m.error));
  };
  if (isNode) {
    const { Worker } = await nodeImport('worker_threads');
    w = new Worker(platform.workerUrl());
    w.on('message', onReply);
    w.on('error', (e) => fail(e && e.message ? e.message : String(e)));
    w.on('exit', (code) => fail(`exit code ${code}`));
    w.unref();
  } else {
    if (!platform.newWorker) throw gortError(ErrorCode.INVALID_ARGUMENT, 'this build of gort has no worker file for threads');
    w = platform.newWorker();
    w.onmessage = (ev) => onReply(ev.data);
    w.onerror = (ev) => { if (ev.preventDefault) ev.preventDefault(); fail(ev.message || 'could not load gort.worker.mjs'); };
  }
  worker.post = (msg, transfer) => {
    if (worker.dead) return Promise.reject(gortError(ErrorCode.WORKER_LOST, 'the gort worker thread stopped'));
    const id = nextId++;
    return new Promise((resolve, reject) => {
      if (!pending.size) hold(true);
      pending.set(id, { resolve, reject });
      w.postMessage(Object.assign({ id }, msg), transfer || []);
    });
  };
  worker.send = (msg, transfer) => { if (!worker.dead) w.postMessage(Object.assign({ id: 0 }, msg), transfer || []); }; // no reply
  worker.kill = () => fail('terminated'); // tests: a worker lost
  await worker.post({ type: 'init', module });
  return worker;
}

/**
 * threadPool(module) → the pool of one backend: workers started on demand
 * (a session asking for n threads gets n − 1 workers; the pool grows to the
 * largest count asked), shared by its sessions.
 */
export function threadPool(module) {
  const workers = [];
  const stats = { parts: 0 };
  let growing = Promise.resolve();
  async function grow(n) {
    growing = growing.then(async () => {
      for (let i = workers.filter((w) => !w.dead).length; i < n; i++) workers.push(await startThread(module));
    });
    await growing;
    return workers.filter((w) => !w.dead).slice(0, n);
  }
  return {
    /**
     * attach(bytes, opts, info, n) → the session's threads, or null when
     * it gets none: its model loaded in n − 1 workers, each checked to
     * have compiled the same plan. A worker that fails to load is left out.
     */
    async attach(bytes, opts, info, n) {
      if (n < 2 || !info.splitSteps) return null;
      let mine;
      try {
        mine = await grow(n - 1);
      } catch (e) {
        if (info.logSeverityLevel <= 2) console.warn('[gort]', `no worker threads (${e && e.message ? e.message : e}); the session runs on one thread`);
        return null;
      }
      const loaded = await Promise.all(mine.map(async (w) => {
        try {
          // One thread in the worker: a worker starts no pool of its own.
          const r = await w.post({ type: 'load', bytes: bytes.slice(), opts: Object.assign({}, opts, { intraOpNumThreads: 1 }) });
          if (r.fingerprint !== info.fingerprint) {
            w.send({ type: 'release', handle: r.id });
            return null;
          }
          return { w, handle: r.id };
        } catch {
          return null;
        }
      }));
      const members = loaded.filter(Boolean);
      if (!members.length) return null;
      return sessionThreads(members, info, stats);
    },
    workers,
    stats, // {parts, onPart}: the parts handed to workers so far; onPart(worker) is called after each (tests)
  };
}

// The threads of one session: the object gort.wasm's run calls
// (workers(), start()), release, and the count in use.
function sessionThreads(members, info, stats) {
  // Input buffers the workers sent back, for the next parts' inputs.
  const spare = [];
  const keep = (b) => {
    spare.push(b);
    if (spare.length > 8) spare.sort((x, y) => x.byteLength - y.byteLength).shift();
  };
  // A member that failed a part (its worker died, or computed no part)
  // takes no more of this session's parts.
  const live = () => members.filter((m) => !m.w.dead && !m.failed);
  let warned = false;
  const lost = (e) => {
    if (!warned && info.logSeverityLevel <= 2) console.warn('[gort]', `${ErrorCode.WORKER_LOST}: a worker thread failed (${e && e.message ? e.message : e}); its part ran on the calling thread`);
    warned = true;
  };
  const st = {
    get count() { return live().length + 1; },
    parts: 0, // handed out by this session's runs
    forRun: {
      workers: () => live().length,
      // An input's buffer: one a worker sent back, else a fresh one.
      buffer(n) {
        let best = -1;
        for (let i = 0; i < spare.length; i++) {
          if (spare[i].byteLength >= n && (best < 0 || spare[i].byteLength < spare[best].byteLength)) best = i;
        }
        if (best < 0) return new Uint8Array(n);
        return new Uint8Array(spare.splice(best, 1)[0], 0, n);
      },
      start(w, step, inputs, lo, hi, pixels, done) {
        const m = live()[w];
        if (!m) { done(new Error('no such worker')); return; }
        stats.parts++;
        st.parts++;
        const transfer = [];
        for (const t of inputs) if (t && t.bytes) transfer.push(t.bytes.buffer);
        m.w.post({ type: 'part', handle: m.handle, step, inputs, lo, hi, pixels }, transfer)
          .then((r) => {
            for (const b of r.inputs) keep(b);
            done(r.bytes);
          }, (e) => {
            m.failed = true;
            lost(e);
            done(e instanceof Error ? e : new Error(String(e)));
          });
        if (stats.onPart) stats.onPart(m.w); // tests: lose the worker now
      },
      // The part's buffer goes back to its worker, to be written again.
      recycle(w, bytes) {
        const m = live()[w];
        if (m && bytes && bytes.buffer) m.w.send({ type: 'recycle', buf: bytes.buffer }, [bytes.buffer]);
      },
    },
    release() {
      for (const m of members) m.w.send({ type: 'release', handle: m.handle });
    },
    members,
  };
  return st;
}
