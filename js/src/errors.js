// Errors: every error gort throws or rejects with is an Error whose `.code`
// is one of ErrorCode (stable: a code never changes meaning), and whose
// message starts with that code.

/** Error codes: runtime/errs's, plus GORT_WASM_FETCH, which only the JS loader raises. */
export const ErrorCode = Object.freeze({
  BAD_MODEL: 'GORT_BAD_MODEL',
  UNSUPPORTED_OP: 'GORT_UNSUPPORTED_OP',
  INVALID_FEED: 'GORT_INVALID_FEED',
  INVALID_ARGUMENT: 'GORT_INVALID_ARGUMENT',
  TOO_LARGE: 'GORT_TOO_LARGE',
  EXTERNAL_DATA: 'GORT_EXTERNAL_DATA',
  RUNTIME: 'GORT_RUNTIME',
  ABORTED: 'GORT_ABORTED',
  INTERNAL: 'GORT_INTERNAL',
  // The accelerator (WebGPU device) was lost where no CPU fallback exists
  // (a run on a lost device otherwise starts over on the CPU).
  DEVICE_LOST: 'GORT_DEVICE_LOST',
  WORKER_LOST: 'GORT_WORKER_LOST',
  // gort.wasm could not be fetched or is not a WebAssembly module (a 404, an
  // HTML fallback page, a CORS refusal): the message names every URL tried
  // and how to point env.wasmPaths at the file.
  WASM_FETCH: 'GORT_WASM_FETCH',
});

export function gortError(code, message, extra) {
  const e = new Error(`${code}: ${message}`);
  e.code = code;
  if (extra) Object.assign(e, extra);
  return e;
}

export const isGortError = (e) => !!(e && typeof e.code === 'string' && e.code.startsWith('GORT_'));

// Errors cross postMessage as plain objects (structured clone drops an
// Error's own properties such as .code), and are rebuilt on arrival.
export function errorToPlain(e) {
  if (e && typeof e === 'object') {
    return { message: String(e.message), code: e.code || ErrorCode.INTERNAL, node: e.node, tensor: e.tensor };
  }
  return { message: String(e), code: ErrorCode.INTERNAL };
}

export function errorFromPlain(p) {
  const e = new Error(p.message);
  e.code = p.code;
  if (p.node !== undefined) e.node = p.node;
  if (p.tensor !== undefined) e.tensor = p.tensor;
  return e;
}
