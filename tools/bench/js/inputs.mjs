// Reads every input of a model directory's test_data_set_0, in order.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTensor } from './tensorproto.mjs';

export function readInputs(dir) {
  const out = [];
  for (let n = 0; ; n++) {
    const p = join(dir, 'test_data_set_0', `input_${n}.pb`);
    if (!existsSync(p)) return out;
    out.push(parseTensor(readFileSync(p)));
  }
}

// Deterministic inputs from a corpus manifest's input specs
// (tools/corpus/corpus.json): {name, type, dims, range: [lo, hi]} draws
// uniformly in [lo, hi] (integers for integer types), {value} fills. The
// generator is seeded by `seed` and the input's name, so every worker and
// process (gort's, onnxruntime-web's, the cold starts) builds the same bytes.
const ctors = {
  float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array, uint8: Uint8Array, int8: Int8Array, bool: Uint8Array,
};

function rng(seedText) {
  let h = 2166136261; // FNV-1a, then mulberry32
  for (const ch of seedText) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Builds [{name, type, dims, data}] from input specs. */
export function makeInputs(specs, seed = '') {
  return specs.map((s) => {
    const Ctor = ctors[s.type];
    if (!Ctor) throw new Error(`input ${s.name}: type ${s.type} not supported (${Object.keys(ctors)})`);
    const n = s.dims.reduce((a, b) => a * b, 1);
    const data = new Ctor(n);
    const big = Ctor === BigInt64Array, int = !(Ctor === Float32Array || Ctor === Float64Array);
    if ('value' in s) data.fill(big ? BigInt(s.value) : s.value);
    else {
      const [lo, hi] = s.range || [0, 1];
      const r = rng(`${seed}/${s.name}`);
      for (let i = 0; i < n; i++) {
        const x = lo + r() * (hi - lo);
        data[i] = big ? BigInt(Math.round(x)) : int ? Math.round(x) : x;
      }
    }
    return { name: s.name, type: s.type, dims: [...s.dims], data };
  });
}
