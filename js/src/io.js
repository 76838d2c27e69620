// Reading bytes: models, external data and gort.wasm, from typed arrays,
// URLs (fetch, with progress) or, in Node, file paths.
import { ErrorCode, gortError, isGortError } from './errors.js';
import { isNode } from './platform.js';

export function toBytes(src, what) {
  if (src instanceof Uint8Array) return src;
  if (src instanceof ArrayBuffer) return new Uint8Array(src);
  if (ArrayBuffer.isView(src)) return new Uint8Array(src.buffer, src.byteOffset, src.byteLength);
  if (typeof SharedArrayBuffer === 'function' && src instanceof SharedArrayBuffer) return new Uint8Array(src);
  throw gortError(ErrorCode.INVALID_ARGUMENT, `${what} must be a Uint8Array, an ArrayBuffer, a URL or a file path`);
}

// Module specifiers are computed so that bundlers targeting the browser do
// not try to resolve Node's built-ins.
export const nodeImport = (m) => import(/* webpackIgnore: true */ /* @vite-ignore */ ['node', m].join(':'));

export const isURLString = (s) => /^(https?|file|data|blob):/i.test(s);

// Whether a string names a file for Node's fs rather than something to fetch.
export const isNodePath = (s) => isNode && !/^(https?|data|blob):/i.test(s);

// Reads a model or data file: fetch for URLs (with progress), the file
// system for paths in Node. Failures are GORT_INVALID_ARGUMENT unless
// `code` says otherwise.
export async function readSource(src, what, onProgress, code) {
  if (src instanceof URL) src = src.href;
  if (typeof src !== 'string') return toBytes(src, what);
  try {
    if (isNodePath(src)) {
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
    if (isGortError(e)) throw e;
    throw gortError(code || ErrorCode.INVALID_ARGUMENT, `cannot read ${what} from ${src}: ${e && e.message ? e.message : e}`);
  }
}

// setImmediate in Node; elsewhere a MessageChannel round trip, which (unlike
// setTimeout(0), clamped to 4 ms when nested) costs microseconds.
export const macrotask = (() => {
  if (typeof setImmediate === 'function') return (cb) => { setImmediate(cb); };
  if (typeof MessageChannel === 'function') {
    const ch = new MessageChannel();
    const queue = [];
    ch.port1.onmessage = () => { const cb = queue.shift(); if (cb) cb(); };
    return (cb) => { queue.push(cb); ch.port2.postMessage(0); };
  }
  return (cb) => { setTimeout(cb, 0); };
})();
