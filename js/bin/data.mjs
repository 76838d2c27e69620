// Inputs and expected outputs for run, compare, diverge and bench, read as
// cmd/gort/data.go reads them: a test_data_set_* folder (input_<i>.pb,
// output_<i>.pb), .npy, .npz (arrays by name, or arr_0… in order), .pb
// TensorProto (named by its name field) and JSON; random values for the
// inputs not given, from the same Go PCG stream as the native CLI, so both
// CLIs feed a model the same numbers.
import { readFile, stat } from 'node:fs/promises';
import { join, extname } from 'node:path';
import gort from '../dist/gort.mjs';
import { PCG, formatInts } from './gocompat.mjs';

/** An error that ends the command with `gort: message` and the given exit code. */
export class CommandError extends Error {
  constructor(message, code) {
    super(message);
    this.exitCode = code;
  }
}

// Go's *PathError texts, for the messages that name a file.
const ERRNO = { ENOENT: 'no such file or directory', EISDIR: 'is a directory', EACCES: 'permission denied', ENOTDIR: 'not a directory' };

/** Reads a file; a failure reads as Go's os.ReadFile error ("open x: no such file or directory"). */
export async function readBytes(path) {
  try {
    return new Uint8Array(await readFile(path));
  } catch (e) {
    const op = e.code === 'EISDIR' ? 'read' : 'open';
    throw new Error(`${op} ${path}: ${ERRNO[e.code] || e.message}`);
  }
}

const exists = async (p) => stat(p).then(() => true, () => false);

// The name field (8) of a TensorProto, from its top-level protobuf fields;
// "" when absent or undecodable.
export function tensorProtoName(b) {
  let i = 0;
  const varint = () => {
    let x = 0n;
    for (let shift = 0n; i < b.length; shift += 7n) {
      const c = b[i++];
      x |= BigInt(c & 0x7f) << shift;
      if (c < 0x80) return x;
    }
    throw new Error('truncated');
  };
  try {
    while (i < b.length) {
      const key = Number(varint());
      const field = key >>> 3;
      switch (key & 7) {
        case 0: varint(); break;
        case 1: i += 8; break;
        case 5: i += 4; break;
        case 2: {
          const n = Number(varint());
          if (field === 8) return new TextDecoder().decode(b.subarray(i, i + n));
          i += n;
          break;
        }
        default: return '';
      }
    }
  } catch {
    return '';
  }
  return '';
}

// JSON element types as tensor.ParseDType names them.
const JSON_TYPES = {
  float: 'float32', float32: 'float32', double: 'float64', float64: 'float64', float16: 'float16', bfloat16: 'bfloat16',
  int8: 'int8', int16: 'int16', int32: 'int32', int64: 'int64', uint8: 'uint8', uint16: 'uint16', uint32: 'uint32', uint64: 'uint64',
  bool: 'bool', string: 'string',
};

function jsonNumber(x, i) {
  if (typeof x === 'number') return x;
  if (typeof x === 'string') {
    const s = x.replace('Infinity', 'Inf');
    if (/^[+-]?Inf$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
    if (/^NaN$/i.test(s)) return NaN;
    const n = Number(s);
    if (s.trim() !== '' && !Number.isNaN(n)) return n;
    throw new Error(`element ${i}: ${JSON.stringify(x)}`);
  }
  throw new Error(`element ${i} is not a number`);
}

// cmd/gort's jsonTensor: {type, dims, data} or nested arrays (float32, or bool).
function jsonTensor(v) {
  let type = 'float32';
  let dims;
  let flat = [];
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    if (typeof v.type === 'string') {
      type = JSON_TYPES[v.type];
      if (!type) throw new Error(`unknown type ${JSON.stringify(v.type)}`);
    }
    if (!Array.isArray(v.data)) throw new Error('no data array');
    flat = v.data;
    if (Array.isArray(v.dims)) {
      dims = v.dims.map((d) => {
        if (!Number.isInteger(d) || d < 0) throw new Error('bad dims');
        return d;
      });
    } else dims = [flat.length];
  } else {
    dims = [];
    const walk = (x, depth) => {
      if (!Array.isArray(x)) {
        if (depth < dims.length) throw new Error('ragged nested array');
        flat.push(x);
        return;
      }
      if (depth === dims.length) dims.push(x.length);
      else if (dims[depth] !== x.length) throw new Error('ragged nested array');
      for (const e of x) walk(e, depth + 1);
    };
    walk(v, 0);
    if (flat.length > 0 && typeof flat[0] === 'boolean') type = 'bool';
  }
  const n = dims.reduce((a, b) => a * b, 1);
  if (n !== flat.length) throw new Error(`dims ${formatInts(dims)} need ${n} values, data has ${flat.length}`);
  let data;
  if (type === 'string') {
    data = flat.map((x, i) => { if (typeof x !== 'string') throw new Error(`element ${i} is not a string`); return x; });
  } else if (type === 'bool') {
    data = Uint8Array.from(flat, (x, i) => { if (typeof x !== 'boolean') throw new Error(`element ${i} is not a boolean`); return x ? 1 : 0; });
  } else {
    const nums = flat.map(jsonNumber);
    switch (type) {
      case 'float16': data = Uint16Array.from(nums, (x) => gort._convert.toFloat16Bits(x)); break;
      case 'bfloat16': data = Uint16Array.from(nums, (x) => gort._convert.toBfloat16Bits(x)); break;
      case 'int64': data = BigInt64Array.from(nums, (x) => BigInt(Math.trunc(x))); break;
      case 'uint64': data = BigUint64Array.from(nums, (x) => BigInt(Math.trunc(x))); break;
      default: data = nums;
    }
  }
  return new gort.Tensor(type, data, dims);
}

/** One --inputs/--expected argument: values by name; positional ones (arr_N, a lone .npy or .pb) take the names in order. */
export async function readValues(arg, order) {
  let name = '';
  let path = arg;
  const eq = arg.indexOf('=');
  if (eq > 0 && !(await exists(arg))) { name = arg.slice(0, eq); path = arg.slice(eq + 1); }
  const b = await readBytes(path);
  const out = {};
  const positional = (vals) => {
    if (name !== '') {
      if (vals.length !== 1) throw new Error(`${path} holds ${vals.length} arrays; NAME=FILE takes one`);
      out[name] = vals[0];
      return out;
    }
    if (vals.length > order.length) throw new Error(`${path} holds ${vals.length} arrays, the model has ${order.length}`);
    vals.forEach((v, i) => { out[order[i]] = v; });
    return out;
  };
  const wrap = async (f) => {
    try {
      return await f();
    } catch (e) {
      throw new Error(`${path}: ${e.message}`);
    }
  };
  switch (extname(path).toLowerCase()) {
    case '.npy': return positional([await wrap(() => gort.readNpy(b))]);
    case '.npz': {
      const arrays = await wrap(() => gort.readNpy(b));
      const pos = [];
      for (const [n, t] of Object.entries(arrays)) {
        if (/^arr_\d+$/.test(n) && !order.includes(n)) pos.push(t);
        else out[n] = t;
      }
      return pos.length > 0 ? positional(pos) : out;
    }
    case '.pb': {
      const v = await wrap(() => gort._decodeValue(b, 'tensor'));
      if (name === '') name = tensorProtoName(b);
      return positional([v]);
    }
    case '.json': {
      const raw = await wrap(() => JSON.parse(new TextDecoder().decode(b)));
      for (const [k, v] of Object.entries(raw)) {
        try {
          out[k] = jsonTensor(v);
        } catch (e) {
          throw new Error(`${path}: ${JSON.stringify(k)}: ${e.message}`);
        }
      }
      return out;
    }
    default: throw new Error(`${path}: unknown format (want .npy, .npz, .pb or .json)`);
  }
}

// cmd/gort's randomTensor: float32/float64 (and float16/bfloat16, rounded)
// uniform in [-1, 1), int64/int32 in [0, 4), bool fair, each input from its
// own PCG(1, 2) stream; every other type stays zero (empty strings);
// symbolic or unknown dims are 1.
export function randomTensor(meta) {
  const dims = (meta.shape || []).map((d) => (typeof d === 'number' && d >= 0 ? d : 1));
  const n = dims.reduce((a, b) => a * b, 1);
  if (n > 2 ** 28) throw new Error(`input ${JSON.stringify(meta.name)} has an invalid shape ${formatInts(dims)}`);
  const r = new PCG(1, 2);
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

// The decoder's kind for a value of this metadata kind ('tensor',
// 'sequence', 'optional-tensor', 'optional-sequence'), as cmd/gort's kindOf.
export const decodeKind = (kind) => (String(kind).startsWith('optional') ? 'optional' : kind === 'sequence' ? 'sequence' : 'tensor');

/** The session's inputs that are not initializers, in order (cmd/gort's s.Inputs()). */
export const inputsOf = (session) => session.inputMetadata.filter((m) => !m.overridableInitializer);

/**
 * The feeds of a run: --data's input_<i>.pb, then --inputs, then random
 * values for the rest (each noted as "input x: random float32[1 3]").
 */
export async function feeds(session, opts) {
  const metas = inputsOf(session);
  const names = metas.map((m) => m.name);
  const out = {};
  const notes = [];
  if (opts.data) {
    for (const [i, m] of metas.entries()) {
      const p = join(opts.data, `input_${i}.pb`);
      if (!(await exists(p))) continue;
      const b = await readBytes(p);
      try {
        out[m.name] = await gort._decodeValue(b, decodeKind(m.kind));
      } catch (e) {
        throw new Error(`input_${i}.pb: ${e.message}`);
      }
    }
  }
  for (const arg of opts.inputs || []) {
    for (const [k, v] of Object.entries(await readValues(arg, names))) {
      if (!names.includes(k)) throw new Error(`${arg}: the model has no input ${JSON.stringify(k)} (inputs: ${names.join(', ')})`);
      out[k] = v;
    }
  }
  for (const m of metas) {
    if (m.name in out) continue;
    if (!m.isTensor) throw new Error(`input ${JSON.stringify(m.name)} is a ${m.kind}; random feeds are only made for tensors`);
    const t = randomTensor(m);
    out[m.name] = t;
    notes.push(`input ${m.name}: random ${t.type}${formatInts(t.dims)}`);
  }
  return { feeds: out, notes };
}

/** Expected outputs: --data's output_<i>.pb and --expected, by output name. */
export async function expected(session, opts) {
  const names = session.outputNames;
  const metas = session.outputMetadata || [];
  const out = {};
  if (opts.data) {
    for (const [i, name] of names.entries()) {
      const p = join(opts.data, `output_${i}.pb`);
      if (!(await exists(p))) continue;
      const b = await readBytes(p);
      try {
        out[name] = await gort._decodeValue(b, decodeKind(metas[i] && metas[i].kind));
      } catch (e) {
        throw new Error(`output_${i}.pb: ${e.message}`);
      }
    }
  }
  for (const arg of opts.expected || []) {
    for (const [k, v] of Object.entries(await readValues(arg, names))) {
      if (!names.includes(k)) throw new Error(`${arg}: the model has no output ${JSON.stringify(k)} (outputs: ${names.join(', ')})`);
      out[k] = v;
    }
  }
  return out;
}

/** cmd/gort's fileName: a value name as a file name ([A-Za-z0-9._-] kept, the rest '_'). */
export const fileName = (value) => value.replace(/[^A-Za-z0-9._-]/gu, '_');
