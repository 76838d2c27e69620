// Tensor: the public value type, shaped as onnxruntime-web's (type, data,
// dims, size, location, getData, dispose), and the element-type tables and
// float16/bfloat16 conversions the rest of the package shares.
import { ErrorCode, gortError } from './errors.js';
import { env } from './env.js';

// ORT type name → typed array constructor for .data. Types onnxruntime-web
// lacks follow gort's Go storage: bfloat16 as Uint16Array bits, int4/int2
// and uint4/uint2 one element per byte, 8-bit floats and float4 as raw
// codes, complex as interleaved (re, im) pairs.
export const ARRAY_OF = {
  float32: Float32Array, float64: Float64Array,
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
  int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
  bool: Uint8Array, float16: Uint16Array, bfloat16: Uint16Array,
  int4: Int8Array, uint4: Uint8Array, int2: Int8Array, uint2: Uint8Array,
  float8e4m3fn: Uint8Array, float8e4m3fnuz: Uint8Array, float8e5m2: Uint8Array,
  float8e5m2fnuz: Uint8Array, float8e8m0: Uint8Array, float4e2m1: Uint8Array,
  complex64: Float32Array, complex128: Float64Array,
};
export const TYPES = Object.freeze(Object.keys(ARRAY_OF).concat(['string']));
export const Float16ArrayCtor = typeof globalThis.Float16Array === 'function' ? globalThis.Float16Array : null;
export const perElem = (type) => (type === 'complex64' || type === 'complex128' ? 2 : 1);

// isArrayOf tests a typed array's kind by its tag rather than instanceof, so
// that arrays from another realm (a vm context, an iframe) and subclasses
// (Node's Buffer) are accepted: tensors built by another library, such as
// onnxruntime-common, are taken as they are.
export function isArrayOf(data, Ctor) {
  return ArrayBuffer.isView(data) && Object.prototype.toString.call(data) === `[object ${Ctor.name}]`;
}
const isFloat16Array = (data) => !!Float16ArrayCtor && isArrayOf(data, Float16ArrayCtor);

export function sizeOf(dims) {
  let n = 1;
  for (const d of dims) n *= d;
  return n;
}

export function checkDims(dims, what) {
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

// ---------------------------------------------------------------- float16 / bfloat16

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Rounds a number to the nearest IEEE half (ties to even), as its bit pattern. */
export function toFloat16Bits(v) {
  f32[0] = v; // first to float32 (round to nearest even), as Go's float32 → float16 path does
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  const man = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (man ? 0x200 | (man >>> 13) : 0); // inf, NaN (quiet)
  const e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00; // overflow → inf
  if (e <= 0) {
    if (e < -10) return sign; // below half the smallest subnormal → ±0
    const m = man | 0x800000; // implicit bit
    const shift = 14 - e; // 14..24
    const half = 1 << (shift - 1);
    const rest = m & ((1 << shift) - 1);
    let h = m >>> shift;
    if (rest > half || (rest === half && (h & 1))) h++;
    return sign | h; // may carry into the smallest normal, which is right
  }
  let h = (e << 10) | (man >>> 13);
  const rest = man & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (h & 1))) h++; // may carry into inf, which is right
  return sign | h;
}

/** The value of an IEEE half bit pattern. */
export function fromFloat16Bits(h) {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** Rounds a number to the nearest bfloat16 (ties to even), as its bit pattern. */
export function toBfloat16Bits(v) {
  f32[0] = v;
  const x = u32[0];
  if ((x & 0x7fffffff) > 0x7f800000) return ((x >>> 16) | 0x40) & 0xffff; // NaN stays NaN
  return ((x + 0x7fff + ((x >>> 16) & 1)) >>> 16) & 0xffff;
}

/** The value of a bfloat16 bit pattern. */
export function fromBfloat16Bits(h) {
  u32[0] = (h & 0xffff) << 16;
  return f32[0];
}

/** A tensor's elements as plain numbers (float16/bfloat16 decoded; complex as re, im pairs). */
export function toNumbers(t) {
  if (t.type === 'string') throw gortError(ErrorCode.INVALID_ARGUMENT, 'string tensors have no numeric value');
  if (t.type === 'float16' && !isFloat16Array(t.data)) return Array.from(t.data, fromFloat16Bits);
  if (t.type === 'bfloat16') return Array.from(t.data, fromBfloat16Bits);
  return Array.from(t.data, Number);
}

// ---------------------------------------------------------------- Tensor

// Converts plain arrays to the typed array of the type (as onnxruntime-web
// does; float16 and bfloat16 numbers rounded to nearest even), and accepts
// Float16Array for float16.
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
  if (isArrayOf(data, Ctor)) return data;
  if (type === 'float16' && isFloat16Array(data)) return data;
  if (Array.isArray(data)) {
    if (type === 'float16') return Uint16Array.from(data, (x) => toFloat16Bits(Number(x)));
    if (type === 'bfloat16') return Uint16Array.from(data, (x) => toBfloat16Bits(Number(x)));
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
  const byCtor = [[Float32Array, 'float32'], [Float64Array, 'float64'], [Int8Array, 'int8'],
    [Uint8Array, 'uint8'], [Int16Array, 'int16'], [Uint16Array, 'uint16'], [Int32Array, 'int32'],
    [Uint32Array, 'uint32'], [BigInt64Array, 'int64'], [BigUint64Array, 'uint64']];
  if (Float16ArrayCtor) byCtor.push([Float16ArrayCtor, 'float16']);
  for (const [C, t] of byCtor) if (isArrayOf(data, C)) return t;
  throw gortError(ErrorCode.INVALID_ARGUMENT, 'cannot infer the tensor type from the data; pass the type first: new Tensor(type, data, dims)');
}

/**
 * A tensor: new Tensor(type, data, dims), new Tensor(type, data) (1-D) or
 * new Tensor(typedArray, dims) (type from the array). Data is not copied.
 */
export class Tensor {
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
    defineDims(this, dims, size);
    Object.defineProperty(this, 'size', { value: size, enumerable: true });
    this.data = data;
  }
  /** 'cpu', or for a GPU tensor 'gpu-buffer' ('none' once disposed). */
  get location() { return this._gpu ? this._gpu.location : 'cpu'; }
  get cpuData() { return this.data; }
  /** The GPUBuffer of a GPU tensor (it may be larger than size × 4 bytes). */
  get gpuBuffer() {
    if (this.location !== 'gpu-buffer') throw gortError(ErrorCode.INVALID_ARGUMENT, `the tensor's data is not in a GPUBuffer (location '${this.location}')`);
    return this._gpu.buffer;
  }
  /**
   * Resolves to the data, downloading a GPU tensor's; releaseData also
   * disposes of the GPU copy, leaving a CPU tensor.
   */
  async getData(releaseData) {
    const g = this._gpu;
    if (!g) return this.data;
    if (g.location !== 'gpu-buffer') throw gortError(ErrorCode.INVALID_ARGUMENT, 'the tensor was disposed');
    const data = new ARRAY_OF[this.type](await g.download());
    if (releaseData) {
      this.dispose();
      Object.defineProperty(this, 'data', { value: data, writable: true, enumerable: true, configurable: true });
      this._gpu = null;
    }
    return data;
  }
  /** A tensor of other dims sharing this one's data (or GPUBuffer). */
  reshape(dims) {
    const g = this._gpu;
    return g ? Tensor.fromGpuBuffer(g.buffer, { dataType: this.type, dims, download: g.download }) : new Tensor(this.type, this.data, dims);
  }
  /**
   * Drops the reference to the data (the GC frees it). A GPU tensor calls
   * its dispose callback: a session's output destroys its GPUBuffer, one
   * made with fromGpuBuffer leaves the caller's buffer alone unless given one.
   */
  dispose() {
    const g = this._gpu;
    if (!g) {
      this.data = this.type === 'string' ? [] : new ARRAY_OF[this.type](0);
      return;
    }
    if (g.location === 'gpu-buffer' && g.dispose) g.dispose();
    g.location = 'none';
  }

  /**
   * A tensor whose data stays in a GPUBuffer, as onnxruntime-web's:
   * fromGpuBuffer(buffer, {dataType = 'float32', dims, download?, dispose?}).
   * The buffer must be made on gort's device (await gort.env.webgpu.device)
   * with usage STORAGE | COPY_SRC and hold float32 data (gort's WebGPU
   * kernels are float32). Fed to a WebGPU session, GPU steps read it in
   * place; getData() downloads it (with download, if given).
   */
  static fromGpuBuffer(buffer, options) {
    const o = options || {};
    const type = o.dataType === undefined ? 'float32' : o.dataType;
    const what = 'Tensor.fromGpuBuffer';
    if (!buffer || typeof buffer !== 'object' || typeof buffer.size !== 'number' || typeof buffer.usage !== 'number') {
      throw gortError(ErrorCode.INVALID_ARGUMENT, `${what} needs a GPUBuffer`);
    }
    if (type !== 'float32') throw gortError(ErrorCode.INVALID_ARGUMENT, `${what}: gort keeps only float32 tensors on the GPU, got dataType '${type}'`);
    const dims = checkDims(o.dims, what);
    const size = sizeOf(dims);
    if (size * 4 > buffer.size) throw gortError(ErrorCode.INVALID_ARGUMENT, `${what}: dims [${dims}] need ${size * 4} bytes, the buffer has ${buffer.size}`);
    if ((buffer.usage & GPU_USAGE) !== GPU_USAGE) throw gortError(ErrorCode.INVALID_ARGUMENT, `${what}: the buffer needs usage GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC`);
    const t = Object.create(Tensor.prototype);
    Object.defineProperty(t, 'type', { value: type, enumerable: true });
    defineDims(t, dims, size);
    Object.defineProperty(t, 'size', { value: size, enumerable: true });
    Object.defineProperty(t, 'data', {
      get() { throw gortError(ErrorCode.INVALID_ARGUMENT, "the tensor's data is on the GPU: use await tensor.getData()"); },
      enumerable: true, configurable: true,
    });
    const download = o.download || (async () => readGpuBuffer(await env.webgpu.device, buffer, size * 4));
    Object.defineProperty(t, '_gpu', { value: { location: 'gpu-buffer', buffer, download, dispose: o.dispose }, writable: true });
    return t;
  }
}

// defineDims gives t its dims. They can be assigned, as onnxruntime-common's
// can: clients relabel a tensor in place (transformers.js's squeeze_,
// unsqueeze_ and flatten_ assign tensor.dims). The new dims must be
// non-negative integers with the same element count, so that the data
// (or the GPUBuffer) always holds exactly what the dims say.
function defineDims(t, dims, size) {
  let value = Object.freeze(dims);
  Object.defineProperty(t, 'dims', {
    enumerable: true,
    get() { return value; },
    set(d) {
      const next = checkDims(d, `${t.type} tensor dims`);
      if (sizeOf(next) !== size) {
        throw gortError(ErrorCode.INVALID_ARGUMENT, `${t.type} tensor dims: [${next}] hold ${sizeOf(next)} elements, the tensor has ${size}; use reshape() for a tensor of another size`);
      }
      value = Object.freeze(next);
    },
  });
}

const GPU_USAGE = 0x80 | 0x4; // GPUBufferUsage.STORAGE | COPY_SRC

// Copies bytes of a GPUBuffer to an ArrayBuffer through a mappable
// staging buffer. The error scope keeps a foreign buffer's validation
// error off the device (where it would fail every later run).
export async function readGpuBuffer(device, buffer, bytes) {
  if (!bytes) return new ArrayBuffer(0);
  device.pushErrorScope('validation');
  const staging = device.createBuffer({ size: bytes, usage: 0x1 | 0x8 }); // MAP_READ | COPY_DST
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(buffer, 0, staging, 0, bytes);
  device.queue.submit([enc.finish()]);
  const err = await device.popErrorScope();
  try {
    if (err) throw gortError(ErrorCode.INVALID_ARGUMENT, `cannot read the GPUBuffer on gort's device: ${err.message}`);
    await staging.mapAsync(1); // GPUMapMode.READ
    return staging.getMappedRange().slice(0);
  } finally {
    staging.destroy();
  }
}
