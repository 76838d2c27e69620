#!/usr/bin/env node
// gort's Node command line (skeleton; the model-checks issue grows it).
//
//   gort run model.onnx [--seed N] [--dim name=value ...]
//
// runs the model once on random inputs (fixed seed, so runs are comparable
// across machines and with native `go run ./cmd/gort`) and prints each
// output's name, type, dims and a checksum (the sum of its elements).
import gort from '../dist/gort.mjs';

const usage = () => {
  console.error('usage: gort run model.onnx [--seed N] [--dim name=value ...]');
  process.exit(2);
};

// mulberry32: a small deterministic PRNG.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function f32ToF16(v) {
  const f = new Float32Array([v]);
  const x = new Uint32Array(f.buffer)[0];
  const sign = (x >>> 16) & 0x8000;
  const e = ((x >>> 23) & 0xff) - 127 + 15;
  const m = x & 0x7fffff;
  if (e <= 0) return sign;
  if (e >= 31) return sign | 0x7c00;
  return sign | (e << 10) | (m >>> 13);
}
function f16ToF32(h) {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

function randomTensor(meta, next, dimOverrides) {
  const dims = (meta.shape || [1]).map((d) => (typeof d === 'number' && d >= 0 ? d : (dimOverrides[d] ?? 1)));
  const n = dims.reduce((a, b) => a * b, 1);
  const t = meta.type;
  let data;
  switch (t) {
    case 'float32': case 'float64': case 'complex64': case 'complex128': {
      const C = t === 'float32' || t === 'complex64' ? Float32Array : Float64Array;
      data = C.from({ length: n * (t.startsWith('complex') ? 2 : 1) }, () => next() * 2 - 1);
      break;
    }
    case 'float16': data = Uint16Array.from({ length: n }, () => f32ToF16(next() * 2 - 1)); break;
    case 'bfloat16': data = Uint16Array.from({ length: n }, () => (new Uint32Array(new Float32Array([next() * 2 - 1]).buffer)[0] >>> 16)); break;
    case 'int64': data = BigInt64Array.from({ length: n }, () => BigInt(Math.floor(next() * 10))); break;
    case 'uint64': data = BigUint64Array.from({ length: n }, () => BigInt(Math.floor(next() * 10))); break;
    case 'bool': data = Uint8Array.from({ length: n }, () => (next() < 0.5 ? 1 : 0)); break;
    case 'string': data = Array.from({ length: n }, () => `s${Math.floor(next() * 100)}`); break;
    case 'int8': case 'int16': case 'int32': case 'uint8': case 'uint16': case 'uint32': {
      const C = { int8: Int8Array, int16: Int16Array, int32: Int32Array, uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array }[t];
      data = C.from({ length: n }, () => Math.floor(next() * 10));
      break;
    }
    default:
      throw new Error(`input ${meta.name}: random ${t} inputs are not supported yet`);
  }
  return new gort.Tensor(t, data, dims);
}

function checksum(v) {
  if (v === null) return 'none';
  if (Array.isArray(v)) return `[${v.map(checksum).join(', ')}]`;
  let s = 0;
  if (v.type === 'string') return `${v.data.join('').length} chars`;
  if (v.type === 'float16') for (const h of v.data) s += f16ToF32(h);
  else if (v.type === 'bfloat16') for (const h of v.data) s += new Float32Array(new Uint32Array([h << 16]).buffer)[0];
  else for (const x of v.data) s += Number(x);
  return s.toPrecision(8);
}

async function run(path, args) {
  let seed = 1;
  const dimOverrides = {};
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--seed') seed = Number(args[++i]);
    else if (args[i] === '--dim') { const [k, v] = String(args[++i]).split('='); dimOverrides[k] = Number(v); }
    else usage();
  }
  const t0 = performance.now();
  const session = await gort.InferenceSession.create(path, { logSeverityLevel: 3 });
  const t1 = performance.now();
  const next = rng(seed);
  const feeds = {};
  for (const meta of session.inputMetadata) {
    if (meta.overridableInitializer) continue;
    if (!meta.isTensor) throw new Error(`input ${meta.name} is a ${meta.kind}; random ${meta.kind} inputs are not supported yet`);
    feeds[meta.name] = randomTensor(meta, next, dimOverrides);
  }
  const out = await session.run(feeds);
  const t2 = performance.now();
  console.log(`${path}: loaded in ${(t1 - t0).toFixed(1)} ms, ran in ${(t2 - t1).toFixed(1)} ms (seed ${seed})`);
  for (const name of session.outputNames) {
    const v = out[name];
    const desc = v === null ? 'none' : Array.isArray(v) ? `sequence of ${v.length}` : `${v.type} [${v.dims.join(',')}]`;
    console.log(`  ${name}: ${desc} checksum ${checksum(v)}`);
  }
  await session.release();
}

const [cmd, path, ...rest] = process.argv.slice(2);
if (cmd !== 'run' || !path) usage();
run(path, rest).catch((e) => {
  console.error(`gort: ${e.code ? '' : 'error: '}${e.message}`);
  process.exit(1);
});
