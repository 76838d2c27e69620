// Backends, and how executionProviders picks one.
//
// A backend runs models for sessions. Every backend has this interface
// (values in and out are in the wire format of wire.js; `info` is what
// load returned):
//
//   name: string                 shown in errors and logs
//   proxied: boolean             true when runs happen off this thread (an
//                                abort then rejects at once)
//   ready(): Promise<void>       starts the backend (fetches gort.wasm, starts
//                                a worker, ...); rejects with why it cannot serve
//   load(bytes, options) → Promise<info>
//                                options: the session options gort.wasm reads
//                                (SESSION_OPTION_KEYS), external data read into
//                                bytes; info: {id, inputs, outputs, overridable,
//                                graphInputs, unsupported, providers,
//                                logSeverityLevel, gpuOutputs}
//   run(info, runId, feeds, fetches|null, {yieldIntervalMs}) → Promise<{name: wire}>
//   abort(info, runId)           asks a started run to stop (GORT_ABORTED)
//   release(info)                frees the session
//   decode(bytes, kind), memory(), ops()   gort's own tests and tools
//   tool(name, args) → Promise   the model checks (checks.js; wasm/checks.go)
//
// A provider is how executionProviders names a backend: {names, unavailable()
// → a reason string or null, backend() → the (cached) backend}. The in-thread
// wasm backend and the proxy Worker serve every name of gort's own providers
// (PROVIDER_NAMES: 'wasm', 'cpu', 'webgpu', generated from Go's package
// options): WebGPU runs inside gort.wasm, whose plan places each node on the
// GPU or the CPU (wasm/webgpu.go), so the session passes the list on to load,
// where gort.wasm reads it, and reports what it got
// (session.executionProviders, session.placements).
import { ErrorCode, gortError, isGortError } from '../errors.js';
import { env, wasmSource } from '../env.js';
import { FOREIGN_PROVIDERS, PROVIDER_NAMES, PROVIDER_TEXT } from '../options.gen.js';
import { isNode } from '../platform.js';
import { proxyBackend } from './proxy.js';
import { wasmBackend } from './wasm.js';

let inThread = null;
let proxy = null;

const useProxy = () => !!env.wasm.proxy && !isNode && typeof Worker === 'function';

const wasmProvider = {
  names: PROVIDER_NAMES,
  unavailable: () => null,
  // env.wasm.proxy picks the proxy Worker (browsers) over the in-thread one;
  // each is made once and serves every session that picks it.
  backend() {
    if (useProxy()) return proxy || (proxy = proxyBackend());
    return inThread || (inThread = wasmBackend(wasmSource));
  },
};

const PROVIDERS = [wasmProvider];

/** The names executionProviders accepts. */
export const providerNames = () => PROVIDERS.flatMap((p) => p.names);

/** The default backend (gort's own tools: _ops, _decodeValue, _memory). */
export const defaultBackend = () => wasmProvider.backend();

// PROVIDER_TEXT's %s filled in order.
const fill = (text, ...args) => args.reduce((t, a) => t.replace('%s', () => a), text);

/**
 * Picks the first provider of executionProviders (as create was given it)
 * that can serve, started. When none can, the error lists each one's
 * reason; its code is that of the first backend that failed to start (e.g.
 * GORT_WASM_FETCH), else GORT_INVALID_ARGUMENT. A value that is not a list
 * (or not given) gets the default backend, where gort.wasm reads it: its
 * default, or the error that says what is wrong with it.
 */
export async function selectBackend(eps) {
  if (!Array.isArray(eps)) {
    const be = defaultBackend();
    await be.ready();
    return be;
  }
  const reasons = [];
  let code = null;
  let only = null;
  for (const e of eps) {
    const name = typeof e === 'string' ? e : e && e.name;
    const key = String(name).toLowerCase();
    const p = PROVIDERS.find((q) => q.names.includes(key));
    if (!p) {
      reasons.push(`${name}: ${FOREIGN_PROVIDERS.includes(key) ? fill(PROVIDER_TEXT.foreign, name) : PROVIDER_TEXT.unknown}`);
      continue;
    }
    const why = p.unavailable();
    if (why) { reasons.push(`${name}: ${why}`); continue; }
    const be = p.backend();
    try {
      await be.ready();
      return be;
    } catch (err) {
      if (!code && isGortError(err)) code = err.code;
      only = eps.length === 1 ? err : null;
      reasons.push(`${name}: ${err && err.message ? err.message : err}`);
    }
  }
  if (only) throw only; // one provider asked for: its own error says it best
  throw gortError(code || ErrorCode.INVALID_ARGUMENT,
    fill(PROVIDER_TEXT.none, reasons.join('; ') || PROVIDER_TEXT.empty, providerNames().join(', ')));
}
