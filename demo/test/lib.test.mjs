// The demo page's readers and comparison in Node, against files built here
// byte by byte (expected values written out by hand, never produced by the
// code under test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import { readNpy, readNpz, fortranToC } from '../lib/npy.mjs';
import { decodeModel, decodeTensor, modelStats } from '../lib/onnx.mjs';
import { detBoxes, detInput, detSize } from '../lib/detect.mjs';
import { existsSync } from 'node:fs';
import { layout } from '../lib/graphview.mjs';
import { compareValues, toNumbers, halfToFloat, imageLayout, topK, floatToHalf, classMapLayout, randomData } from '../lib/values.mjs';

const DEMO = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A .npy file of format version `v` with the given header dict and data bytes. */
function npy(descr, shape, data, { v = 1, fortran = false } = {}) {
  const dict = `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  const pre = v === 1 ? 10 : 12;
  let header = dict;
  while ((pre + header.length + 1) % 64) header += ' ';
  header += '\n';
  const h = Buffer.alloc(pre);
  h.write('\x93NUMPY', 0, 'latin1'); h[6] = v; h[7] = 0;
  if (v === 1) h.writeUInt16LE(Buffer.byteLength(header), 8); else h.writeUInt32LE(Buffer.byteLength(header), 8);
  return new Uint8Array(Buffer.concat([h, Buffer.from(header, v === 3 ? 'utf8' : 'latin1'), Buffer.from(data)]));
}
const le32f = (...xs) => Buffer.from(new Float32Array(xs).buffer);

test('npy v1 float32, C order', () => {
  const v = readNpy(npy('<f4', [2, 3], le32f(1, 2, 3, 4, 5, 6.5)), 'x');
  assert.equal(v.type, 'float32');
  assert.deepEqual(v.dims, [2, 3]);
  assert.deepEqual([...v.data], [1, 2, 3, 4, 5, 6.5]);
});

test('npy v2 and v3 headers', () => {
  assert.deepEqual([...readNpy(npy('<f4', [1], le32f(7), { v: 2 })).data], [7]);
  const v3 = readNpy(npy('<i2', [2], Buffer.from([1, 0, 0xff, 0xff]), { v: 3 }));
  assert.equal(v3.type, 'int16');
  assert.deepEqual([...v3.data], [1, -1]);
});

test('npy big-endian int32 and float64', () => {
  const i = readNpy(npy('>i4', [3], Buffer.from([0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe, 0, 0, 1, 0x2c])));
  assert.deepEqual([...i.data], [1, -2, 300]);
  const f = readNpy(npy('>f8', [1], Buffer.from([0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18])));
  assert.equal(f.data[0], 3.141592653589793);
});

test('npy Fortran order becomes C order', () => {
  // [[1,2,3],[4,5,6]] stored column by column.
  const v = readNpy(npy('<f4', [2, 3], le32f(1, 4, 2, 5, 3, 6), { fortran: true }));
  assert.deepEqual([...v.data], [1, 2, 3, 4, 5, 6]);
  // 3-D: shape (2,2,2), element (i,j,k) = 100i + 10j + k, Fortran index i + 2j + 4k.
  const f = new Int32Array(8);
  for (let i = 0; i < 2; i++) for (let j = 0; j < 2; j++) for (let k = 0; k < 2; k++) f[i + 2 * j + 4 * k] = 100 * i + 10 * j + k;
  assert.deepEqual([...fortranToC(f, [2, 2, 2])], [0, 1, 10, 11, 100, 101, 110, 111]);
});

test('npy float16, bool, int64, uint8', () => {
  const h = readNpy(npy('<f2', [3], Buffer.from([0x00, 0x3c, 0x00, 0xc0, 0x01, 0x00])));
  assert.equal(h.type, 'float16');
  assert.deepEqual([...toNumbers(h)], [1, -2, 2 ** -24]);
  const b = readNpy(npy('|b1', [3], Buffer.from([1, 0, 1])));
  assert.equal(b.type, 'bool');
  assert.deepEqual([...b.data], [1, 0, 1]);
  const l = readNpy(npy('<i8', [2], Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 1, 0, 0])));
  assert.deepEqual([...l.data], [-1n, 2n ** 40n]);
  assert.deepEqual([...readNpy(npy('|u1', [2, 1], Buffer.from([7, 250]))).data], [7, 250]);
});

test('npy errors: bad magic, unsupported dtype, short data', () => {
  assert.throws(() => readNpy(new Uint8Array(20)), /not a \.npy/);
  assert.throws(() => readNpy(npy('<U5', [1], Buffer.alloc(20))), /dtype <U5/);
  assert.throws(() => readNpy(npy('<f4', [4], le32f(1))), /needs 16/);
});

function zip(entries, method, zip64 = false) {
  const locals = []; const central = []; let off = 0;
  for (const [name, data] of entries) {
    const body = method === 8 ? deflateRawSync(data) : Buffer.from(data);
    const n = Buffer.from(name);
    const lh = Buffer.alloc(30);
    lh.writeUInt32LE(0x04034b50, 0); lh.writeUInt16LE(method, 8);
    lh.writeUInt32LE(body.length, 18); lh.writeUInt32LE(data.length, 22); lh.writeUInt16LE(n.length, 26);
    const extra = Buffer.alloc(zip64 ? 20 : 0);
    if (zip64) { extra.writeUInt16LE(1, 0); extra.writeUInt16LE(16, 2); extra.writeBigUInt64LE(BigInt(data.length), 4); extra.writeBigUInt64LE(BigInt(body.length), 12); }
    const ch = Buffer.alloc(46);
    ch.writeUInt32LE(0x02014b50, 0); ch.writeUInt16LE(method, 10);
    ch.writeUInt32LE(zip64 ? 0xffffffff : body.length, 20); ch.writeUInt32LE(zip64 ? 0xffffffff : data.length, 24);
    ch.writeUInt16LE(n.length, 28); ch.writeUInt16LE(extra.length, 30); ch.writeUInt32LE(off, 42);
    locals.push(lh, n, body); central.push(ch, n, extra);
    off += 30 + n.length + body.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(entries.length, 8); end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12); end.writeUInt32LE(off, 16);
  return new Uint8Array(Buffer.concat([...locals, cd, end]));
}

test('npz stored, deflated and with zip64 sizes', async () => {
  const a = npy('<f4', [2], le32f(1.5, -2));
  const b = npy('<i4', [1], Buffer.from([5, 0, 0, 0]));
  for (const [method, z64] of [[0, false], [8, false], [8, true]]) {
    const vals = await readNpz(zip([['a.npy', a], ['b.npy', b]], method, z64));
    assert.deepEqual(vals.map((v) => v.name), ['a', 'b'], `method ${method} zip64 ${z64}`);
    assert.deepEqual([...vals[0].data], [1.5, -2]);
    assert.deepEqual([...vals[1].data], [5]);
  }
  await assert.rejects(readNpz(new Uint8Array(64)), /not a zip/);
});

test('TensorProto .pb: the bundled input and a hand-built int64 tensor', () => {
  const v = decodeTensor(readFileSync(join(DEMO, 'model', 'test_data_set_0', 'input_0.pb')));
  assert.equal(v.name, 'image');
  assert.deepEqual(v.dims, [1, 3, 48, 64]);
  // Pixel (0,0) of the sample is sky: R = 110/255 (tools/gendemo SampleImage).
  assert.equal(v.data[0], Math.fround(110 / 255));
  // dims [2] (packed), data_type 7, int64_data [-1, 300] (packed; -1 is a 10-byte varint), name "t".
  const pb = new Uint8Array([0x0a, 0x01, 0x02, 0x10, 0x07, 0x3a, 0x0c, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0xac, 0x02, 0x42, 0x01, 0x74]);
  const t = decodeTensor(pb);
  assert.deepEqual([t.name, t.type, t.dims, [...t.data]], ['t', 'int64', [2], [-1n, 300n]]);
  assert.throws(() => decodeTensor(new Uint8Array([0x0a, 0x05, 0x01])), /past the end/);
});

test('ModelProto: the bundled model', () => {
  const m = decodeModel(readFileSync(join(DEMO, 'model', 'toon.onnx')));
  assert.equal(m.irVersion, 8);
  assert.deepEqual(m.opsets, { '': 13 });
  assert.equal(m.producer, 'gort tools/gendemo');
  assert.deepEqual(m.graph.nodes.map((n) => n.op), ['Conv', 'Conv', 'Conv', 'Mul', 'ReduceSum', 'Sqrt', 'Mul', 'Sub', 'Clip', 'Sub', 'Mul', 'Resize']);
  assert.deepEqual(m.graph.inputs[0].type.shape, [1, 3, 'height', 'width']);
  const resize = m.graph.nodes[11];
  assert.deepEqual(resize.inputs, ['outlined', '', 'scales']);
  assert.equal(resize.attrs[0].s, 'linear');
  assert.deepEqual(m.graph.nodes[1].attrs[0].ints, [1, 1, 1, 1]);
});

test('comparison: ONNX tolerance, NaN, infinities, shapes, exact integers', () => {
  const f = (xs, dims = [xs.length]) => ({ type: 'float32', dims, data: new Float32Array(xs) });
  // |Δ| ≤ 1e-7 + 1e-3·|want|: 1000 ± 0.9 passes, ± 1.1 fails.
  assert.equal(compareValues(f([1000.9]), f([1000])).ok, true);
  const bad = compareValues(f([1001.1, 0]), f([1000, 0]));
  assert.equal(bad.ok, false);
  assert.equal(bad.mismatches, 1);
  assert.equal(bad.worst, 0);
  assert.equal(compareValues(f([NaN]), f([NaN])).ok, true);
  assert.equal(compareValues(f([Infinity]), f([-Infinity])).ok, false);
  assert.match(compareValues(f([1, 2]), f([1, 2], [2, 1])).reason, /shape/);
  assert.equal(compareValues({ type: 'int64', dims: [1], data: new BigInt64Array([3n]) }, { type: 'int64', dims: [1], data: new BigInt64Array([4n]) }).ok, false);
  assert.match(compareValues({ type: 'int32', dims: [1], data: new Int32Array(1) }, f([0], [1])).reason, /dtype/);
});

test('half floats, image layouts, top-k', () => {
  assert.equal(halfToFloat(0x7c00), Infinity);
  assert.ok(Number.isNaN(halfToFloat(0x7e00)));
  assert.equal(halfToFloat(0x3555), 0.333251953125);
  assert.equal(floatToHalf(1), 0x3c00);
  assert.equal(floatToHalf(-2), 0xc000);
  assert.deepEqual(imageLayout([1, 3, 96, 128]), { c: 3, h: 96, w: 128, layout: 'CHW' });
  assert.deepEqual(imageLayout([1, 64, 48, 3]), { c: 3, h: 64, w: 48, layout: 'HWC' });
  assert.equal(imageLayout([1, 1000]), null);
  assert.deepEqual(classMapLayout([1, 21, 8, 12]), { c: 21, h: 8, w: 12 });
  assert.equal(classMapLayout([1, 3, 8, 12]), null);
  assert.equal(classMapLayout([1, 1000, 1, 1]), null);
  const k = topK(new Float64Array([0.1, 3, -1, 2]), 2);
  assert.deepEqual(k.map((x) => x.index), [1, 3]);
  // softmax of [0.1, 3, -1, 2]: e^3 / (e^0.1 + e^3 + e^-1 + e^2)
  assert.ok(Math.abs(k[0].prob - Math.exp(3) / (Math.exp(0.1) + Math.exp(3) + Math.exp(-1) + Math.exp(2))) < 1e-12);
});

test('graph layout: layers, constants next to their consumer, one edge per input slot', () => {
  const n = (name, op, inputs, outputs) => ({ name, op, inputs, outputs: outputs.map((o) => ({ name: o, type: '' })) });
  const L = layout({
    inputs: [{ name: 'x', type: '' }, { name: 'w', type: '' }],
    outputs: [{ name: 'y', type: '' }],
    initializers: new Set(['w']),
    nodes: [
      n('c', 'Constant', [], ['k']), // consumed only by the last node
      n('a', 'Relu', ['x'], ['a1']),
      n('b', 'Sigmoid', ['a1'], ['b1']),
      n('d', 'Add', ['b1', 'k'], ['y']),
    ],
  });
  const by = Object.fromEntries(L.verts.map((v) => [v.name, v]));
  assert.equal(by.w, undefined, 'initializers are not vertices');
  assert.deepEqual(['x', 'a', 'b', 'd', 'y'].map((k) => by[k].layer), [0, 1, 2, 3, 4]);
  assert.equal(by.c.layer, 2, 'the Constant sits one row above its consumer');
  const into = L.edges.filter((e) => L.verts[e.b].name === 'd');
  assert.deepEqual(into.map((e) => [e.value, e.slot]), [['b1', 0], ['k', 1]]);
  assert.notEqual(into[0].dx, into[1].dx);
});

test('random inputs: integers honour from/to (both included), floats stay in [from, to)', () => {
  const i64 = [...randomData('int64', 2000, 3, 5, 7)].map(Number);
  assert.deepEqual([...new Set(i64)].sort(), [5, 6, 7]);
  const neg = [...randomData('int32', 2000, 1, -2, 1)];
  assert.deepEqual([...new Set(neg)].sort((a, b) => a - b), [-2, -1, 0, 1]);
  assert.deepEqual([...new Set(randomData('uint8', 100, 1, 300, 400))], [255], 'clamped to the type');
  assert.deepEqual([...new Set(randomData('int8', 100, 1, 4.2, 4.7))], [4], 'no integer inside: the nearest');
  const f = randomData('float32', 1000, 1, -3, -1);
  assert.ok(f.every((x) => x >= -3 && x < -1));
});

test('model statistics: Constant-node weights and nodes inside subgraphs count', () => {
  const toon = modelStats(decodeModel(readFileSync(join(DEMO, 'model', 'toon.onnx'))));
  assert.deepEqual([toon.nodes, toon.nodesInSubgraphs, toon.initializers, toon.constants, toon.params], [12, 0, 9, 0, 39]);
  const ifModel = modelStats(decodeModel(readFileSync(join(DEMO, '..', 'testdata', 'onnx-node', 'node', 'test_if', 'model.onnx'))));
  assert.deepEqual([ifModel.nodes, ifModel.nodesInSubgraphs, ifModel.subgraphs], [3, 2, 2]);
  // Its branches are Constant nodes of 5 floats each.
  assert.deepEqual([ifModel.constants, ifModel.params, ifModel.bytes], [2, 10, 40]);
  const det = join(DEMO, 'real', 'ppocrv4_det.onnx');
  if (existsSync(det)) {
    const s = modelStats(decodeModel(readFileSync(det)));
    assert.deepEqual([s.nodes, s.initializers, s.constants, s.params, s.constantParams], [672, 0, 342, 1171841, 1171841]);
  }
});

test('text detection: sizes, normalisation, boxes of a probability map', () => {
  assert.deepEqual(detSize(512, 160), { w: 512, h: 160 });
  assert.deepEqual(detSize(1280, 500, 640), { w: 640, h: 256 });
  assert.deepEqual(detSize(10, 10), { w: 32, h: 32 });
  // One pixel: R=255, G=0, B=128 → channels B, G, R with ImageNet mean/std.
  const x = detInput(new Uint8Array([255, 0, 128, 255]), 1, 1);
  assert.ok(Math.abs(x[0] - (128 / 255 - 0.485) / 0.229) < 1e-6);
  assert.ok(Math.abs(x[1] - (0 - 0.456) / 0.224) < 1e-6);
  assert.ok(Math.abs(x[2] - (1 - 0.406) / 0.225) < 1e-6);
  // A 40×20 map: a bright 20×4 band (a text kernel), a weak blob (mean below 0.6), a 2-pixel speck.
  const w = 40; const h = 20; const p = new Float32Array(w * h);
  for (let y = 4; y < 8; y++) for (let xx = 5; xx < 25; xx++) p[y * w + xx] = 0.9;
  for (let y = 12; y < 18; y++) for (let xx = 5; xx < 15; xx++) p[y * w + xx] = 0.4;
  p[15 * w + 30] = 0.95; p[15 * w + 31] = 0.95;
  const boxes = detBoxes(p, w, h);
  assert.equal(boxes.length, 1, JSON.stringify(boxes));
  const b = boxes[0];
  assert.ok(Math.abs(b.score - 0.9) < 1e-6);
  // Unclip: d = area·1.5 / perimeter = 80·1.5 / 48 = 2.5 on each side.
  assert.deepEqual([b.x0, b.y0, b.x1, b.y1], [2, 1, 28, 11]);
  assert.equal(detBoxes(p, w, h, { boxThresh: 0.3 }).length, 2);
});
