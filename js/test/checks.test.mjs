// node:test tests of the model checks in the JS API (gort.check,
// inferShapes, printGraph, capabilities, compare, diverge, readNpy,
// writeNpy): each answers from gort.wasm with the documents of the Go
// packages (runtime/check, shapes, printer, compare, diverge, npy), so these
// tests hold the JS surface and its shapes; the Go tests hold the logic.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import gort, { Tensor } from '../dist/gort.mjs';
import { brokenModel, f32, model, raw } from './onnx.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const SQUEEZENET = join(HERE, '..', '..', 'testdata', 'bench', 'test_squeezenet', 'model.onnx');

const weights = (name, dims, values) => ({ name, type: 'float32', dims, raw: raw(new Float32Array(values)) });

// x → Conv(w) → Relu → y, with a 2×3×3×3 weight of 0.5.
const convRelu = model({
  inputs: [f32('x', [1, 3, 5, 6])],
  outputs: [f32('y', [1, 2, 3, 4])],
  initializers: [weights('w', [2, 3, 3, 3], new Array(54).fill(0.5))],
  nodes: [
    { op: 'Conv', name: 'conv', inputs: ['x', 'w'], outputs: ['c'] },
    { op: 'Relu', name: 'relu', inputs: ['c'], outputs: ['y'] },
  ],
});

test('check returns every finding, with codes and node names', async () => {
  const r = await gort.check(brokenModel());
  assert.equal(r.ok, false);
  assert.ok(r.errors >= 3, JSON.stringify(r.findings));
  const nodes = new Set(r.findings.map((f) => f.node).filter(Boolean));
  assert.ok(nodes.has('bad') && nodes.has('add'), JSON.stringify(r.findings));
  for (const f of r.findings) {
    assert.match(f.code, /^[A-Z0-9_]+$/);
    assert.ok(f.severity === 'error' || f.severity === 'warning');
    assert.equal(typeof f.message, 'string');
  }
  const good = await gort.check(SQUEEZENET);
  assert.equal(good.errors, 0, JSON.stringify(good.findings));
});

test('inferShapes and printGraph give every value a type', async () => {
  const s = await gort.inferShapes(convRelu);
  assert.equal(s.values.c.type, 'float32[1,2,3,4]');
  assert.deepEqual(s.values.y.shape, [1, 2, 3, 4]);
  const text = await gort.printGraph(convRelu);
  assert.match(text, /Conv/);
  assert.match(text, /float32\[1,2,3,4\]/);
  const doc = await gort.printGraph(convRelu, { json: true });
  assert.deepEqual(doc.graph.nodes.map((n) => n.op), ['Conv', 'Relu']);
  assert.equal(doc.graph.nodes[0].outputs[0].type, 'float32[1,2,3,4]');
});

test('capabilities reports the optimiser and placements per level', async () => {
  const all = await gort.capabilities(convRelu, { graphOptimizationLevel: 'all' });
  const off = await gort.capabilities(convRelu, { graphOptimizationLevel: 'disabled' });
  assert.equal(all.nodes, 2);
  assert.equal(all.supported, 2);
  assert.deepEqual(off.fused, []);
  assert.equal(off.placements.length, 2);
  assert.ok(off.placements.every((p) => p.device === 'wasm'));
  assert.ok(all.placements.length <= off.placements.length);
  const unsupported = await gort.capabilities(model({
    inputs: [f32('x', [1])], outputs: [f32('y', [1])],
    nodes: [{ op: 'NoSuchOp', name: 'n', inputs: ['x'], outputs: ['y'] }],
  }));
  assert.equal(unsupported.unsupported.length, 1);
  assert.equal(unsupported.unsupported[0].node, 'n');
});

test('compare: ONNX defaults, per-output stats, failure on a planted error', async () => {
  const a = new Tensor('float32', new Float32Array([1, 2, 3, 4]), [2, 2]);
  const same = await gort.compare(a, new Tensor('float32', new Float32Array([1, 2, 3, 4]), [2, 2]));
  assert.equal(same.pass, true);
  assert.equal(same.maxAbs, 0);
  const off = await gort.compare({ y: a }, { y: new Tensor('float32', new Float32Array([1, 2, 3, 4.5]), [2, 2]) });
  assert.equal(off.pass, false);
  assert.equal(off.outputs.y.mismatches, 1);
  assert.deepEqual(off.outputs.y.worstIndex, [1, 1]);
  const loose = await gort.compare(a, new Tensor('float32', new Float32Array([1, 2, 3, 4.5]), [2, 2]), { atol: 1 });
  assert.equal(loose.pass, true);
});

test('readNpy/writeNpy round trip', async () => {
  const t = new Tensor('int64', new BigInt64Array([1n, -2n, 3n]), [3]);
  const bytes = await gort.writeNpy(t);
  assert.equal(String.fromCharCode(...bytes.slice(1, 6)), 'NUMPY');
  const back = await gort.readNpy(bytes);
  assert.deepEqual(back.dims, [3]);
  assert.deepEqual(Array.from(back.data), [1n, -2n, 3n]);
  const z = await gort.readNpy(await gort.writeNpy({ a: t, b: new Tensor('float32', new Float32Array([0.5]), [1]) }));
  assert.deepEqual(Object.keys(z).sort(), ['a', 'b']);
  assert.equal(z.b.data[0], 0.5);
});

test('diverge against the unoptimised model agrees on a correct model', async () => {
  const x = new Tensor('float32', Float32Array.from({ length: 90 }, (_, i) => Math.sin(i)), [1, 3, 5, 6]);
  const r = await gort.diverge(convRelu, { x }, { unoptimized: true });
  assert.equal(r.diverged, false, JSON.stringify(r));
});
