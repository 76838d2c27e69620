// A small ONNX protobuf reader for the demo page: just the fields the page
// shows (model summary, graph structure, initializer statistics, external
// data locations) and TensorProto values (.pb inputs and reference outputs).
// Everything else is skipped. It never copies bulk data: raw_data stays a
// view into the file's bytes.
//
// gort's own decoder (in gort.wasm) is what runs the model; this one only
// lets the page describe a model even when the runtime rejects it, and read
// tensors without a round trip through the runtime.

const te = new TextDecoder();

/** Element types by ONNX TensorProto.DataType, with the gort/JS name and bytes per element (0: not fixed-width). */
export const DTYPES = {
  1: ['float32', 4], 2: ['uint8', 1], 3: ['int8', 1], 4: ['uint16', 2], 5: ['int16', 2], 6: ['int32', 4],
  7: ['int64', 8], 8: ['string', 0], 9: ['bool', 1], 10: ['float16', 2], 11: ['float64', 8], 12: ['uint32', 4],
  13: ['uint64', 8], 14: ['complex64', 8], 15: ['complex128', 16], 16: ['bfloat16', 2], 17: ['float8e4m3fn', 1],
  18: ['float8e4m3fnuz', 1], 19: ['float8e5m2', 1], 20: ['float8e5m2fnuz', 1], 21: ['uint4', 0.5], 22: ['int4', 0.5],
  23: ['float4e2m1', 0.5], 24: ['float8e8m0', 1], 25: ['uint2', 0.25], 26: ['int2', 0.25],
};

export function dtypeName(code) { return (DTYPES[code] || [`dtype${code}`])[0]; }

/** A file the page could not read; `code` mirrors gort's error codes in spirit. */
export class FormatError extends Error {
  constructor(message) { super(message); this.code = 'DEMO_BAD_FILE'; }
}

// ---------------------------------------------------------------- wire reader

class Reader {
  constructor(bytes, start = 0, end = bytes.length) { this.b = bytes; this.p = start; this.end = end; }
  done() { return this.p >= this.end; }
  varint() {
    const b = this.b;
    let r = 0; let shift = 0; let byte;
    // Fast path for values below 2^49; BigInt beyond (negative int64s take 10 bytes).
    do {
      if (this.p >= this.end) throw new FormatError('truncated varint');
      byte = b[this.p++];
      if (shift < 49) r += (byte & 0x7f) * 2 ** shift;
      else return this._bigTail(r, shift, byte);
      shift += 7;
    } while (byte & 0x80);
    return r;
  }
  _bigTail(low, shift, byte) {
    let v = BigInt(low) + (BigInt(byte & 0x7f) << BigInt(shift));
    while (byte & 0x80) {
      if (this.p >= this.end) throw new FormatError('truncated varint');
      byte = this.b[this.p++];
      shift += 7;
      v += BigInt(byte & 0x7f) << BigInt(shift);
    }
    return Number(BigInt.asIntN(64, v));
  }
  tag() { const t = this.varint(); return [Math.floor(t / 8), t & 7]; }
  bytes() {
    const n = this.varint();
    if (this.p + n > this.end) throw new FormatError(`a field of ${n} bytes runs past the end of its message`);
    const s = this.b.subarray(this.p, this.p + n);
    this.p += n;
    return s;
  }
  sub() { const n = this.varint(); const r = new Reader(this.b, this.p, this.p + n); if (r.end > this.end) throw new FormatError('a message runs past the end of the file'); this.p += n; return r; }
  string() { return te.decode(this.bytes()); }
  fixed32() { const v = new DataView(this.b.buffer, this.b.byteOffset + this.p, 4).getFloat32(0, true); this.p += 4; return v; }
  skip(wire) {
    switch (wire) {
      case 0: this.varint(); break;
      case 1: this.p += 8; break;
      case 2: { const n = this.varint(); this.p += n; break; }
      case 5: this.p += 4; break;
      default: throw new FormatError(`unknown wire type ${wire} at byte ${this.p}`);
    }
    if (this.p > this.end) throw new FormatError('a field runs past the end of its message');
  }
  /** Repeated varints, packed (wire 2) or not. */
  varints(wire, out) {
    if (wire === 2) { const r = this.sub(); while (!r.done()) out.push(r.varint()); } else out.push(this.varint());
  }
}

function fields(r, handlers) {
  while (!r.done()) {
    const [f, w] = r.tag();
    const h = handlers[f];
    if (h) h(w); else r.skip(w);
  }
}

// ---------------------------------------------------------------- messages

function readType(r) {
  const t = { kind: 'unknown' };
  fields(r, {
    1: () => Object.assign(t, tensorType(r.sub()), { kind: 'tensor' }),
    8: () => Object.assign(t, tensorType(r.sub()), { kind: 'sparse_tensor' }),
    4: () => { const s = r.sub(); t.kind = 'sequence'; fields(s, { 1: () => { t.elem = readType(s.sub()); } }); },
    9: () => { const s = r.sub(); t.kind = 'optional'; fields(s, { 1: () => { t.elem = readType(s.sub()); } }); },
    5: () => { r.skip(2); t.kind = 'map'; },
  });
  return t;
}

function tensorType(r) {
  const t = { elem: 0, shape: null };
  fields(r, {
    1: () => { t.elem = r.varint(); },
    2: () => {
      const s = r.sub(); t.shape = [];
      fields(s, {
        1: () => {
          const d = s.sub(); let v = null;
          fields(d, { 1: () => { v = d.varint(); }, 2: () => { v = d.string(); } });
          t.shape.push(v);
        },
      });
    },
  });
  return t;
}

function valueInfo(r) {
  const v = { name: '', type: { kind: 'unknown' } };
  fields(r, { 1: () => { v.name = r.string(); }, 2: () => { v.type = readType(r.sub()); } });
  return v;
}

/** Decodes a TensorProto's header and keeps its data as views: {name, dims, dataType, raw?, packed fields, external?}. */
export function tensorProto(r) {
  const t = { name: '', dims: [], dataType: 0, floatData: null, int32Data: null, int64Data: null, doubleData: null, uint64Data: null, stringData: null, raw: null, external: null };
  const packedFloats = (w, key, size) => {
    if (w === 2) {
      const b = r.bytes();
      (t[key] = t[key] || []).push(b);
    } else {
      const b = r.b.subarray(r.p, r.p + size); r.p += size;
      (t[key] = t[key] || []).push(b);
    }
  };
  fields(r, {
    1: (w) => r.varints(w, t.dims),
    2: () => { t.dataType = r.varint(); },
    4: (w) => packedFloats(w, 'floatData', 4),
    5: (w) => r.varints(w, (t.int32Data = t.int32Data || [])),
    6: () => (t.stringData = t.stringData || []).push(r.string()),
    7: (w) => r.varints(w, (t.int64Data = t.int64Data || [])),
    8: () => { t.name = r.string(); },
    9: () => { t.raw = r.bytes(); },
    10: (w) => packedFloats(w, 'doubleData', 8),
    11: (w) => r.varints(w, (t.uint64Data = t.uint64Data || [])),
    13: () => {
      const e = r.sub(); let k = ''; let v = '';
      fields(e, { 1: () => { k = e.string(); }, 2: () => { v = e.string(); } });
      (t.external = t.external || {})[k] = v;
    },
    14: () => { t.dataLocation = r.varint(); },
  });
  return t;
}

function attribute(r) {
  const a = { name: '', type: 0 };
  const list = (k, v) => (a[k] = a[k] || []).push(v);
  fields(r, {
    1: () => { a.name = r.string(); },
    20: () => { a.type = r.varint(); },
    21: () => { a.ref = r.string(); },
    2: () => { a.f = r.fixed32(); },
    3: () => { a.i = r.varint(); },
    4: () => { a.s = r.string(); },
    5: () => { a.t = tensorProto(r.sub()); },
    6: () => { a.g = graph(r.sub()); },
    7: (w) => { if (w === 2) { const s = r.sub(); while (!s.done()) list('floats', s.fixed32()); } else list('floats', r.fixed32()); },
    8: (w) => r.varints(w, (a.ints = a.ints || [])),
    9: () => list('strings', r.string()),
    10: () => list('tensors', tensorProto(r.sub())),
    11: () => list('graphs', graph(r.sub())),
  });
  return a;
}

/** The value of an attribute for display: number, string, array, tensor summary or subgraph name. */
export function attributeValue(a) {
  switch (a.type) {
    case 1: return a.f ?? 0;
    case 2: return a.i ?? 0;
    case 3: return a.s ?? '';
    case 4: return a.t ? `tensor ${dtypeName(a.t.dataType)}[${a.t.dims.join(',')}]` : 'tensor';
    case 5: return a.g ? `graph ${a.g.name} (${a.g.nodes.length} nodes)` : 'graph';
    case 6: return a.floats || [];
    case 7: return a.ints || [];
    case 8: return a.strings || [];
    case 9: return `${(a.tensors || []).length} tensors`;
    case 10: return `${(a.graphs || []).length} graphs`;
    default: return a.ref ? `@${a.ref}` : (a.f ?? a.i ?? a.s ?? a.floats ?? a.ints ?? a.strings ?? '?');
  }
}

function node(r, index) {
  const n = { index, name: '', op: '', domain: '', inputs: [], outputs: [], attrs: [] };
  fields(r, {
    1: () => n.inputs.push(r.string()),
    2: () => n.outputs.push(r.string()),
    3: () => { n.name = r.string(); },
    4: () => { n.op = r.string(); },
    7: () => { n.domain = r.string(); },
    5: () => n.attrs.push(attribute(r.sub())),
  });
  return n;
}

function graph(r) {
  const g = { name: '', nodes: [], initializers: [], inputs: [], outputs: [], valueInfo: [] };
  fields(r, {
    1: () => g.nodes.push(node(r.sub(), g.nodes.length)),
    2: () => { g.name = r.string(); },
    5: () => g.initializers.push(tensorProto(r.sub())),
    11: () => g.inputs.push(valueInfo(r.sub())),
    12: () => g.outputs.push(valueInfo(r.sub())),
    13: () => g.valueInfo.push(valueInfo(r.sub())),
  });
  return g;
}

/** Decodes a ModelProto: {irVersion, opsets: {domain: version}, producer, graph, functions}. */
export function decodeModel(bytes) {
  const r = new Reader(bytes);
  const m = { irVersion: 0, opsets: {}, producer: '', producerVersion: '', domain: '', docString: '', graph: null, functions: [], metadata: {} };
  fields(r, {
    1: () => { m.irVersion = r.varint(); },
    2: () => { m.producer = r.string(); },
    3: () => { m.producerVersion = r.string(); },
    4: () => { m.domain = r.string(); },
    6: () => { m.docString = r.string(); },
    7: () => { m.graph = graph(r.sub()); },
    8: () => {
      const s = r.sub(); let d = ''; let v = 0;
      fields(s, { 1: () => { d = s.string(); }, 2: () => { v = s.varint(); } });
      m.opsets[d] = v;
    },
    14: () => {
      const s = r.sub(); let k = ''; let v = '';
      fields(s, { 1: () => { k = s.string(); }, 2: () => { v = s.string(); } });
      m.metadata[k] = v;
    },
    25: () => {
      const s = r.sub(); const f = { name: '', domain: '', nodes: [] };
      fields(s, { 1: () => { f.name = s.string(); }, 10: () => { f.domain = s.string(); }, 7: () => f.nodes.push(node(s.sub(), f.nodes.length)) });
      m.functions.push(f);
    },
  });
  if (!m.graph) throw new FormatError('the file has no graph (is it an ONNX model?)');
  return m;
}

/** Type text as gort prints it: float32[batch,3,224,224]; '?' for unknown dims. */
export function typeText(t) {
  if (!t || t.kind === 'unknown') return '?';
  if (t.kind === 'sequence' || t.kind === 'optional') return `${t.kind}<${typeText(t.elem)}>`;
  if (t.kind === 'map') return 'map';
  const e = dtypeName(t.elem);
  if (!t.shape) return `${e}[…]`;
  return `${e}[${t.shape.map((d) => (d === null ? '?' : d)).join(',')}]`;
}

// ---------------------------------------------------------------- tensor values

function concat(chunks) {
  if (chunks.length === 1) return chunks[0];
  const n = chunks.reduce((s, c) => s + c.length, 0);
  const out = new Uint8Array(n); let o = 0;
  for (const c of chunks) { out.set(c, o); o += c.length; }
  return out;
}

/** Copies little-endian bytes into a fresh typed array of ctor (aligned). */
function fromLE(bytes, Ctor) {
  const copy = new Uint8Array(bytes.length); copy.set(bytes);
  return new Ctor(copy.buffer, 0, bytes.length / Ctor.BYTES_PER_ELEMENT);
}

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, int8: Int8Array, int16: Int16Array, int32: Int32Array, int64: BigInt64Array,
  uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array, uint64: BigUint64Array, bool: Uint8Array, float16: Uint16Array, bfloat16: Uint16Array,
};

/**
 * The value of a decoded TensorProto: {name, type, dims, data} with data as
 * gort.Tensor takes it (float16/bfloat16 as Uint16Array bit patterns).
 * externalFiles: Map of location → bytes, for tensors stored outside.
 */
export function tensorValue(t, externalFiles) {
  const type = dtypeName(t.dataType);
  const dims = t.dims.map(Number);
  const n = dims.reduce((a, b) => a * b, 1);
  const Ctor = ARRAYS[type];
  let data;
  if (type === 'string') {
    data = t.stringData || [];
  } else if (!Ctor) {
    throw new FormatError(`tensor ${t.name || '(unnamed)'}: element type ${type} is not shown by the demo`);
  } else if (t.external || t.dataLocation === 1) {
    const loc = t.external && t.external.location;
    const file = externalFiles && (externalFiles.get(loc) || externalFiles.get(String(loc).split('/').pop()));
    if (!file) throw Object.assign(new FormatError(`tensor ${t.name}: its data is in the external file ${loc}, which was not given`), { code: 'GORT_EXTERNAL_DATA' });
    const off = Number(t.external.offset || 0);
    const len = t.external.length !== undefined ? Number(t.external.length) : n * Ctor.BYTES_PER_ELEMENT;
    data = fromLE(file.subarray(off, off + len), Ctor);
  } else if (t.raw) {
    data = fromLE(t.raw, Ctor);
  } else if (t.floatData && type === 'float32') {
    data = fromLE(concat(t.floatData), Float32Array);
  } else if (t.doubleData && type === 'float64') {
    data = fromLE(concat(t.doubleData), Float64Array);
  } else if (t.int64Data) {
    data = BigInt64Array.from(t.int64Data, (v) => BigInt(v));
  } else if (t.uint64Data) {
    data = Ctor === BigUint64Array ? BigUint64Array.from(t.uint64Data, (v) => BigInt(v)) : Ctor.from(t.uint64Data);
  } else if (t.int32Data) {
    // int32_data also carries int8/16, uint8/16, bool and float16/bfloat16 bit patterns.
    data = Ctor === BigInt64Array ? BigInt64Array.from(t.int32Data, (v) => BigInt(v)) : Ctor.from(t.int32Data);
  } else {
    data = new Ctor(0);
  }
  if (data.length !== n) throw new FormatError(`tensor ${t.name || '(unnamed)'}: ${data.length} values for dims [${dims}] (${n})`);
  return { name: t.name, type, dims, data };
}

/** Decodes a TensorProto file (.pb of a test_data_set). */
export function decodeTensor(bytes) {
  return tensorValue(tensorProto(new Reader(bytes)));
}

/** Number of elements and bytes of an initializer, without decoding its data. */
export function initializerSize(t) {
  const n = t.dims.reduce((a, b) => a * Number(b), 1);
  const per = (DTYPES[t.dataType] || [null, 0])[1];
  let bytes = Math.ceil(n * per);
  if (t.raw) bytes = t.raw.length;
  else if (t.external && t.external.length !== undefined) bytes = Number(t.external.length);
  return { count: n, bytes };
}

/** Every external data location the model's initializers name (main graph). */
export function externalLocations(model) {
  const s = new Set();
  for (const t of model.graph.initializers) if (t.external && t.external.location) s.add(t.external.location);
  return [...s];
}


/** Size of a Constant node's value ({count, bytes}), or null when it is not a Constant with a value. */
function constantSize(n) {
  if (n.op !== 'Constant' || (n.domain && n.domain !== 'ai.onnx')) return null;
  for (const a of n.attrs) {
    if (a.name === 'value' && a.t) return initializerSize(a.t);
    if (a.name === 'value_float' || a.name === 'value_int') return { count: 1, bytes: a.name === 'value_int' ? 8 : 4 };
    if (a.name === 'value_floats') return { count: (a.floats || []).length, bytes: 4 * (a.floats || []).length };
    if (a.name === 'value_ints') return { count: (a.ints || []).length, bytes: 8 * (a.ints || []).length };
  }
  return null;
}

/**
 * What a model holds, subgraphs (If/Loop/Scan bodies) included: nodes (all,
 * and how many of them inside subgraphs), initializers, Constant nodes with
 * a value, parameters and weight bytes of both, and the operator histogram
 * (a Map op → count, over every graph).
 */
export function modelStats(model) {
  const s = { nodes: 0, nodesInSubgraphs: 0, subgraphs: 0, initializers: 0, constants: 0, params: 0, bytes: 0, constantParams: 0, ops: new Map() };
  const walk = (g, depth) => {
    if (depth) s.subgraphs++;
    for (const t of g.initializers) { const z = initializerSize(t); s.initializers++; s.params += z.count; s.bytes += z.bytes; }
    for (const n of g.nodes) {
      s.nodes++;
      if (depth) s.nodesInSubgraphs++;
      const k = n.domain && n.domain !== 'ai.onnx' ? `${n.domain}.${n.op}` : n.op;
      s.ops.set(k, (s.ops.get(k) || 0) + 1);
      const z = constantSize(n);
      if (z) { s.constants++; s.params += z.count; s.bytes += z.bytes; s.constantParams += z.count; }
      for (const a of n.attrs) {
        if (a.g) walk(a.g, depth + 1);
        for (const sg of a.graphs || []) walk(sg, depth + 1);
      }
    }
  };
  walk(model.graph, 0);
  return s;
}
