// gort's JavaScript API: the platform-independent core.
//
// This file is not a module on its own. js/build.sh wraps it (after Go's
// wasm_exec.js) into dist/gort.mjs (ES module), dist/gort.js (classic script
// defining the global `gort`) and dist/gort.cjs (CommonJS). Each wrapper calls
// createGort(platform) with what only it can know: the URL of the file that
// was loaded (so gort.wasm and the proxy worker are found next to it) and
// Go's `Go` class (kept off the global object).
//
// The API follows onnxruntime-web's (InferenceSession.create / run / release,
// Tensor, env) so that switching packages is a one-line change for the common
// path. No eval, no new Function, no blob: URLs: everything works under a CSP
// of script-src 'self' 'wasm-unsafe-eval'.

/* eslint-disable no-restricted-globals */

function createGort(platform) {
  'use strict';

  const GoClass = platform.Go;
  const isNode = typeof process === 'object' && process !== null &&
    typeof process.versions === 'object' && process.versions !== null && !!process.versions.node;

  // ---------------------------------------------------------------- errors

  /** Error codes, as in runtime/errs (stable: never change meaning). */
  const ErrorCode = Object.freeze({
    BAD_MODEL: 'GORT_BAD_MODEL',
    UNSUPPORTED_OP: 'GORT_UNSUPPORTED_OP',
    INVALID_FEED: 'GORT_INVALID_FEED',
    INVALID_ARGUMENT: 'GORT_INVALID_ARGUMENT',
    TOO_LARGE: 'GORT_TOO_LARGE',
    EXTERNAL_DATA: 'GORT_EXTERNAL_DATA',
    RUNTIME: 'GORT_RUNTIME',
    ABORTED: 'GORT_ABORTED',
    INTERNAL: 'GORT_INTERNAL',
  });

  function gortError(code, message, extra) {
    const e = new Error(`${code}: ${message}`);
    e.code = code;
    if (extra) Object.assign(e, extra);
    return e;
  }

  // Errors cross postMessage as plain objects (structured clone drops an
  // Error's own properties such as .code), and are rebuilt on arrival.
  function errorToPlain(e) {
    if (e && typeof e === 'object') {
      return { message: String(e.message), code: e.code || ErrorCode.INTERNAL, node: e.node, tensor: e.tensor };
    }
    return { message: String(e), code: ErrorCode.INTERNAL };
  }
  function errorFromPlain(p) {
    const e = new Error(p.message);
    e.code = p.code;
    if (p.node !== undefined) e.node = p.node;
    if (p.tensor !== undefined) e.tensor = p.tensor;
    return e;
  }

  // ---------------------------------------------------------------- tensors

  // ORT type name → typed array constructor for .data. Types onnxruntime-web
  // lacks follow gort's Go storage: bfloat16 as Uint16Array bits, int4/int2
  // and uint4/uint2 one element per byte, 8-bit floats and float4 as raw
  // codes, complex as interleaved (re, im) pairs.
  const ARRAY_OF = {
    float32: Float32Array, float64: Float64Array,
    int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
    int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
    bool: Uint8Array, float16: Uint16Array, bfloat16: Uint16Array,
    int4: Int8Array, uint4: Uint8Array, int2: Int8Array, uint2: Uint8Array,
    float8e4m3fn: Uint8Array, float8e4m3fnuz: Uint8Array, float8e5m2: Uint8Array,
    float8e5m2fnuz: Uint8Array, float8e8m0: Uint8Array, float4e2m1: Uint8Array,
    complex64: Float32Array, complex128: Float64Array,
  };
  const TYPES = Object.freeze(Object.keys(ARRAY_OF).concat(['string']));
  const Float16ArrayCtor = typeof globalThis.Float16Array === 'function' ? globalThis.Float16Array : null;
  const perElem = (type) => (type === 'complex64' || type === 'complex128' ? 2 : 1);

  function sizeOf(dims) {
    let n = 1;
    for (const d of dims) n *= d;
    return n;
  }

  function checkDims(dims, what) {
    if (!Array.isArray(dims) && !(ArrayBuffer.isView(dims))) {
      throw gortError(ErrorCode.INVALID_ARGUMENT, `${what}: dims must be an array of non-negative integers`);
    }
    const out = Array.from(dims, Number);
    for (const d of out) {
      if (!Number.isSafeInteger(d) || d < 0) {
        throw gortError(ErrorCode.INVALID_ARGUMENT, `${what}: dims [${out}] must be non-negative integers`);
      }
    }
    return out;
  }

  // Converts plain arrays to the typed array of the type (as onnxruntime-web
  // does), and accepts Float16Array for float16.
  function coerceData(type, data) {
    if (type === 'string') {
      if (!Array.isArray(data) || data.some((s) => typeof s !== 'string')) {
        throw gortError(ErrorCode.INVALID_ARGUMENT, 'string tensors take an array of strings');
      }
      return data;
    }
    const Ctor = ARRAY_OF[type];
    if (!Ctor) {
      throw gortError(ErrorCode.INVALID_ARGUMENT, `unknown tensor type '${type}'; gort knows ${TYPES.join(', ')}`);
    }
    if (data instanceof Ctor) return data;
    if (type === 'float16' && Float16ArrayCtor && data instanceof Float16ArrayCtor) return data;
    if (Array.isArray(data)) {
      if (type === 'float16' || type === 'bfloat16') {
        throw gortError(ErrorCode.INVALID_ARGUMENT, `${type} data must be a Uint16Array of bit patterns${Float16ArrayCtor ? ' or a Float16Array' : ''}`);
      }
      if (Ctor === BigInt64Array || Ctor === BigUint64Array) return Ctor.from(data, (x) => BigInt(x));
      if (type === 'bool') return Uint8Array.from(data, (x) => (x ? 1 : 0));
      return Ctor.from(data);
    }
    const got = data === null || data === undefined ? String(data) : (data.constructor ? data.constructor.name : typeof data);
    throw gortError(ErrorCode.INVALID_ARGUMENT, `${type} tensors take a ${Ctor.name}${type === 'float16' && Float16ArrayCtor ? ' or Float16Array' : ''}, got ${got}`);
  }

  function inferType(data) {
    if (Array.isArray(data)) {
      if (data.length && typeof data[0] === 'string') return 'string';
      if (data.length && typeof data[0] === 'boolean') return 'bool';
      return 'float32';
    }
    const byCtor = new Map([[Float32Array, 'float32'], [Float64Array, 'float64'], [Int8Array, 'int8'],
      [Uint8Array, 'uint8'], [Int16Array, 'int16'], [Uint16Array, 'uint16'], [Int32Array, 'int32'],
      [Uint32Array, 'uint32'], [BigInt64Array, 'int64'], [BigUint64Array, 'uint64']]);
    if (Float16ArrayCtor) byCtor.set(Float16ArrayCtor, 'float16');
    for (const [C, t] of byCtor) if (data instanceof C) return t;
    throw gortError(ErrorCode.INVALID_ARGUMENT, 'cannot infer the tensor type from the data; pass the type first: new Tensor(type, data, dims)');
  }

  /**
   * A tensor: new Tensor(type, data, dims), new Tensor(type, data) (1-D) or
   * new Tensor(typedArray, dims) (type from the array). Data is not copied.
   */
  class Tensor {
    constructor(a, b, c) {
      let type, data, dims;
      if (typeof a === 'string') {
        type = a; data = b; dims = c;
      } else {
        data = a; dims = b; type = inferType(a);
      }
      data = coerceData(type, data);
      const perE = perElem(type);
      if (dims === undefined) dims = [data.length / perE];
      dims = checkDims(dims, `${type} tensor`);
      const size = sizeOf(dims);
      if (data.length !== size * perE) {
        throw gortError(ErrorCode.INVALID_ARGUMENT, `${type} tensor of dims [${dims}] needs ${size * perE} values, data has ${data.length}`);
      }
      Object.defineProperty(this, 'type', { value: type, enumerable: true });
      Object.defineProperty(this, 'dims', { value: Object.freeze(dims), enumerable: true });
      Object.defineProperty(this, 'size', { value: size, enumerable: true });
      this.data = data;
    }
    get location() { return 'cpu'; }
    get cpuData() { return this.data; }
    /** Resolves to the data (onnxruntime-web compatibility; gort tensors always live on the CPU). */
    async getData() { return this.data; }
    /** A tensor of other dims sharing this one's data. */
    reshape(dims) { return new Tensor(this.type, this.data, dims); }
    /** Drops the reference to the data (the GC frees it). */
    dispose() { this.data = this.type === 'string' ? [] : new ARRAY_OF[this.type](0); }
  }

  // Tensor → wire value (see wasm/convert.go). Numeric data travels as a byte
  // view of the caller's typed array: no copy here, one bulk copy into Go.
  function tensorToWire(t, name) {
    const where = name === undefined ? 'tensor' : `"${name}"`;
    if (t === null || typeof t !== 'object' || typeof t.type !== 'string') {
      throw gortError(ErrorCode.INVALID_FEED, `${where}: expected a Tensor, got ${t === null ? 'null' : typeof t}`, { tensor: name });
    }
    const type = t.type;
    if (type !== 'string' && !ARRAY_OF[type]) {
      throw gortError(ErrorCode.INVALID_FEED, `${where}: unknown tensor type '${type}'`, { tensor: name });
    }
    let dims;
    try {
      dims = checkDims(t.dims, where);
    } catch (e) {
      throw gortError(ErrorCode.INVALID_FEED, e.message.replace(/^GORT_\w+: /, ''), { tensor: name });
    }
    const size = sizeOf(dims);
    const data = t.data;
    if (type === 'string') {
      if (!Array.isArray(data)) throw gortError(ErrorCode.INVALID_FEED, `${where}: string tensor data must be an array of strings`, { tensor: name });
      if (data.length !== size) {
        throw gortError(ErrorCode.INVALID_FEED, `${where}: dims [${dims}] need ${size} elements, data has ${data.length}`, { tensor: name });
      }
      return { kind: 'tensor', type, dims, strings: data };
    }
    const Ctor = ARRAY_OF[type];
    const okArray = data instanceof Ctor || (type === 'float16' && Float16ArrayCtor && data instanceof Float16ArrayCtor);
    if (!okArray) {
      const got = data && data.constructor ? data.constructor.name : typeof data;
      throw gortError(ErrorCode.INVALID_FEED, `${where}: ${type} data must be a ${Ctor.name}, got ${got}`, { tensor: name });
    }
    const want = size * perElem(type);
    if (data.length !== want) {
      throw gortError(ErrorCode.INVALID_FEED, `${where}: dims [${dims}] need ${want} elements, data has ${data.length}`, { tensor: name });
    }
    return { kind: 'tensor', type, dims, bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
  }

  // A feed value: a Tensor, an array of Tensors (an ONNX sequence), or null
  // (an empty ONNX optional).
  function feedToWire(v, name) {
    if (v === null || v === undefined) return { kind: 'none' };
    if (Array.isArray(v)) return { kind: 'sequence', items: v.map((t) => tensorToWire(t, name)) };
    return tensorToWire(v, name);
  }

  function wireToValue(w) {
    if (w === null || w === undefined) return null;
    switch (w.kind) {
      case 'tensor': {
        if (w.type === 'string') return new Tensor('string', w.strings, w.dims);
        const Ctor = ARRAY_OF[w.type];
        const b = w.bytes;
        return new Tensor(w.type, new Ctor(b.buffer, b.byteOffset, b.byteLength / Ctor.BYTES_PER_ELEMENT), w.dims);
      }
      case 'sequence': return w.items.map(wireToValue);
      case 'optional': return wireToValue(w.value);
    }
    throw gortError(ErrorCode.INTERNAL, `unknown value kind ${w.kind}`);
  }

  // ---------------------------------------------------------------- env

  const env = {
    /** Overrides where gort.wasm is fetched from: a directory prefix ending in '/' or the file's full URL. */
    wasmPaths: undefined,
    /** The bytes of gort.wasm (ArrayBuffer or Uint8Array), skipping the fetch. */
    wasmBinary: undefined,
    /** Default log level for sessions: 'verbose' | 'info' | 'warning' | 'error' | 'fatal'. */
    logLevel: 'warning',
    wasm: {
      /** Run sessions in a module Worker (browsers; ignored in Node). Set before the first create(). */
      proxy: false,
      /** gort is single-threaded; accepted for onnxruntime-web compatibility. */
      numThreads: 1,
      simd: true,
      /** onnxruntime-web spelling of env.wasmPaths / env.wasmBinary (take precedence when set). */
      wasmPaths: undefined,
      wasmBinary: undefined,
      /**
       * How often (ms) a run hands the event loop a turn, so that an AbortSignal
       * (and, without the proxy, the page) is served while a model runs.
       * Smaller is more responsive and slower; 0 yields between every node.
       */
      yieldIntervalMs: 10,
    },
    versions: { gort: platform.version || '0.0.0' },
  };

  const LOG_LEVELS = ['verbose', 'info', 'warning', 'error', 'fatal'];

  function wasmLocation() {
    const paths = env.wasm.wasmPaths !== undefined ? env.wasm.wasmPaths : env.wasmPaths;
    let base = platform.base;
    if (!base && typeof location === 'object' && location && location.href) base = location.href;
    if (paths === undefined || paths === null || paths === '') {
      if (!base) throw gortError(ErrorCode.INVALID_ARGUMENT, 'cannot tell where gort.wasm is: set gort.env.wasmPaths or gort.env.wasmBinary');
      return new URL('gort.wasm', base).href;
    }
    const docBase = typeof document === 'object' && document && document.baseURI ? document.baseURI : (base || undefined);
    let p = paths;
    if (typeof p === 'object' && !(p instanceof URL)) p = p.wasm;
    p = String(p);
    if (!isNode || /^[a-z][a-z0-9+.-]*:/i.test(p)) {
      const u = new URL(p, docBase);
      return u.pathname.endsWith('.wasm') ? u.href : new URL('gort.wasm', u.href.endsWith('/') ? u.href : u.href + '/').href;
    }
    return p.endsWith('.wasm') ? p : p.replace(/\/?$/, '/') + 'gort.wasm'; // a Node path
  }

  function wasmBinaryOverride() {
    const b = env.wasm.wasmBinary !== undefined ? env.wasm.wasmBinary : env.wasmBinary;
    if (b === undefined || b === null) return null;
    return toBytes(b, 'env.wasmBinary');
  }

  // ---------------------------------------------------------------- I/O

  function toBytes(src, what) {
    if (src instanceof Uint8Array) return src;
    if (src instanceof ArrayBuffer) return new Uint8Array(src);
    if (ArrayBuffer.isView(src)) return new Uint8Array(src.buffer, src.byteOffset, src.byteLength);
    if (typeof SharedArrayBuffer === 'function' && src instanceof SharedArrayBuffer) return new Uint8Array(src);
    throw gortError(ErrorCode.INVALID_ARGUMENT, `${what} must be a Uint8Array, an ArrayBuffer, a URL or a file path`);
  }

  // Module specifiers are computed so that bundlers targeting the browser do
  // not try to resolve Node's built-ins.
  const nodeImport = (m) => import(/* webpackIgnore: true */ /* @vite-ignore */ ['node', m].join(':'));

  const isURLString = (s) => /^(https?|file|data|blob):/i.test(s);

  // Reads a model or data file: fetch for URLs (with progress), the file
  // system for paths in Node.
  async function readSource(src, what, onProgress) {
    if (src instanceof URL) src = src.href;
    if (typeof src !== 'string') return toBytes(src, what);
    try {
      if (isNode && !/^(https?|data|blob):/i.test(src)) {
        const fs = await nodeImport('fs/promises');
        let path = src;
        if (/^file:/i.test(src)) path = (await nodeImport('url')).fileURLToPath(src);
        const buf = await fs.readFile(path);
        const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
        if (onProgress) onProgress(bytes.byteLength, bytes.byteLength);
        return bytes;
      }
      const resp = await fetch(src);
      if (!resp.ok) throw new Error(`HTTP ${resp.status} ${resp.statusText}`);
      const total = Number(resp.headers.get('content-length')) || 0;
      if (!onProgress || !resp.body || typeof resp.body.getReader !== 'function') {
        const bytes = new Uint8Array(await resp.arrayBuffer());
        if (onProgress) onProgress(bytes.byteLength, bytes.byteLength);
        return bytes;
      }
      const reader = resp.body.getReader();
      const chunks = [];
      let loaded = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        loaded += value.byteLength;
        onProgress(loaded, Math.max(total, loaded));
      }
      const bytes = new Uint8Array(loaded);
      let off = 0;
      for (const c of chunks) { bytes.set(c, off); off += c.byteLength; }
      if (loaded === 0) onProgress(0, 0);
      return bytes;
    } catch (e) {
      if (e && e.code && String(e.code).startsWith('GORT_')) throw e;
      throw gortError(ErrorCode.INVALID_ARGUMENT, `cannot read ${what} from ${src}: ${e && e.message ? e.message : e}`);
    }
  }

  // setImmediate in Node; elsewhere a MessageChannel round trip, which (unlike
  // setTimeout(0), clamped to 4 ms when nested) costs microseconds.
  const macrotask = (() => {
    if (typeof setImmediate === 'function') return (cb) => { setImmediate(cb); };
    if (typeof MessageChannel === 'function') {
      const ch = new MessageChannel();
      const queue = [];
      ch.port1.onmessage = () => { const cb = queue.shift(); if (cb) cb(); };
      return (cb) => { queue.push(cb); ch.port2.postMessage(0); };
    }
    return (cb) => { setTimeout(cb, 0); };
  })();

  // ---------------------------------------------------------------- direct backend

  // Runs gort.wasm in this thread. One Go instance per backend serves every
  // session; it is started on first use and restarted if it ever dies.
  function directBackend(config) {
    let starting = null;
    let inst = null; // {api, go, instance, dead, pending:Set}

    async function instantiate() {
      let bytes = config.wasmBinary ? config.wasmBinary() : null;
      let result;
      if (bytes) {
        result = await WebAssembly.instantiate(bytes, go0().importObject);
      } else {
        const url = config.wasmUrl();
        if (isNode && !/^(https?|data|blob):/i.test(url)) {
          bytes = await readSource(url, 'gort.wasm');
          result = await WebAssembly.instantiate(bytes, go0().importObject);
        } else {
          const resp = fetch(url);
          if (typeof WebAssembly.instantiateStreaming === 'function') {
            try {
              result = await WebAssembly.instantiateStreaming(resp, go0().importObject);
            } catch (e) {
              // Wrong MIME type (application/wasm needed) or a failed fetch: retry the plain way.
              const r = await fetch(url);
              if (!r.ok) throw gortError(ErrorCode.INTERNAL, `cannot fetch gort.wasm from ${url}: HTTP ${r.status}`);
              result = await WebAssembly.instantiate(await r.arrayBuffer(), go0().importObject);
            }
          } else {
            const r = await resp;
            if (!r.ok) throw gortError(ErrorCode.INTERNAL, `cannot fetch gort.wasm from ${url}: HTTP ${r.status}`);
            result = await WebAssembly.instantiate(await r.arrayBuffer(), go0().importObject);
          }
        }
      }
      return result.instance;
    }

    let goPending = null;
    function go0() {
      if (!goPending) goPending = new GoClass();
      return goPending;
    }

    async function start() {
      const instance = await instantiate();
      const go = go0();
      goPending = null;
      const key = `__gort_${Math.random().toString(36).slice(2)}_${Date.now()}`;
      let api = null;
      globalThis[key] = (a) => { api = a; };
      go.argv = ['gort', key];
      go.env = {};
      const state = { api: null, go, instance, dead: false, pending: new Set() };
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
      async load(bytes, opts) {
        const s = await get();
        const info = await track(s, (api) => api.load(bytes, opts));
        info.state = s;
        return info;
      },
      async run(info, runId, feeds, fetches, ro) {
        const s = info.state;
        if (s.dead) throw gortError(ErrorCode.INTERNAL, 'the gort runtime stopped; create the session again');
        return track(s, (api) => api.run(info.id, runId, feeds, fetches, { yieldIntervalMs: ro.yieldIntervalMs, macrotask }));
      },
      abort(info, runId) {
        if (!info.state.dead) syncCall(info.state, (api) => api.abort(runId));
      },
      release(info) {
        if (!info.state.dead) syncCall(info.state, (api) => api.release(info.id));
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
    };
  }

  // ---------------------------------------------------------------- proxy backend

  // Runs sessions in a module Worker (dist/gort.worker.mjs, found next to this
  // file), so that the page's thread never runs the model. Same messages as
  // the direct backend's calls; payloads are transferred, not copied, where
  // possible.
  function proxyBackend() {
    if (typeof Worker !== 'function') throw gortError(ErrorCode.INVALID_ARGUMENT, 'env.wasm.proxy needs Worker support');
    const base = platform.base || (typeof location === 'object' && location ? location.href : undefined);
    const workerUrl = platform.workerUrl || new URL('gort.worker.mjs', base).href;
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
      if (ready) return ready;
      worker = new Worker(workerUrl, { type: 'module', name: 'gort' });
      worker.onmessage = (ev) => {
        const m = ev.data;
        const p = pending.get(m.id);
        if (!p) return;
        pending.delete(m.id);
        if (m.ok) p.resolve(m.value); else p.reject(errorFromPlain(m.error));
      };
      worker.onerror = (ev) => {
        ev.preventDefault && ev.preventDefault();
        fail(gortError(ErrorCode.INTERNAL, `the gort proxy worker (${workerUrl}) failed: ${ev.message || 'could not load it'}`));
      };
      worker.onmessageerror = () => fail(gortError(ErrorCode.INTERNAL, 'the gort proxy worker sent an unreadable message'));
      let wasmUrl = null;
      const bin = wasmBinaryOverride();
      if (!bin) wasmUrl = wasmLocation();
      // The worker gets its own copy of the binary override (it may be reused here).
      ready = post({ type: 'init', wasmUrl, wasmBinary: bin ? bin.slice() : null });
      return ready;
    }

    // Copies a view's bytes into a buffer of their own, so that posting it
    // does not clone (or detach) the whole buffer the caller's array lives in.
    function detachable(wire, transfer) {
      if (!wire) return wire;
      if (wire.bytes) {
        const own = wire.bytes.slice();
        transfer.push(own.buffer);
        return Object.assign({}, wire, { bytes: own });
      }
      if (wire.items) return Object.assign({}, wire, { items: wire.items.map((w) => detachable(w, transfer)) });
      return wire;
    }

    return {
      proxied: true,
      async load(bytes, opts) {
        await ensure();
        const transfer = [];
        const b = bytes.slice();
        transfer.push(b.buffer);
        const o = Object.assign({}, opts);
        if (o.externalData) o.externalData = o.externalData.map((e) => ({ path: e.path, data: e.data.slice() }));
        const info = await post({ type: 'load', bytes: b, opts: o }, transfer);
        info.proxied = true;
        return info;
      },
      async run(info, runId, feeds, fetches, ro) {
        await ensure();
        const transfer = [];
        const f = {};
        for (const k of Object.keys(feeds)) f[k] = detachable(feeds[k], transfer);
        return post({ type: 'run', handle: info.id, runId, feeds: f, fetches, yieldIntervalMs: ro.yieldIntervalMs }, transfer);
      },
      abort(info, runId) {
        if (worker) worker.postMessage({ id: 0, type: 'abort', runId });
      },
      release(info) {
        if (worker) worker.postMessage({ id: 0, type: 'release', handle: info.id });
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
    };
  }

  // The worker side of the proxy: answers proxyBackend's messages with a
  // direct backend. Called by dist/gort.worker.mjs.
  function serveWorker(scope) {
    let backend = null;
    const infos = new Map();
    scope.onmessage = async (ev) => {
      const m = ev.data;
      const reply = (value, transfer) => scope.postMessage({ id: m.id, ok: true, value }, transfer || []);
      const replyErr = (e) => scope.postMessage({ id: m.id, ok: false, error: errorToPlain(e) });
      try {
        switch (m.type) {
          case 'init': {
            const bin = m.wasmBinary;
            backend = directBackend({ wasmUrl: () => m.wasmUrl, wasmBinary: bin ? () => bin : null });
            await backend.ops(); // start it now, reporting start-up errors here
            reply(true);
            break;
          }
          case 'load': {
            const info = await backend.load(m.bytes, m.opts);
            infos.set(info.id, info);
            const { state, ...plain } = info; // eslint-disable-line no-unused-vars
            reply(plain);
            break;
          }
          case 'run': {
            const info = infos.get(m.handle);
            if (!info) throw gortError(ErrorCode.INVALID_ARGUMENT, 'the session was released');
            const out = await backend.run(info, m.runId, m.feeds, m.fetches, { yieldIntervalMs: m.yieldIntervalMs });
            const transfer = [];
            const collect = (w) => {
              if (!w) return;
              if (w.bytes) transfer.push(w.bytes.buffer);
              if (w.items) w.items.forEach(collect);
              if (w.value) collect(w.value);
            };
            Object.values(out).forEach(collect);
            reply(out, transfer);
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
          default: throw gortError(ErrorCode.INTERNAL, `unknown proxy message ${m.type}`);
        }
      } catch (e) {
        if (m.id) replyErr(e);
      }
    };
  }

  let backendInstance = null;
  let backendIsProxy = false;
  function backend() {
    const wantProxy = !!env.wasm.proxy && !isNode && typeof Worker === 'function';
    if (backendInstance && backendIsProxy === wantProxy) return backendInstance;
    backendIsProxy = wantProxy;
    backendInstance = wantProxy
      ? proxyBackend()
      : directBackend({ wasmUrl: wasmLocation, wasmBinary: wasmBinaryOverride() ? wasmBinaryOverride : null });
    return backendInstance;
  }

  // ---------------------------------------------------------------- sessions

  const PROVIDERS = ['wasm', 'cpu'];
  let nextRunId = 1;

  function parseOptions(options) {
    const o = options || {};
    if (typeof o !== 'object') throw gortError(ErrorCode.INVALID_ARGUMENT, 'session options must be an object');
    const eps = o.executionProviders === undefined ? ['wasm'] : o.executionProviders;
    if (!Array.isArray(eps)) throw gortError(ErrorCode.INVALID_ARGUMENT, 'executionProviders must be an array');
    const names = eps.map((e) => (typeof e === 'string' ? e : e && e.name));
    for (const n of names) {
      if (!PROVIDERS.includes(n)) {
        throw gortError(ErrorCode.INVALID_ARGUMENT, `unknown execution provider '${n}'; gort provides: ${PROVIDERS.join(', ')}`);
      }
    }
    let level = o.logSeverityLevel;
    if (level === undefined) level = LOG_LEVELS.indexOf(env.logLevel);
    if (!Number.isInteger(level) || level < 0 || level > 4) {
      throw gortError(ErrorCode.INVALID_ARGUMENT, `logSeverityLevel must be an integer from 0 (verbose) to 4 (fatal), got ${o.logSeverityLevel}`);
    }
    const fdo = o.freeDimensionOverrides;
    if (fdo !== undefined && (fdo === null || typeof fdo !== 'object' || Array.isArray(fdo))) {
      throw gortError(ErrorCode.INVALID_ARGUMENT, 'freeDimensionOverrides must be an object such as {batch: 1}');
    }
    if (fdo) {
      for (const [k, v] of Object.entries(fdo)) {
        if (!Number.isSafeInteger(v) || v < 0) throw gortError(ErrorCode.INVALID_ARGUMENT, `freeDimensionOverrides.${k} must be a non-negative integer, got ${v}`);
      }
    }
    const ext = o.externalData;
    if (ext !== undefined && !Array.isArray(ext)) throw gortError(ErrorCode.INVALID_ARGUMENT, 'externalData must be an array of {path, data}');
    if (o.onProgress !== undefined && typeof o.onProgress !== 'function') throw gortError(ErrorCode.INVALID_ARGUMENT, 'onProgress must be a function');
    return { providers: names, level, fdo, ext: ext || [], onProgress: o.onProgress };
  }

  function log(level, min, ...args) {
    if (level > min) return;
    const f = min >= 3 ? console.error : min === 2 ? console.warn : console.log;
    f('[gort]', ...args);
  }

  function metadataOf(io, extra) {
    const m = { name: io.name, isTensor: io.kind === 'tensor', kind: io.kind };
    if (io.type) m.type = io.type;
    if (io.hasShape) m.shape = io.shape;
    return Object.freeze(Object.assign(m, extra));
  }

  class InferenceSession {
    constructor(info, opts, be) {
      // The backend is fixed at creation: changing env.wasm.proxy later
      // affects new sessions only.
      Object.defineProperty(this, '_backend', { value: be });
      Object.defineProperty(this, '_info', { value: info });
      Object.defineProperty(this, '_opts', { value: opts });
      Object.defineProperty(this, '_queue', { value: { tail: Promise.resolve() }, writable: false });
      this._released = false;
      this.inputNames = Object.freeze(info.inputs.map((i) => i.name));
      this.outputNames = Object.freeze(info.outputs.map((i) => i.name));
      this.inputMetadata = Object.freeze(info.inputs.map((i) => metadataOf(i))
        .concat(info.overridable.map((i) => metadataOf(i, { overridableInitializer: true }))));
      this.outputMetadata = Object.freeze(info.outputs.map((i) => metadataOf(i)));
    }

    /**
     * Loads a model. source: Uint8Array, ArrayBuffer, URL (fetched), or a
     * file path (Node).
     */
    static async create(source, options) {
      if (source === undefined || source === null) throw gortError(ErrorCode.INVALID_ARGUMENT, 'InferenceSession.create needs a model (bytes, URL or path)');
      if (source instanceof ArrayBuffer && typeof options === 'number') {
        // create(buffer, byteOffset, byteLength?, options?), onnxruntime-web's other form.
        const off = options;
        const len = typeof arguments[2] === 'number' ? arguments[2] : source.byteLength - off;
        options = typeof arguments[2] === 'number' ? arguments[3] : arguments[2];
        source = new Uint8Array(source, off, len);
      }
      const opts = parseOptions(options);
      const t0 = Date.now();
      const bytes = await readSource(source, 'the model', opts.onProgress);
      const modelDir = typeof source === 'string' || source instanceof URL ? String(source instanceof URL ? source.href : source) : null;
      const externalData = [];
      for (const [i, e] of opts.ext.entries()) {
        if (!e || typeof e.path !== 'string') throw gortError(ErrorCode.INVALID_ARGUMENT, `externalData[${i}] needs a path string`);
        let data = e.data;
        if (typeof data === 'string' && modelDir && !isURLString(data) && !data.startsWith('/')) {
          // Relative file names are resolved next to the model, as the model itself refers to them.
          data = isURLString(modelDir) || !isNode ? new URL(data, new URL(modelDir, typeof document === 'object' && document ? document.baseURI : undefined)).href
            : modelDir.replace(/[^/\\]*$/, '') + data;
        }
        externalData.push({ path: e.path, data: await readSource(data, `externalData[${i}] (${e.path})`) });
      }
      const be = backend();
      const info = await be.load(bytes, { freeDimensionOverrides: opts.fdo, externalData });
      const s = new InferenceSession(info, opts, be);
      log(opts.level, 0, `loaded a model of ${bytes.byteLength} bytes in ${Date.now() - t0} ms:`, s.inputNames, '→', s.outputNames);
      for (const u of info.unsupported || []) log(opts.level, 2, 'this model has a node gort cannot run:', u);
      return s;
    }

    /**
     * Runs the model: run(feeds), run(feeds, options), run(feeds, fetches,
     * options). fetches: output names (array) or an object keyed by output
     * names. options.signal: an AbortSignal. Calls on one session are queued.
     */
    run(feeds, fetchesOrOptions, maybeOptions) {
      return new Promise((resolve, reject) => {
        let fetches = null;
        let options = maybeOptions;
        const fo = fetchesOrOptions;
        if (Array.isArray(fo)) {
          fetches = fo.map(String);
        } else if (fo && typeof fo === 'object') {
          const keys = Object.keys(fo);
          if (keys.length && keys.some((k) => this.outputNames.includes(k))) fetches = keys; else options = fo;
        } else if (fo !== undefined && fo !== null) {
          reject(gortError(ErrorCode.INVALID_ARGUMENT, 'run(feeds, fetches?, options?): fetches must be an array of output names'));
          return;
        }
        options = options || {};
        const signal = options.signal;
        if (this._released) {
          reject(gortError(ErrorCode.INVALID_ARGUMENT, 'the session was released'));
          return;
        }
        if (feeds === null || typeof feeds !== 'object' || Array.isArray(feeds)) {
          reject(gortError(ErrorCode.INVALID_FEED, 'feeds must be an object mapping input names to Tensors'));
          return;
        }
        const abortedError = () => gortError(ErrorCode.ABORTED, `run aborted: ${signal && signal.reason !== undefined ? (signal.reason && signal.reason.message) || String(signal.reason) : 'the AbortSignal fired'}`);
        if (signal && signal.aborted) {
          reject(abortedError());
          return;
        }
        // Validate and convert now: errors in the feeds surface at once, not
        // after the runs queued before this one.
        let wire;
        try {
          wire = {};
          for (const name of Object.keys(feeds)) wire[name] = feedToWire(feeds[name], name);
        } catch (e) {
          reject(e);
          return;
        }
        const runId = nextRunId++;
        let started = false;
        let settled = false;
        const settle = (f, v) => {
          if (settled) return;
          settled = true;
          if (signal) signal.removeEventListener('abort', onAbort);
          f(v);
        };
        const onAbort = () => {
          if (started) {
            try { this._backend.abort(this._info, runId); } catch (e) { /* the run ends anyway */ }
            // In a worker the page's thread is free: reject now and let the
            // worker stop at its next yield. In this thread, the abort event
            // itself only runs at a yield, and the run rejects right after.
            if (!this._backend.proxied) return;
          }
          settle(reject, abortedError());
        };
        if (signal) signal.addEventListener('abort', onAbort, { once: true });
        const t0 = Date.now();
        const job = async () => {
          if (settled) return;
          if (this._released) {
            settle(reject, gortError(ErrorCode.INVALID_ARGUMENT, 'the session was released'));
            return;
          }
          started = true;
          try {
            const out = await this._backend.run(this._info, runId, wire, fetches, { yieldIntervalMs: env.wasm.yieldIntervalMs });
            const res = {};
            for (const name of fetches || this.outputNames) res[name] = wireToValue(out[name]);
            log(this._opts.level, 0, `run took ${Date.now() - t0} ms`);
            settle(resolve, res);
          } catch (e) {
            settle(reject, e);
          }
        };
        const q = this._queue;
        q.tail = q.tail.then(job, job);
      });
    }

    /** Frees the session's memory in the runtime. Runs already started finish. */
    async release() {
      if (this._released) return;
      this._released = true;
      this._backend.release(this._info);
    }

    /** Internal (tests): graph inputs in model order, initializer-backed ones included. */
    get _graphInputs() { return this._info.graphInputs; }
  }

  // ---------------------------------------------------------------- exports

  /** Internal helpers for gort's own tests and tools; not a stable API. */
  async function _decodeValue(bytes, kind) {
    return wireToValue(await backend().decode(toBytes(bytes, 'bytes'), kind || 'tensor'));
  }
  async function _memory() { return backend().memory(); }
  async function _ops() { return backend().ops(); }

  return {
    InferenceSession, Tensor, env, ErrorCode,
    _decodeValue, _memory, _ops, _serveWorker: serveWorker,
  };
}
