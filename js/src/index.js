// gort's JavaScript API, as onnxruntime-web's: InferenceSession, Tensor,
// env, plus ErrorCode. js/build.sh bundles this module and the modules it
// imports (in dependency order, import/export lines removed) into each
// dist entry, after Go's wasm_exec.js and before the entry's few lines that
// fill in platform.js.
//
//   errors.js          ErrorCode, gortError
//   tensor.js          Tensor, element types, float16/bfloat16 conversions
//   wire.js            the Go ↔ JS value format (and page ↔ worker)
//   io.js, env.js      reading bytes; env and where gort.wasm is
//   backends/          the backend interface (backends/index.js) and the
//                      in-thread wasm (wasm.js) and proxy Worker (proxy.js) backends
//   threads.js         the worker pool that computes parts of heavy steps
//   options.gen.js     generated from Go's package options: the option and
//                      execution provider names (gort.wasm reads the options)
//   session.js         InferenceSession
//   checks.js          model checks: check, inferShapes, printGraph, capabilities, compare, diverge, npy
import { ErrorCode } from './errors.js';
import { env, hooks } from './env.js';
import { Tensor, fromBfloat16Bits, fromFloat16Bits, toBfloat16Bits, toFloat16Bits, toNumbers } from './tensor.js';
import { InferenceSession } from './session.js';
import { defaultBackend } from './backends/index.js';
import { serveWorker } from './backends/proxy.js';
import { toBytes } from './io.js';
import { wireToValue } from './wire.js';
import { capabilities, check, compare, diverge, inferShapes, printGraph, readNpy, writeNpy } from './checks.js';

hooks.gpuDevice = () => defaultBackend().gpuDevice();

/** Internal helpers for gort's own tests and tools; not a stable API. */
async function _decodeValue(bytes, kind) {
  return wireToValue(await defaultBackend().decode(toBytes(bytes, 'bytes'), kind || 'tensor'));
}
async function _memory() { return defaultBackend().memory(); }
async function _ops() { return defaultBackend().ops(); }
const _threadPool = () => (defaultBackend().threadPool ? defaultBackend().threadPool() : null);
const _convert = Object.freeze({ toFloat16Bits, fromFloat16Bits, toBfloat16Bits, fromBfloat16Bits, toNumbers });

export const gort = {
  InferenceSession, Tensor, env, ErrorCode,
  check, inferShapes, printGraph, capabilities, compare, diverge, readNpy, writeNpy,
  _decodeValue, _memory, _ops, _convert, _serveWorker: serveWorker, _threadPool,
};
