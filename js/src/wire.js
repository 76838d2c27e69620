// The wire format: how values cross between JS and Go (wasm/convert.go is
// the other half) and, unchanged, between the page and the proxy worker.
//
//   {kind: 'tensor', type, dims, bytes: Uint8Array}   numeric tensors: a byte view
//                                                      of the caller's typed array
//   {kind: 'tensor', type: 'string', dims, strings}
//   {kind: 'sequence', items: [wire...]}
//   {kind: 'optional', value: wire | null}            (outputs only)
//   {kind: 'none'}                                    an empty optional (feeds)
//
// Feeds are duck-typed: anything with type, dims and data of the right
// typed array is a tensor, so tensors built by onnxruntime-common (or by
// another copy of gort) are taken as they are.
import { ErrorCode, gortError } from './errors.js';
import { ARRAY_OF, Float16ArrayCtor, Tensor, checkDims, isArrayOf, perElem, sizeOf } from './tensor.js';

export function tensorToWire(t, name) {
  const where = name === undefined ? 'tensor' : `"${name}"`;
  if (t === null || typeof t !== 'object' || typeof t.type !== 'string') {
    throw gortError(ErrorCode.INVALID_FEED, `${where}: expected a Tensor, got ${t === null ? 'null' : typeof t}`, { tensor: name });
  }
  const type = t.type;
  if (type !== 'string' && !ARRAY_OF[type]) {
    throw gortError(ErrorCode.INVALID_FEED, `${where}: unknown tensor type '${type}'`, { tensor: name });
  }
  const loc = t.location;
  if (loc !== undefined && loc !== 'cpu' && loc !== 'cpu-pinned' && loc !== 'gpu-buffer') {
    throw gortError(ErrorCode.INVALID_FEED, `${where}: the tensor lives on '${loc}'${loc === 'none' ? ' (disposed)' : ''}; gort takes CPU tensors and float32 GPU-buffer tensors`, { tensor: name });
  }
  let dims;
  try {
    dims = checkDims(t.dims, where);
  } catch (e) {
    throw gortError(ErrorCode.INVALID_FEED, e.message.replace(/^GORT_\w+: /, ''), { tensor: name });
  }
  if (loc === 'gpu-buffer') {
    if (type !== 'float32') throw gortError(ErrorCode.INVALID_FEED, `${where}: a GPU-buffer tensor must be float32, got ${type}`, { tensor: name });
    const gpuBuffer = t.gpuBuffer;
    if (!gpuBuffer || typeof gpuBuffer !== 'object') throw gortError(ErrorCode.INVALID_FEED, `${where}: the tensor lives on 'gpu-buffer' but has no gpuBuffer`, { tensor: name });
    return { kind: 'tensor', type, dims, gpuBuffer };
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
  const okArray = isArrayOf(data, Ctor) || (type === 'float16' && Float16ArrayCtor && isArrayOf(data, Float16ArrayCtor));
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
export function feedToWire(v, name) {
  if (v === null || v === undefined) return { kind: 'none' };
  if (Array.isArray(v)) return { kind: 'sequence', items: v.map((t) => tensorToWire(t, name)) };
  return tensorToWire(v, name);
}

export function wireToValue(w) {
  if (w === null || w === undefined) return null;
  switch (w.kind) {
    case 'tensor': {
      // An output left on the GPU (preferredOutputLocation): the tensor owns the buffer.
      if (w.gpuBuffer) return Tensor.fromGpuBuffer(w.gpuBuffer, { dataType: w.type, dims: w.dims, dispose: () => w.gpuBuffer.destroy() });
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

// Copies each value's bytes into a buffer of its own and lists those buffers,
// so that posting the value to a worker transfers exactly them and never
// clones (or detaches) the whole buffer a caller's array lives in.
export function detachable(wire, transfer) {
  if (!wire) return wire;
  if (wire.bytes) {
    const own = wire.bytes.slice();
    transfer.push(own.buffer);
    return Object.assign({}, wire, { bytes: own });
  }
  if (wire.items) return Object.assign({}, wire, { items: wire.items.map((w) => detachable(w, transfer)) });
  return wire;
}

// Lists the buffers of values Go made (each owns its buffer) for transfer.
export function transferList(values) {
  const transfer = [];
  const collect = (w) => {
    if (!w) return;
    if (w.bytes) transfer.push(w.bytes.buffer);
    if (w.items) w.items.forEach(collect);
    if (w.value) collect(w.value);
  };
  values.forEach(collect);
  return transfer;
}
