#!/usr/bin/env node
// gort's Node command line.
//
//   gort run model.onnx [--seed N] [--dim name=value ...]
//
// runs the model once on random inputs and prints each output's name, type,
// dims and checksum (the sum of its elements) in the format of the native
// CLI (`go run ./cmd/gort run model.onnx`), on the same inputs: each input
// is filled from its own math/rand/v2 PCG(seed, 2) stream (seed 1 by default,
// as cmd/gort's PCG(1, 2)) exactly as cmd/gort's randomTensor does, so the
// two print the same lines for the same model (js/test/cli.test.mjs checks).
// Values are read with the library's own conversions (float16, bfloat16).
import gort from '../dist/gort.mjs';
import { PCG, formatG6 } from './gocompat.mjs';

const usage = () => {
  console.error('usage: gort run model.onnx [--seed N] [--dim name=value ...]');
  process.exit(2);
};

// cmd/gort's randomTensor: float32/float64 (and float16/bfloat16, rounded)
// uniform in [-1, 1), int64/int32 in [0, 4), bool fair; every other type
// stays zero (empty strings).
function randomTensor(meta, seed, dimOverrides) {
  const dims = (meta.shape || []).map((d) => (typeof d === 'number' && d >= 0 ? d : (dimOverrides[d] ?? 1)));
  const n = dims.reduce((a, b) => a * b, 1);
  const r = new PCG(seed, 2);
  const t = meta.type;
  let data;
  switch (t) {
    case 'float32': data = Float32Array.from({ length: n }, () => Math.fround(r.float32() * 2 - 1)); break;
    // float16/bfloat16: the same float32 draws, rounded to the type (ties to even) by the library.
    case 'float16': data = Uint16Array.from({ length: n }, () => gort._convert.toFloat16Bits(Math.fround(r.float32() * 2 - 1))); break;
    case 'bfloat16': data = Uint16Array.from({ length: n }, () => gort._convert.toBfloat16Bits(Math.fround(r.float32() * 2 - 1))); break;
    case 'float64': data = Float64Array.from({ length: n }, () => r.float64() * 2 - 1); break;
    case 'int64': data = BigInt64Array.from({ length: n }, () => r.intNPow2(4)); break;
    case 'int32': data = Int32Array.from({ length: n }, () => Number(r.intNPow2(4))); break;
    case 'bool': data = Uint8Array.from({ length: n }, () => Number(r.intNPow2(2))); break;
    case 'string': data = Array.from({ length: n }, () => ''); break;
    default: data = new Array(n * (t === 'complex64' || t === 'complex128' ? 2 : 1)).fill(0);
  }
  return new gort.Tensor(t, data, dims);
}

// The sum of a tensor's elements in float64, in order, as cmd/gort's
// checksum (0 where it has no numeric value: strings, and bools, which
// tensor.Float64s does not read).
function checksum(t) {
  if (t.type === 'bool' || t.type === 'string') return 0;
  let s = 0;
  try {
    for (const v of gort._convert.toNumbers(t)) s += v;
  } catch {
    return 0;
  }
  return s;
}

async function run(path, args) {
  let seed = 1;
  const dimOverrides = {};
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--seed') seed = Number(args[++i]);
    else if (args[i] === '--dim') { const [k, v] = String(args[++i]).split('='); dimOverrides[k] = Number(v); }
    else usage();
  }
  if (!Number.isSafeInteger(seed) || seed < 0) usage();
  const t0 = performance.now();
  const session = await gort.InferenceSession.create(path, { logSeverityLevel: 3 });
  const t1 = performance.now();
  const feeds = {};
  for (const meta of session.inputMetadata) {
    if (meta.overridableInitializer) continue;
    if (!meta.isTensor) throw new Error(`input "${meta.name}" is a ${meta.kind}; random feeds are only made for tensors`);
    feeds[meta.name] = randomTensor(meta, seed, dimOverrides);
  }
  const t2 = performance.now();
  const out = await session.run(feeds);
  const t3 = performance.now();
  console.log(`${path}: loaded in ${(t1 - t0).toFixed(1)} ms, ran in ${(t3 - t2).toFixed(1)} ms (seed ${seed})`);
  for (const name of session.outputNames) {
    const v = out[name];
    if (v === null || Array.isArray(v)) {
      console.log(`  ${name}: ${v === null ? 'none' : `sequence of ${v.length}`}`);
      continue;
    }
    console.log(`  ${name}: ${v.type}[${v.dims.join(' ')}] checksum ${formatG6(checksum(v))}`);
  }
  await session.release();
}

const [cmd, path, ...rest] = process.argv.slice(2);
if (cmd !== 'run' || !path) usage();
run(path, rest).catch((e) => {
  console.error(`gort: ${e.code ? '' : 'error: '}${e.message}`);
  process.exit(1);
});
