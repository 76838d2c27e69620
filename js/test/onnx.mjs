// A tiny ONNX model writer for gort's JS tests: just enough protobuf to build
// graphs (nodes, initializers, typed inputs/outputs, opsets, external data)
// without Python or the onnx package. Field numbers are onnx.proto3's.

const enc = new TextEncoder();

class W {
  constructor() { this.parts = []; this.len = 0; }
  bytes(b) { this.parts.push(b); this.len += b.length; }
  varint(v) {
    let n = BigInt.asUintN(64, BigInt(v));
    const out = [];
    do {
      let b = Number(n & 0x7fn);
      n >>= 7n;
      if (n) b |= 0x80;
      out.push(b);
    } while (n);
    this.bytes(Uint8Array.from(out));
  }
  tag(field, wire) { this.varint((field << 3) | wire); }
  int(field, v) { this.tag(field, 0); this.varint(v); }
  str(field, s) { this.ld(field, typeof s === 'string' ? enc.encode(s) : s); }
  ld(field, b) { this.tag(field, 2); this.varint(b.length); this.bytes(b); }
  msg(field, f) { const w = new W(); f(w); this.ld(field, w.done()); }
  f32(field, v) { this.tag(field, 5); const b = new Uint8Array(4); new DataView(b.buffer).setFloat32(0, v, true); this.bytes(b); }
  done() {
    const out = new Uint8Array(this.len);
    let o = 0;
    for (const p of this.parts) { out.set(p, o); o += p.length; }
    return out;
  }
}

export const DT = {
  float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, string: 8, bool: 9,
  float16: 10, float64: 11, uint32: 12, uint64: 13, complex64: 14, complex128: 15, bfloat16: 16,
  float8e4m3fn: 17, float8e4m3fnuz: 18, float8e5m2: 19, float8e5m2fnuz: 20, uint4: 21, int4: 22,
  float4e2m1: 23, float8e8m0: 24, uint2: 25, int2: 26,
};

// type: {tensor: 'float32', shape: [1, 'N', null]} | {sequence: inner} | {optional: inner}
function writeType(w, t) {
  if (t.tensor !== undefined) {
    w.msg(1, (tt) => {
      tt.int(1, DT[t.tensor]);
      if (t.shape) {
        tt.msg(2, (sh) => {
          for (const d of t.shape) {
            sh.msg(1, (dim) => {
              if (typeof d === 'number') dim.int(1, d);
              else if (typeof d === 'string') dim.str(2, d);
            });
          }
        });
      }
    });
  } else if (t.sequence) {
    w.msg(4, (s) => s.msg(1, (inner) => writeType(inner, t.sequence)));
  } else if (t.optional) {
    w.msg(9, (s) => s.msg(1, (inner) => writeType(inner, t.optional)));
  }
}

function valueInfo(w, field, v) {
  w.msg(field, (vi) => {
    vi.str(1, v.name);
    vi.msg(2, (t) => writeType(t, v.type));
  });
}

// tensor: {name, type, dims, raw: Uint8Array} or {name, type, dims, external: {location, offset, length}}
function writeTensor(w, t) {
  for (const d of t.dims) w.int(1, d);
  w.int(2, DT[t.type]);
  if (t.name) w.str(8, t.name);
  if (t.strings) for (const s of t.strings) w.str(6, s);
  if (t.raw) w.ld(9, t.raw);
  if (t.external) {
    for (const [k, v] of Object.entries(t.external)) {
      w.msg(13, (e) => { e.str(1, k); e.str(2, String(v)); });
    }
    w.int(14, 1);
  }
}

function writeAttr(w, name, v) {
  w.str(1, name);
  if (typeof v === 'number' && Number.isInteger(v)) { w.int(3, v); w.int(20, 2); }
  else if (typeof v === 'number') { w.f32(2, v); w.int(20, 1); }
  else if (typeof v === 'string') { w.str(4, v); w.int(20, 3); }
  else if (Array.isArray(v) && v.every(Number.isInteger)) { for (const x of v) w.int(8, x); w.int(20, 7); }
  else if (v && v.graph) { w.msg(6, (g) => writeGraph(g, v.graph)); w.int(20, 5); }
  else if (v && v.tensor) { w.msg(5, (t) => writeTensor(t, v.tensor)); w.int(20, 4); }
  else throw new Error(`attribute ${name}: unsupported value`);
}

function writeGraph(w, g) {
  for (const n of g.nodes || []) {
    w.msg(1, (nw) => {
      for (const i of n.inputs || []) nw.str(1, i);
      for (const o of n.outputs || []) nw.str(2, o);
      if (n.name) nw.str(3, n.name);
      nw.str(4, n.op);
      for (const [k, v] of Object.entries(n.attrs || {})) nw.msg(5, (a) => writeAttr(a, k, v));
      if (n.domain) nw.str(7, n.domain);
    });
  }
  w.str(2, g.name || 'g');
  for (const t of g.initializers || []) w.msg(5, (tw) => writeTensor(tw, t));
  for (const i of g.inputs || []) valueInfo(w, 11, i);
  for (const o of g.outputs || []) valueInfo(w, 12, o);
}

/**
 * model({inputs, outputs, nodes, initializers, opsets: {'': 17, 'gort.test': 1}, irVersion})
 * → Uint8Array of a ModelProto.
 */
export function model(m) {
  const w = new W();
  w.int(1, m.irVersion || 8);
  w.str(2, 'gort-js-test');
  w.msg(7, (g) => writeGraph(g, m));
  for (const [domain, version] of Object.entries(m.opsets || { '': 17 })) {
    w.msg(8, (o) => { if (domain) o.str(1, domain); o.int(2, version); });
  }
  return w.done();
}

/** raw bytes of a typed array */
export const raw = (ta) => new Uint8Array(ta.buffer, ta.byteOffset, ta.byteLength);

/** A TensorProto on its own (as in test_data_set_N/input_N.pb): {name, type, dims, raw | strings}. */
export function tensorProto(t) {
  const w = new W();
  writeTensor(w, t);
  return w.done();
}

/** A float32 graph input or output of the given shape. */
export const f32 = (name, shape) => ({ name, type: { tensor: 'float32', shape } });

/** A model with a missing op, a dangling input and an output nothing makes. */
export function brokenModel() {
  return model({
    inputs: [f32('x', [2, 3])],
    outputs: [f32('y', [2, 3]), f32('ghost', [1])],
    nodes: [
      { op: 'Relu', name: 'r1', inputs: ['x'], outputs: ['y'] },
      { op: 'NoSuchOp', name: 'bad', inputs: ['x'], outputs: ['z'] },
      { op: 'Add', name: 'add', inputs: ['x', 'nowhere'], outputs: ['w'] },
    ],
  });
}

/** A graph that returns its inputs unchanged (no nodes): for dtype round trips without any operator. */
export function passthrough(vars) {
  return model({
    inputs: vars,
    outputs: vars,
  });
}

/** n deterministic pseudo-random floats in [-0.1, 0.1) (a linear congruential sequence from seed). */
export function floats(n, seed) {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32 - 0.5) * 0.2;
  }
  return out;
}
