// js/tools/wasmdata.mjs, the build's data-segment merge: on hand-made
// modules, the memory a merged module starts with is byte for byte the
// original's, segments are merged only across small gaps of zeros, and a
// layout it does not handle (a passive segment) leaves the file alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const TOOL = join(dirname(fileURLToPath(import.meta.url)), '..', 'tools', 'wasmdata.mjs');

const uleb = (v) => { const o = []; do { let b = v & 0x7f; v >>>= 7; if (v) b |= 0x80; o.push(b); } while (v); return o; };
const sleb = (v) => { const o = []; for (;;) { const b = v & 0x7f; v >>= 7; if ((v === 0 && !(b & 0x40)) || (v === -1 && (b & 0x40))) { o.push(b); return o; } o.push(b | 0x80); } };
const section = (id, body) => [id, ...uleb(body.length), ...body];

// A module with one exported memory of two pages and the given data
// segments: {off, bytes} active ones, or {passive: bytes}.
function module(segs) {
  const data = [...uleb(segs.length)];
  for (const s of segs) {
    if (s.passive) data.push(1, ...uleb(s.passive.length), ...s.passive);
    else data.push(0, 0x41, ...sleb(s.off), 0x0b, ...uleb(s.bytes.length), ...s.bytes);
  }
  return Buffer.from([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(5, [1, 0, 2]), // memory: min 2 pages
    ...section(7, [1, 1, 0x6d, 2, 0]), // export "m"
    ...(segs.some((s) => s.passive) ? section(12, uleb(segs.length)) : []),
    ...section(11, data)]);
}

async function memoryOf(bytes) {
  const { instance } = await WebAssembly.instantiate(bytes);
  return Buffer.from(instance.exports.m.buffer);
}

// Runs the tool on a copy of wasm; returns the file after and its message.
async function merge(wasm) {
  const dir = await mkdtemp(join(tmpdir(), 'gort-wasmdata-'));
  try {
    const f = join(dir, 'm.wasm');
    await writeFile(f, wasm);
    const { stderr } = await run(process.execPath, [TOOL, f]);
    return { out: await readFile(f), msg: stderr };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// Segment count of a module built by module() or merged by the tool.
function segments(wasm) {
  let p = 8;
  while (p < wasm.length) {
    const id = wasm[p++];
    let size = 0, shift = 0, b;
    do { b = wasm[p++]; size |= (b & 0x7f) << shift; shift += 7; } while (b & 0x80);
    if (id === 11) return wasm[p]; // fewer than 128 here
    p += size;
  }
  return 0;
}

test('wasmdata: merged across small zero gaps, in the linker order, same memory', async () => {
  const bytes = (n, seed) => Array.from({ length: n }, (_, i) => ((i * 7 + seed) % 255) + 1);
  const segs = [
    { off: 100, bytes: bytes(10, 1) },
    { off: 110, bytes: bytes(5, 2) }, // no gap
    { off: 300, bytes: bytes(3, 3) }, // a gap of 185 zeros
    { off: 5000, bytes: bytes(8, 4) }, // a gap past 1 KB: a new segment
    { off: 2000, bytes: bytes(4, 5) }, // out of address order: not merged into the one before
    { off: 70000, bytes: bytes(20, 6) }, // the second page
  ];
  const wasm = module(segs);
  const { out, msg } = await merge(wasm);
  assert.match(msg, /6 data segments merged into 4/);
  assert.equal(segments(out), 4);
  assert.ok((await memoryOf(out)).equals(await memoryOf(wasm)));
});

test('wasmdata: a layout it does not handle is left as it is', async () => {
  const wasm = module([{ off: 8, bytes: [1, 2, 3] }, { passive: [4, 5] }]);
  const { out, msg } = await merge(wasm);
  assert.match(msg, /left as it is/);
  assert.ok(out.equals(wasm));
});
