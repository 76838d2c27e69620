// Threads (docs/threads.md): sessions with more than one thread load their
// model in the pool's workers too, and their convolutions are computed in
// parts. Every output must be bit-identical to a one-thread run's, whatever
// happens to the workers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setMaxListeners } from 'node:events';
import gort from '../dist/gort.mjs';
import { model, raw, f32, floats } from './onnx.mjs';

const { InferenceSession, Tensor, env, ErrorCode } = gort;
const HERE = dirname(fileURLToPath(import.meta.url));
const SQUEEZENET = join(HERE, '..', '..', 'testdata', 'bench', 'test_squeezenet', 'model.onnx');

// A Winograd 3×3 convolution large enough that splitting it pays, then a
// 1×1 one with a fused residual that does not (copying its input and
// output costs more than half its work saves), on an H ≠ W image.
function convModel() {
  const c = 48;
  const w = (name, shape, seed) => ({ name, type: 'float32', dims: shape, raw: raw(floats(shape.reduce((a, b) => a * b, 1), seed)) });
  return model({
    inputs: [f32('x', [1, c, 40, 56])],
    outputs: [f32('y', [1, c, 40, 56])],
    initializers: [w('w1', [c, c, 3, 3], 1), w('b1', [c], 2), w('w2', [c, c, 1, 1], 3)],
    nodes: [
      { op: 'Conv', inputs: ['x', 'w1', 'b1'], outputs: ['c1'], attrs: { pads: [1, 1, 1, 1] } },
      { op: 'Relu', inputs: ['c1'], outputs: ['r1'] },
      { op: 'Conv', inputs: ['r1', 'w2'], outputs: ['c2'] },
      { op: 'Add', inputs: ['c2', 'x'], outputs: ['y'] },
    ],
  });
}
const convFeeds = () => ({ x: new Tensor('float32', floats(48 * 40 * 56, 9), [1, 48, 40, 56]) });

function sameBits(a, b, what) {
  assert.equal(a.length, b.length, what);
  const ua = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const ub = new Uint32Array(b.buffer, b.byteOffset, b.length);
  for (let i = 0; i < ua.length; i++) {
    if (ua[i] !== ub[i]) assert.fail(`${what}: element ${i} is ${a[i]}, one thread gave ${b[i]}`);
  }
}

async function oneThread(src, feeds) {
  const s = await InferenceSession.create(src, { intraOpNumThreads: 1 });
  assert.equal(s.threads, 1);
  const out = await s.run(feeds);
  await s.release();
  return out;
}

test('intraOpNumThreads 2: the convolutions split, the outputs are bit-identical to one thread', async () => {
  const image = new Tensor('float32', floats(3 * 224 * 224, 5), [1, 3, 224, 224]);
  for (const [name, src, feeds] of [['conv model', convModel(), convFeeds()], ['SqueezeNet', SQUEEZENET, { data_0: image }]]) {
    const want = await oneThread(src, feeds);
    const s = await InferenceSession.create(src, { intraOpNumThreads: 2 });
    assert.equal(s.threads, 2, name);
    const parts = gort._threadPool().stats.parts;
    for (let run = 0; run < 3; run++) {
      const got = await s.run(feeds);
      for (const k of s.outputNames) sameBits(got[k].data, want[k].data, `${name} run ${run}, ${k}`);
    }
    if (name === 'conv model') {
      assert.ok(gort._threadPool().stats.parts >= parts + 3, 'the Winograd convolution was not split');
      // session.placements says how each convolution ran, and why.
      const notes = s.placements.filter((p) => p.op === 'Conv').map((p) => p.threads);
      assert.equal(notes.length, 2, JSON.stringify(s.placements));
      assert.match(notes[0], /^2 parts by output (pixels|channels)$/);
      assert.match(notes[1], /^whole: 2 parts would save about [\d.]+ ms of work and cost [\d.]+ ms in copies and messages$/);
    }
    await s.release();
  }
});

test('env.wasm.numThreads sets the default, intraOpNumThreads overrides it; bad counts are refused', async () => {
  const saved = env.wasm.numThreads;
  try {
    env.wasm.numThreads = 2;
    const a = await InferenceSession.create(convModel());
    assert.equal(a.threads, 2);
    const b = await InferenceSession.create(convModel(), { intraOpNumThreads: 1 });
    assert.equal(b.threads, 1);
    await a.release();
    await b.release();
  } finally {
    env.wasm.numThreads = saved;
  }
  await assert.rejects(InferenceSession.create(convModel(), { intraOpNumThreads: 1.5 }),
    (e) => e.code === ErrorCode.INVALID_ARGUMENT && /intraOpNumThreads must be an integer/.test(e.message));
  // A model with nothing to split gets no workers.
  const id = await InferenceSession.create(model({ inputs: [f32('x', [2])], outputs: [f32('y', [2])], nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }] }), { intraOpNumThreads: 2 });
  assert.equal(id.threads, 1);
});

test('sessions share one pool; 1000 concurrent runs over 4 sessions complete with the same bits', async () => {
  const want = (await oneThread(convModel(), convFeeds())).y.data;
  const sessions = [];
  for (let i = 0; i < 4; i++) sessions.push(await InferenceSession.create(convModel(), { intraOpNumThreads: 2 }));
  const pool = gort._threadPool();
  assert.equal(pool.workers.filter((w) => !w.dead).length, 1, 'two-thread sessions share one worker');
  const runs = [];
  for (let i = 0; i < 1000; i++) runs.push(sessions[i % 4].run(convFeeds()));
  const parts = pool.stats.parts;
  const outs = await Promise.all(runs);
  for (const [i, o] of outs.entries()) sameBits(o.y.data, want, `run ${i}`);
  assert.ok(pool.stats.parts >= parts + 1000, `only ${pool.stats.parts - parts} parts for 1000 runs`);
  for (const s of sessions) await s.release();
});

test('abort during a threaded run rejects with GORT_ABORTED; the next run succeeds', async () => {
  const want = (await oneThread(convModel(), convFeeds())).y.data;
  const s = await InferenceSession.create(convModel(), { intraOpNumThreads: 2 });
  const ac = new AbortController();
  setMaxListeners(30, ac.signal);
  const runs = [];
  for (let i = 0; i < 20; i++) runs.push(s.run(convFeeds(), { signal: ac.signal }).then(() => 'done', (e) => e.code));
  setTimeout(() => ac.abort(), 5);
  const codes = await Promise.all(runs);
  assert.ok(codes.includes(ErrorCode.ABORTED), `no run was aborted: ${codes}`);
  assert.ok(codes.every((c) => c === 'done' || c === ErrorCode.ABORTED), String(codes));
  sameBits((await s.run(convFeeds())).y.data, want, 'the run after the abort');
  await s.release();
});

test('a worker lost between or during runs: the same bits, on fewer threads', async () => {
  const want = (await oneThread(convModel(), convFeeds())).y.data;
  const s = await InferenceSession.create(convModel(), { intraOpNumThreads: 3 });
  assert.equal(s.threads, 3);
  const pool = gort._threadPool();
  sameBits((await s.run(convFeeds())).y.data, want, 'before');
  pool.workers.filter((w) => !w.dead)[0].kill(); // between runs
  sameBits((await s.run(convFeeds())).y.data, want, 'after a worker was lost');
  assert.equal(s.threads, 2);
  pool.stats.onPart = (w) => { // while the run waits for the part
    pool.stats.onPart = null;
    w.kill();
  };
  sameBits((await s.run(convFeeds())).y.data, want, 'with a worker lost during the run');
  assert.equal(pool.stats.onPart, null, 'no part was handed out');
  assert.equal(s.threads, 1);
  sameBits((await s.run(convFeeds())).y.data, want, 'on one thread');
  await s.release();
  // The pool starts new workers for the next session that asks.
  const t = await InferenceSession.create(convModel(), { intraOpNumThreads: 2 });
  assert.equal(t.threads, 2);
  sameBits((await t.run(convFeeds())).y.data, want, 'a new session');
  await t.release();
});
