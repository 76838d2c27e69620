// The proxy backend: runs sessions in a module Worker (dist/gort.worker.mjs)
// so that the page's thread never runs the model. The worker serves the
// same backend interface with an in-thread wasm backend of its own
// (serveWorker); payloads are transferred, not copied, where possible.
import { ErrorCode, errorFromPlain, errorToPlain, gortError } from '../errors.js';
import { startWorker, wasmSource } from '../env.js';
import { detachable, transferList } from '../wire.js';
import { wasmBackend } from './wasm.js';

export function proxyBackend() {
  let worker = null;
  let nextId = 1;
  const pending = new Map();
  let ready = null;

  function fail(err) {
    for (const { reject } of pending.values()) reject(err);
    pending.clear();
    if (worker) worker.terminate();
    worker = null;
    ready = null;
  }

  function post(msg, transfer) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage(Object.assign({ id }, msg), transfer || []);
    });
  }

  function ensure() {
    if (!ready) {
      ready = start();
      ready.catch(() => {
        ready = null;
        if (worker) worker.terminate();
        worker = null;
      });
    }
    return ready;
  }

  async function start() {
    const src = await wasmSource();
    worker = await startWorker();
    worker.onmessage = (ev) => {
      const m = ev.data;
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.ok) p.resolve(m.value); else p.reject(errorFromPlain(m.error));
    };
    worker.onerror = (ev) => {
      if (ev.preventDefault) ev.preventDefault();
      fail(gortError(ErrorCode.INTERNAL, `the gort proxy worker failed: ${ev.message || 'could not load gort.worker.mjs (serve it next to gort.wasm)'}`));
    };
    worker.onmessageerror = () => fail(gortError(ErrorCode.INTERNAL, 'the gort proxy worker sent an unreadable message'));
    // The worker gets its own copy of the binary override (it may be reused here).
    await post({ type: 'init', urls: src.urls || null, wasmBinary: src.bytes ? src.bytes.slice() : null });
  }

  return {
    name: 'wasm (proxy worker)',
    proxied: true,
    async ready() { await ensure(); },
    async load(bytes, opts) {
      await ensure();
      const transfer = [];
      const b = bytes.slice();
      transfer.push(b.buffer);
      const o = Object.assign({}, opts);
      if (Array.isArray(o.externalData)) o.externalData = o.externalData.map((e) => (e && e.data instanceof Uint8Array ? { path: e.path, data: e.data.slice() } : e));
      const info = await post({ type: 'load', bytes: b, opts: o }, transfer);
      info.proxied = true;
      return info;
    },
    async run(info, runId, feeds, fetches, ro) {
      await ensure();
      const transfer = [];
      const f = {};
      for (const k of Object.keys(feeds)) {
        // A GPUBuffer cannot be posted to the worker, whose device is its own.
        if (feeds[k] && feeds[k].gpuBuffer) throw gortError(ErrorCode.INVALID_FEED, `"${k}": GPU-buffer tensors cannot be fed to a session in the proxy worker (env.wasm.proxy); use await tensor.getData()`, { tensor: k });
        f[k] = detachable(feeds[k], transfer);
      }
      return post({ type: 'run', handle: info.id, runId, feeds: f, fetches, yieldIntervalMs: ro.yieldIntervalMs }, transfer);
    },
    abort(info, runId) {
      if (worker) worker.postMessage({ id: 0, type: 'abort', runId });
    },
    release(info) {
      if (worker) worker.postMessage({ id: 0, type: 'release', handle: info.id });
    },
    async gpuDevice() {
      throw gortError(ErrorCode.INVALID_ARGUMENT, 'env.webgpu.device: the GPUDevice of proxied sessions (env.wasm.proxy) lives in the worker');
    },
    async decode(bytes, kind) {
      await ensure();
      return post({ type: 'decode', bytes: bytes.slice(), kind });
    },
    async memory() {
      await ensure();
      return post({ type: 'memory' });
    },
    async ops() {
      await ensure();
      return post({ type: 'ops' });
    },
    async tool(name, args) {
      await ensure();
      return post({ type: 'tool', name, args });
    },
  };
}

// The worker side of the proxy, and of the thread pool's workers
// (threads.js): answers their messages with an in-thread wasm backend.
// Called by dist/gort.worker.mjs with the worker's global scope, or in Node
// with nodeScope's stand-in for it.
export function serveWorker(scope) {
  let backend = null;
  const infos = new Map();
  const spare = []; // a thread's part buffers, sent back to be written again
  scope.onmessage = async (ev) => {
    const m = ev.data;
    const reply = (value, transfer) => scope.postMessage({ id: m.id, ok: true, value }, transfer || []);
    const replyErr = (e) => scope.postMessage({ id: m.id, ok: false, error: errorToPlain(e) });
    try {
      switch (m.type) {
        case 'init': {
          // A thread of the pool (threads.js) gets the compiled module.
          const src = m.module ? { module: m.module } : m.wasmBinary ? { bytes: m.wasmBinary } : { urls: m.urls };
          backend = wasmBackend(() => src);
          await backend.ready(); // report start-up errors here
          reply(true);
          break;
        }
        case 'load': {
          const info = await backend.load(m.bytes, m.opts);
          infos.set(info.id, info);
          const { state, pool, ...plain } = info; // eslint-disable-line no-unused-vars
          plain.threadCount = pool ? pool.count : 1;
          reply(plain);
          break;
        }
        case 'run': {
          const info = infos.get(m.handle);
          if (!info) throw gortError(ErrorCode.INVALID_ARGUMENT, 'the session was released');
          const out = await backend.run(info, m.runId, m.feeds, m.fetches, { yieldIntervalMs: m.yieldIntervalMs });
          reply(out, transferList(Object.values(out)));
          break;
        }
        case 'part': { // a thread's part of a split step (threads.js)
          const info = infos.get(m.handle);
          if (!info) throw gortError(ErrorCode.INVALID_ARGUMENT, 'the session was released');
          // Into the largest buffer the pool sent back (recycle), if any.
          spare.sort((a, b) => a.byteLength - b.byteLength);
          const buf = spare.pop();
          const bytes = backend.runPart(info, m.step, m.inputs, m.lo, m.hi, m.pixels, buf ? new Uint8Array(buf) : undefined);
          if (buf && bytes.buffer !== buf) spare.push(buf);
          // The inputs' buffers go back too, for the next parts' inputs.
          const inputs = m.inputs.filter((t) => t && t.bytes).map((t) => t.bytes.buffer);
          reply({ bytes, inputs }, [bytes.buffer, ...inputs]);
          break;
        }
        case 'recycle': {
          spare.push(m.buf);
          if (spare.length > 4) spare.sort((a, b) => a.byteLength - b.byteLength).shift();
          break;
        }
        case 'abort': {
          for (const info of infos.values()) backend.abort(info, m.runId);
          break;
        }
        case 'release': {
          const info = infos.get(m.handle);
          if (info) { backend.release(info); infos.delete(m.handle); }
          break;
        }
        case 'decode': reply(await backend.decode(m.bytes, m.kind)); break;
        case 'memory': reply(await backend.memory()); break;
        case 'ops': reply(await backend.ops()); break;
        case 'tool': reply(await backend.tool(m.name, m.args)); break;
        default: throw gortError(ErrorCode.INTERNAL, `unknown proxy message ${m.type}`);
      }
    } catch (e) {
      if (m.id) replyErr(e);
    }
  };
}

/** A Worker scope's onmessage/postMessage over Node's worker_threads parentPort. */
export function nodeScope(port) {
  return {
    postMessage: (msg, transfer) => port.postMessage(msg, transfer),
    set onmessage(f) { port.on('message', (data) => f({ data })); },
  };
}
