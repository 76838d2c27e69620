// Value comparison for the JS tests, mirroring runtime/compare (the ONNX test
// runner's rule): |got - want| ≤ atol + rtol·|want|, NaN equals NaN,
// infinities must match; non-float types must be equal. tol.structureOnly
// compares kinds, dtypes and shapes only.

export const DEFAULT_TOL = { rtol: 1e-3, atol: 1e-7 };

export function f16ToF32(h) {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}
const bf16buf = new Uint32Array(1);
const bf16f = new Float32Array(bf16buf.buffer);
export function bf16ToF32(h) { bf16buf[0] = h << 16; return bf16f[0]; }

function closeTo(got, want, tol) {
  if (Number.isNaN(want)) return Number.isNaN(got);
  if (!Number.isFinite(want)) return got === want;
  return Math.abs(got - want) <= tol.atol + tol.rtol * Math.abs(want);
}

function floats(t) {
  if (t.type === 'float16') return Array.from(t.data, f16ToF32);
  if (t.type === 'bfloat16') return Array.from(t.data, bf16ToF32);
  return t.data;
}

/** Returns '' when got matches want, else a description of the first difference. */
export function compare(got, want, tol = DEFAULT_TOL) {
  if (want === null) return got === null ? '' : 'got a value, want none';
  if (got === null || got === undefined) return 'got none, want a value';
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return 'got a tensor, want a sequence';
    if (got.length !== want.length) return `sequence has ${got.length} items, want ${want.length}`;
    for (let i = 0; i < want.length; i++) {
      const d = compare(got[i], want[i], tol);
      if (d) return `item ${i}: ${d}`;
    }
    return '';
  }
  if (Array.isArray(got)) return 'got a sequence, want a tensor';
  if (got.type !== want.type) return `dtype ${got.type}, want ${want.type}`;
  if (got.dims.join(',') !== want.dims.join(',')) return `shape [${got.dims}], want [${want.dims}]`;
  if (tol.structureOnly) return ''; // outputs of random ops: values not compared
  switch (want.type) {
    case 'float32': case 'float64': case 'float16': case 'bfloat16': case 'complex64': {
      const g = floats(got), w = floats(want);
      for (let i = 0; i < w.length; i++) {
        if (!closeTo(g[i], w[i], tol)) return `element ${i} is ${g[i]}, want ${w[i]}`;
      }
      return '';
    }
    case 'complex128': {
      const g = got.data, w = want.data;
      for (let i = 0; i < w.length; i += 2) {
        const d = Math.hypot(g[i] - w[i], g[i + 1] - w[i + 1]);
        if (!(d <= tol.atol + tol.rtol * Math.hypot(w[i], w[i + 1]))) return `element ${i / 2} differs`;
      }
      return '';
    }
  }
  const g = got.data, w = want.data;
  if (g.length !== w.length) return `${g.length} values, want ${w.length}`;
  for (let i = 0; i < w.length; i++) {
    if (g[i] !== w[i]) return `element ${i} is ${g[i]}, want ${w[i]}`;
  }
  return '';
}
