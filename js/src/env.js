// env: global settings, spelled as onnxruntime-web's, and where gort.wasm
// and the proxy worker come from.
import { ErrorCode, gortError } from './errors.js';
import { isNode, platform } from './platform.js';
import { toBytes } from './io.js';

// Filled in by index.js (env cannot import the backends, which import env).
export const hooks = { gpuDevice: () => Promise.reject(gortError(ErrorCode.INTERNAL, 'gort is not initialised')) };

export const LOG_LEVELS = ['verbose', 'info', 'warning', 'error', 'fatal'];

export const env = {
  /** Overrides where gort.wasm is fetched from: a directory prefix ending in '/' or the file's full URL. */
  wasmPaths: undefined,
  /** The bytes of gort.wasm (ArrayBuffer or Uint8Array), skipping the fetch. */
  wasmBinary: undefined,
  /** Default log level for sessions: 'verbose' | 'info' | 'warning' | 'error' | 'fatal'. */
  logLevel: 'warning',
  wasm: {
    /** Run sessions in a module Worker (browsers; ignored in Node). Set before the first create(). */
    proxy: false,
    /**
     * Threads for each session's runs (a session's intraOpNumThreads overrides it): 0, the default, means
     * onnxruntime-web's choice: min(4, ceil(cores / 2)) in Node and in cross-origin isolated pages, 1 in other
     * pages. Beyond one, the model is also loaded in Workers (worker_threads in Node), which compute parts of its
     * heavy steps; gort needs no isolation for that. Read at create().
     */
    numThreads: 0,
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
  webgpu: {
    /**
     * A Promise of the GPUDevice that sessions with executionProviders ['webgpu'] run on (opened now if no
     * session opened it yet), as in onnxruntime-web. GPUBuffers given to Tensor.fromGpuBuffer must be made on
     * it. gort opens its own device: setting one is an error.
     */
    get device() { return hooks.gpuDevice(); },
    set device(v) {
      throw gortError(ErrorCode.INVALID_ARGUMENT, 'gort opens its own GPUDevice: read (await) env.webgpu.device and create GPUBuffers on it');
    },
  },
  get versions() { return { gort: platform.version }; },
};

const hasScheme = (s) => /^[a-z][a-z0-9+.-]*:/i.test(s);

// Vite's dev server serves dependencies pre-bundled into
// node_modules/.vite/deps/<file>.js without their other files, so
// new URL('./gort.wasm', import.meta.url) there points at nothing (vitejs/vite
// #8427), and gort may be inlined into a library's pre-bundle under that
// library's name. The package's own files are still served from
// /node_modules/<name>/dist/, and the pre-bundle's source map lists the
// dist/gort.mjs it was made from: viteDevDirs resolves to the URLs of those
// dist/ directories (the pre-bundle's name as a last guess), or to [] when
// this module was not loaded that way.
const VITE_DEPS = /^(https?:\/\/[^/]+)((?:\/[^?#]*)?)\/node_modules\/\.vite\/deps(?:_[^/?#]*)?\/([^/?#]+)\.js(?:[?#]|$)/;
let viteDirs = null;
export function viteDevDirs() {
  if (viteDirs) return viteDirs;
  viteDirs = (async () => {
    let u;
    try { u = platform.moduleUrl(); } catch { return []; }
    const m = typeof u === 'string' && VITE_DEPS.exec(u);
    if (!m) return [];
    const file = u.replace(/[?#].*$/, '');
    const dirs = [];
    try {
      const r = await fetch(file + '.map');
      if (r.ok) {
        const map = await r.json();
        for (const src of map.sources || []) {
          if (/(^|\/)dist\/gort\.mjs$/.test(src)) dirs.push(new URL('.', new URL(src, new URL(map.sourceRoot || '', file))).href);
        }
      }
    } catch { /* no map: the guess below */ }
    let name = m[3];
    if (name.startsWith('@')) name = name.replace('_', '/'); // @scope_pkg → @scope/pkg
    dirs.push(`${m[1]}${m[2]}/node_modules/${name}/dist/`);
    return [...new Set(dirs)];
  })();
  return viteDirs;
}

/**
 * Where gort.wasm is looked for, in order: env.wasmBinary's bytes
 * ({bytes}), else the URLs or Node paths to try ({urls}). With
 * env.wasmPaths set, only that; otherwise the file next to the entry (as
 * the bundler emitted it), under Vite's dev server the package's own copy first.
 */
export async function wasmSource() {
  const b = env.wasm.wasmBinary !== undefined ? env.wasm.wasmBinary : env.wasmBinary;
  if (b !== undefined && b !== null) return { bytes: toBytes(b, 'env.wasmBinary') };
  const paths = env.wasm.wasmPaths !== undefined ? env.wasm.wasmPaths : env.wasmPaths;
  if (paths === undefined || paths === null || paths === '') {
    const urls = (await viteDevDirs()).map((d) => d + 'gort.wasm');
    let u;
    try { u = platform.wasmUrl(); } catch { u = undefined; }
    if (u) urls.push(String(u));
    if (!urls.length) {
      throw gortError(ErrorCode.WASM_FETCH, 'cannot tell where gort.wasm is: set gort.env.wasmPaths to the URL of the directory holding it, or gort.env.wasmBinary to its bytes');
    }
    return { urls };
  }
  const docBase = typeof document === 'object' && document && document.baseURI ? document.baseURI
    : (typeof location === 'object' && location && location.href ? location.href : undefined);
  let p = paths;
  if (typeof p === 'object' && !(p instanceof URL)) p = p.wasm;
  p = String(p);
  if (!isNode || hasScheme(p)) {
    const u = new URL(p, docBase);
    return { urls: [u.pathname.endsWith('.wasm') ? u.href : new URL('gort.wasm', u.href.endsWith('/') ? u.href : u.href + '/').href] };
  }
  return { urls: [p.endsWith('.wasm') ? p : p.replace(/\/?$/, '/') + 'gort.wasm'] }; // a Node path
}

/** Starts the proxy worker: the entry's bundler-visible one, or under Vite's dev server the package's own file. */
export async function startWorker() {
  const dev = await viteDevDirs();
  if (dev.length) return new Worker(dev[0] + 'gort.worker.mjs', { type: 'module', name: 'gort' });
  if (!platform.newWorker) throw gortError(ErrorCode.INVALID_ARGUMENT, 'env.wasm.proxy: this build of gort has no worker file');
  return platform.newWorker();
}
