// InferenceSession: options, loading, queued runs with AbortSignal, release.
import { ErrorCode, gortError } from './errors.js';
import { LOG_LEVELS, env } from './env.js';
import { isURLString, readSource } from './io.js';
import { isNode } from './platform.js';
import { feedToWire, wireToValue } from './wire.js';
import { SESSION_OPTION_KEYS } from './options.gen.js';
import { selectBackend } from './backends/index.js';

let nextRunId = 1;

// The log level of env.logLevel, a session's default logSeverityLevel.
function envLogSeverity() {
  const level = LOG_LEVELS.indexOf(env.logLevel);
  if (level < 0) throw gortError(ErrorCode.INVALID_ARGUMENT, `env.logLevel must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(env.logLevel)}`);
  return level;
}

/**
 * Reads a model and the files its options name, as InferenceSession.create
 * and the model checks (checks.js) do: {bytes, loadOpts}, loadOpts
 * being what a backend's load takes. gort.wasm reads and checks the session
 * options (Go's package options); here only what is needed before it runs:
 * onProgress, which reads the model; externalData's URLs and files, read
 * into bytes; env.logLevel as the default logSeverityLevel; and the options
 * gort.wasm reads picked out (SESSION_OPTION_KEYS), so that nothing else
 * (functions, say) crosses to it or to the proxy worker. A value that is
 * not an options object is passed on as it is, for gort.wasm to refuse.
 */
export async function loadArguments(source, options) {
  const o = options === undefined || options === null ? {} : options;
  const isObject = typeof o === 'object' && !Array.isArray(o);
  const onProgress = isObject ? o.onProgress : undefined;
  if (onProgress !== undefined && typeof onProgress !== 'function') throw gortError(ErrorCode.INVALID_ARGUMENT, 'onProgress must be a function');
  const bytes = await readSource(source, 'the model', onProgress);
  if (!isObject) return { bytes, loadOpts: o };
  const loadOpts = {};
  for (const k of SESSION_OPTION_KEYS) if (o[k] !== undefined) loadOpts[k] = o[k];
  if (loadOpts.logSeverityLevel === undefined) loadOpts.logSeverityLevel = envLogSeverity();
  if (Array.isArray(o.externalData)) loadOpts.externalData = await readExternalData(source, o.externalData);
  return { bytes, loadOpts };
}

// externalData's data read into bytes: URLs and paths (relative ones next
// to the model, as the model itself refers to them), ArrayBuffers and
// views. Anything else is left for gort.wasm to refuse.
async function readExternalData(source, list) {
  const modelDir = typeof source === 'string' || source instanceof URL ? String(source instanceof URL ? source.href : source) : null;
  const out = [];
  for (const [i, e] of list.entries()) {
    if (!e || typeof e !== 'object') { out.push(e); continue; }
    let data = e.data;
    if (typeof data === 'string' && modelDir && !isURLString(data) && !data.startsWith('/')) {
      data = isURLString(modelDir) || !isNode ? new URL(data, new URL(modelDir, typeof document === 'object' && document ? document.baseURI : undefined)).href
        : modelDir.replace(/[^/\\]*$/, '') + data;
    }
    const readable = typeof data === 'string' || data instanceof URL || data instanceof ArrayBuffer || ArrayBuffer.isView(data)
      || (typeof SharedArrayBuffer === 'function' && data instanceof SharedArrayBuffer);
    out.push(readable ? { path: e.path, data: await readSource(data, `externalData[${i}] (${e.path})`) } : e);
  }
  return out;
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

export class InferenceSession {
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

  /** The execution providers in use: ['webgpu', 'wasm'] when some nodes run on the GPU, else ['wasm']. */
  get executionProviders() { return Object.freeze([...this._providers().executionProviders]); }

  /** Where each node runs ({node, op, device: 'webgpu' | 'wasm', reason}), reasons given for CPU nodes. */
  get placements() { return Object.freeze(this._providers().placements.map((p) => Object.freeze({ ...p }))); }

  /** The threads the session's runs use, its own included (env.wasm.numThreads, or intraOpNumThreads). */
  get threads() { return this._info.pool ? this._info.pool.count : (this._info.threadCount || 1); }

  _providers() {
    const p = this._backend.providers ? this._backend.providers(this._info) : this._info.providers;
    return p || { executionProviders: ['wasm'], placements: [] };
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
    const t0 = Date.now();
    const { bytes, loadOpts } = await loadArguments(source, options);
    const be = await selectBackend(loadOpts.executionProviders);
    const info = await be.load(bytes, loadOpts);
    // The options as gort.wasm read them: the level to log at, the outputs to leave in GPU buffers.
    const opts = { level: info.logSeverityLevel, gpuOutputs: new Set(info.gpuOutputs) };
    const s = new InferenceSession(info, opts, be);
    log(opts.level, 0, `loaded a model of ${bytes.byteLength} bytes in ${Date.now() - t0} ms on ${be.name}:`, s.inputNames, '→', s.outputNames);
    for (const u of info.unsupported || []) log(opts.level, 2, 'this model has a node gort cannot run:', u);
    const why = info.providers && info.providers.webgpuUnavailable;
    if (why) log(opts.level, 2, `WebGPU is not in use: ${why}; the session runs on the CPU (wasm)`);
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
          // Outputs a GPU step produced stay in GPUBuffers where asked (preferredOutputLocation 'gpu-buffer').
          const gpuOutputs = (fetches || this.outputNames).filter((n) => this._opts.gpuOutputs.has(n));
          const out = await this._backend.run(this._info, runId, wire, fetches, { yieldIntervalMs: env.wasm.yieldIntervalMs, gpuOutputs });
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
