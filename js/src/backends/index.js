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
//   load(bytes, {freeDimensionOverrides, externalData, graphOptimizationLevel})
//       → Promise<info>          info: {id, inputs, outputs, overridable,
//                                graphInputs, unsupported}
//   run(info, runId, feeds, fetches|null, {yieldIntervalMs}) → Promise<{name: wire}>
//   abort(info, runId)           asks a started run to stop (GORT_ABORTED)
//   release(info)                frees the session
//   decode(bytes, kind), memory(), ops()   gort's own tests and tools
//   tool(name, args) → Promise   the model checks (checks.js; wasm/checks.go)
//
// A provider is how executionProviders names a backend: {names, unavailable()
// → a reason string or null, backend() → the (cached) backend}. The in-thread
// wasm backend and the proxy Worker serve 'wasm', 'cpu' and 'webgpu': WebGPU
// runs inside gort.wasm, whose plan places each node on the GPU or the CPU
// (wasm/webgpu.go), so the session passes the list on to load and reports
// what it got (session.executionProviders, session.placements).
import { ErrorCode, gortError, isGortError } from '../errors.js';
import { env, wasmSource } from '../env.js';
import { isNode } from '../platform.js';
import { proxyBackend } from './proxy.js';
import { wasmBackend } from './wasm.js';

// Execution providers onnxruntime knows that gort does not have (yet).
const FOREIGN_PROVIDERS = ['webgl', 'webnn', 'xnnpack', 'cuda', 'dml', 'coreml', 'nnapi', 'qnn', 'tensorrt', 'openvino'];

let inThread = null;
let proxy = null;

const useProxy = () => !!env.wasm.proxy && !isNode && typeof Worker === 'function';

const wasmProvider = {
  names: ['wasm', 'cpu', 'webgpu'],
  unavailable: () => null,
  // env.wasm.proxy picks the proxy Worker (browsers) over the in-thread one;
  // each is made once and serves every session that picks it.
  backend() {
    if (useProxy()) return proxy || (proxy = proxyBackend());
    return inThread || (inThread = wasmBackend(wasmSource));
  },
};

const PROVIDERS = [wasmProvider];

/** The provider names gort.wasm itself understands (passed on to load). */
export const RUNTIME_PROVIDERS = ['webgpu', 'wasm', 'cpu'];

/** The names executionProviders accepts. */
export const providerNames = () => PROVIDERS.flatMap((p) => p.names);

/** The default backend (gort's own tools: _ops, _decodeValue, _memory). */
export const defaultBackend = () => wasmProvider.backend();

/**
 * Picks the first of the named providers that can serve, started. When
 * none can, the error lists each one's reason; its code is that of the
 * first backend that failed to start (e.g. GORT_WASM_FETCH), else
 * GORT_INVALID_ARGUMENT.
 */
export async function selectBackend(names) {
  const reasons = [];
  let code = null;
  let only = null;
  for (const name of names) {
    const key = String(name).toLowerCase();
    const p = PROVIDERS.find((q) => q.names.includes(key));
    if (!p) {
      reasons.push(FOREIGN_PROVIDERS.includes(key) ? `${name}: gort has no ${name} backend yet`
        : `${name}: unknown execution provider`);
      continue;
    }
    const why = p.unavailable();
    if (why) { reasons.push(`${name}: ${why}`); continue; }
    const be = p.backend();
    try {
      await be.ready();
      return be;
    } catch (e) {
      if (!code && isGortError(e)) code = e.code;
      only = names.length === 1 ? e : null;
      reasons.push(`${name}: ${e && e.message ? e.message : e}`);
    }
  }
  if (only) throw only; // one provider asked for: its own error says it best
  throw gortError(code || ErrorCode.INVALID_ARGUMENT,
    `no execution provider can serve this session: ${reasons.join('; ') || 'the list is empty'}. gort provides: ${providerNames().join(', ')}`);
}
