// Rewrites gort.wasm's data section in place, for js/build.sh:
//   node tools/wasmdata.mjs dist/gort.wasm
// Go's wasm linker writes the initial memory image as one active data
// segment per run of non-zero bytes, splitting it wherever zeros run longer
// than a few bytes. Most of its ~100,000 segments are in the runtime's
// findfunctab, 1.8 MB in which only 4 bytes of every 20 are non-zero (a wasm
// "PC" is the function's index << 16, so every function spans 16 of its
// 4096-PC buckets): there the 8-byte segment headers, each with a different
// offset, cost 160 KB of gzip, where the zeros they skip would cost 17 KB.
// This merges segments whose gap is at most MAX_GAP zero bytes, so the data
// written to memory at instantiation is byte for byte the same (memory starts
// zeroed and the gaps were zeros in the linker's image): 165 KB less gzip
// -9, about 0.95 MB more raw.
//
// Only the layout Go emits is handled (active segments of memory 0 with an
// i32.const offset, which must not overlap); anything else leaves the file
// as it is, with a message, so that a future linker cannot be miscompiled.
import { readFileSync, writeFileSync } from 'node:fs';

const MAX_GAP = 1024;
const file = process.argv[2];
const src = readFileSync(file);

function uleb(buf, pos) {
  let v = 0, mul = 1, b;
  do { b = buf[pos++]; v += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80);
  return [v, pos];
}
function sleb32(buf, pos) {
  let v = 0, shift = 0, b;
  do { b = buf[pos++]; v |= (b & 0x7f) << shift; shift += 7; } while (b & 0x80);
  if (shift < 32 && (b & 0x40)) v |= -1 << shift;
  return [v, pos];
}
function encUleb(v) {
  const out = [];
  do { let b = v % 128; v = Math.floor(v / 128); if (v) b |= 0x80; out.push(b); } while (v);
  return Buffer.from(out);
}
function encSleb32(v) {
  const out = [];
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if ((v === 0 && !(b & 0x40)) || (v === -1 && (b & 0x40))) { out.push(b); return Buffer.from(out); }
    out.push(b | 0x80);
  }
}
function leave(why) {
  console.error(`tools/wasmdata.mjs: ${file} left as it is: ${why}`);
  process.exit(0);
}

if (src.readUInt32LE(0) !== 0x6d736100 || src.readUInt32LE(4) !== 1) leave('not a wasm module');
const parts = [src.subarray(0, 8)];
let pos = 8, done = false;
while (pos < src.length) {
  const start = pos, id = src[pos++];
  let size;
  [size, pos] = uleb(src, pos);
  const end = pos + size;
  if (id === 12) leave('it has a data count section');
  if (id !== 11) { parts.push(src.subarray(start, end)); pos = end; continue; }
  let n, p = pos;
  [n, p] = uleb(src, p);
  const segs = [];
  for (let i = 0; i < n; i++) {
    let flags, off, len;
    [flags, p] = uleb(src, p);
    if (flags !== 0 || src[p] !== 0x41) leave('a data segment that is not active with an i32.const offset');
    [off, p] = sleb32(src, p + 1);
    if (src[p++] !== 0x0b) leave('a data segment offset that is not a constant');
    [len, p] = uleb(src, p);
    segs.push({ off: off >>> 0, data: src.subarray(p, p + len) });
    p += len;
  }
  if (p !== end) leave('data section size mismatch');
  // Segments are merged in the linker's order (which keeps like data
  // together, about 2 KB less gzip than address order), a segment into the
  // one before it only where it is also the next in address order, so that
  // no gap that is filled with zeros holds another segment's bytes.
  const byAddr = segs.map((s, i) => i).sort((a, b) => segs[a].off - segs[b].off);
  const rank = new Array(n);
  byAddr.forEach((s, r) => { rank[s] = r; });
  for (let r = 1; r < n; r++) {
    const a = segs[byAddr[r - 1]], b = segs[byAddr[r]];
    if (b.off < a.off + a.data.length) leave('overlapping data segments');
  }
  const merged = [];
  let lastRank = -2;
  segs.forEach((s, i) => {
    const last = merged[merged.length - 1];
    if (last && rank[i] === lastRank + 1) {
      const lastEnd = last.off + last.size;
      if (s.off - lastEnd <= MAX_GAP) {
        if (s.off > lastEnd) last.chunks.push(Buffer.alloc(s.off - lastEnd));
        last.chunks.push(s.data);
        last.size = s.off + s.data.length - last.off;
        lastRank = rank[i];
        return;
      }
    }
    merged.push({ off: s.off, size: s.data.length, chunks: [s.data] });
    lastRank = rank[i];
  });
  const body = [encUleb(merged.length)];
  for (const m of merged) {
    if (m.off > 0x7fffffff) leave('a data segment offset past 2 GiB');
    body.push(Buffer.from([0x00, 0x41]), encSleb32(m.off), Buffer.from([0x0b]), encUleb(m.size));
    for (const c of m.chunks) body.push(c);
  }
  const bodyBuf = Buffer.concat(body);
  parts.push(Buffer.from([11]), encUleb(bodyBuf.length), bodyBuf);
  console.error(`tools/wasmdata.mjs: ${n} data segments merged into ${merged.length}`);
  done = true;
  pos = end;
}
if (!done) leave('no data section');
writeFileSync(file, Buffer.concat(parts));
