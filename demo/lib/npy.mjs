// NumPy .npy (format versions 1, 2 and 3) and .npz readers for the demo
// page. A .npy file is a magic string, a header that is a Python dict literal
// ({'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }) and the raw
// array; .npz is a zip of .npy files, stored or deflated (inflated with the
// browser's DecompressionStream). Values come back as {name, type, dims, data}
// with data as gort.Tensor takes it: native-endian, C order.

import { FormatError } from './onnx.mjs';

const te = new TextDecoder();

// descr kind+size → [gort type, typed array]
const KINDS = {
  f2: ['float16', Uint16Array], f4: ['float32', Float32Array], f8: ['float64', Float64Array],
  i1: ['int8', Int8Array], i2: ['int16', Int16Array], i4: ['int32', Int32Array], i8: ['int64', BigInt64Array],
  u1: ['uint8', Uint8Array], u2: ['uint16', Uint16Array], u4: ['uint32', Uint32Array], u8: ['uint64', BigUint64Array],
  b1: ['bool', Uint8Array],
};

function parseHeader(text) {
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(text);
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(text);
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(text);
  if (!descr || !fortran || !shape) throw new FormatError(`unreadable .npy header: ${text.trim()}`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s !== '').map((s) => {
    const v = Number(s.replace(/L$/, ''));
    if (!Number.isSafeInteger(v) || v < 0) throw new FormatError(`bad dimension ${s} in .npy shape`);
    return v;
  });
  return { descr: descr[1], fortran: fortran[1] === 'True', dims };
}

/** Reads one .npy file. */
export function readNpy(bytes, name = '') {
  if (bytes.length < 10 || bytes[0] !== 0x93 || te.decode(bytes.subarray(1, 6)) !== 'NUMPY') {
    throw new FormatError(`${name || 'file'}: not a .npy file (no \\x93NUMPY magic)`);
  }
  const major = bytes[6];
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let hlen; let start;
  if (major === 1) { hlen = dv.getUint16(8, true); start = 10; } else if (major === 2 || major === 3) { hlen = dv.getUint32(8, true); start = 12; } else throw new FormatError(`${name}: .npy format version ${major} is not supported (1, 2, 3 are)`);
  if (start + hlen > bytes.length) throw new FormatError(`${name}: .npy header runs past the end of the file`);
  // v3 headers are UTF-8; v1/v2 latin-1, which is ASCII for every header numpy writes.
  const h = parseHeader(te.decode(bytes.subarray(start, start + hlen)));
  const order = h.descr[0];
  const key = h.descr.slice(1);
  const kind = KINDS[key];
  if (!kind || !'<>|='.includes(order)) throw new FormatError(`${name}: .npy dtype ${h.descr} is not supported (float16/32/64, int8–64, uint8–64, bool are)`);
  const [type, Ctor] = kind;
  const n = h.dims.reduce((a, b) => a * b, 1);
  const size = Ctor.BYTES_PER_ELEMENT;
  const off = start + hlen;
  if (off + n * size > bytes.length) throw new FormatError(`${name}: .npy data is ${bytes.length - off} bytes, shape ${JSON.stringify(h.dims)} needs ${n * size}`);
  const copy = bytes.slice(off, off + n * size);
  if (order === '>' && size > 1) {
    for (let i = 0; i < copy.length; i += size) copy.subarray(i, i + size).reverse();
  }
  let data = new Ctor(copy.buffer, 0, n);
  if (h.fortran && h.dims.length > 1) data = fortranToC(data, h.dims);
  return { name, type, dims: h.dims, data };
}

/** Reorders a column-major (Fortran) array into row-major. */
export function fortranToC(src, dims) {
  const out = new src.constructor(src.length);
  const r = dims.length;
  const fStride = new Array(r);
  let s = 1;
  for (let k = 0; k < r; k++) { fStride[k] = s; s *= dims[k]; }
  const idx = new Array(r).fill(0);
  for (let i = 0; i < src.length; i++) { // i walks C order
    let f = 0;
    for (let k = 0; k < r; k++) f += idx[k] * fStride[k];
    out[i] = src[f];
    for (let k = r - 1; k >= 0; k--) { if (++idx[k] < dims[k]) break; idx[k] = 0; }
  }
  return out;
}

async function inflateRaw(bytes) {
  if (typeof DecompressionStream !== 'function') throw new FormatError('this browser cannot inflate .npz entries (no DecompressionStream)');
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Entries of a zip file: [{name, data}] (stored or deflate; zip64 sizes read). */
export async function readZip(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65535); i--) {
    if (dv.getUint32(i, true) === 0x06054b50) { eocd = i; break; }
  }
  if (eocd < 0) throw new FormatError('not a zip/.npz file (no end-of-central-directory record)');
  let count = dv.getUint16(eocd + 10, true);
  let cd = dv.getUint32(eocd + 16, true);
  if (cd === 0xffffffff || count === 0xffff) { // zip64 end record, located by its locator just before
    const loc = eocd - 20;
    if (loc >= 0 && dv.getUint32(loc, true) === 0x07064b50) {
      const z = Number(dv.getBigUint64(loc + 8, true));
      count = Number(dv.getBigUint64(z + 32, true));
      cd = Number(dv.getBigUint64(z + 48, true));
    }
  }
  const out = [];
  let p = cd;
  for (let e = 0; e < count; e++) {
    if (dv.getUint32(p, true) !== 0x02014b50) throw new FormatError('corrupt zip central directory');
    const method = dv.getUint16(p + 10, true);
    let csize = dv.getUint32(p + 20, true);
    let usize = dv.getUint32(p + 24, true);
    const nlen = dv.getUint16(p + 28, true);
    const xlen = dv.getUint16(p + 30, true);
    const clen = dv.getUint16(p + 32, true);
    let lho = dv.getUint32(p + 42, true);
    const name = te.decode(bytes.subarray(p + 46, p + 46 + nlen));
    // zip64 extra field (id 1): the fields that were 0xffffffff, in order.
    let x = p + 46 + nlen;
    const xend = x + xlen;
    while (x + 4 <= xend) {
      const id = dv.getUint16(x, true); const sz = dv.getUint16(x + 2, true);
      if (id === 1) {
        let q = x + 4;
        if (usize === 0xffffffff) { usize = Number(dv.getBigUint64(q, true)); q += 8; }
        if (csize === 0xffffffff) { csize = Number(dv.getBigUint64(q, true)); q += 8; }
        if (lho === 0xffffffff) { lho = Number(dv.getBigUint64(q, true)); q += 8; }
      }
      x += 4 + sz;
    }
    p = xend + clen;
    if (dv.getUint32(lho, true) !== 0x04034b50) throw new FormatError(`zip entry ${name}: bad local header`);
    const start = lho + 30 + dv.getUint16(lho + 26, true) + dv.getUint16(lho + 28, true);
    const raw = bytes.subarray(start, start + csize);
    let data;
    if (method === 0) data = raw;
    else if (method === 8) data = await inflateRaw(raw);
    else throw new FormatError(`zip entry ${name}: compression method ${method} is not supported (stored and deflate are)`);
    if (data.length !== usize) throw new FormatError(`zip entry ${name}: ${data.length} bytes, the directory says ${usize}`);
    if (!name.endsWith('/')) out.push({ name, data });
  }
  return out;
}

/** Reads a .npz: one value per .npy entry, named without the .npy suffix. */
export async function readNpz(bytes) {
  const entries = await readZip(bytes);
  return entries.filter((e) => e.name.endsWith('.npy')).map((e) => readNpy(e.data, e.name.replace(/\.npy$/, '')));
}
