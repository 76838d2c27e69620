// node:test tests of gort's public JS API in Node: every session option,
// every dtype round trip, every error code, queueing, several sessions,
// release and memory, AbortSignal, the CommonJS entry and the CLI.
//
// Tests that need an operator start with needs(op...), which fails (never
// skips) when the build lacks it: a missing op is a regression. Tests that
// need a graph of known
// cost use dist/gort-test.wasm (built with -tags gorttest, test-only ops
// gort.test.Spin / gort.test.Panic), loaded through env.wasmPaths into a
// second, independent instance of the module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import gort, { InferenceSession, Tensor, env, ErrorCode } from '../dist/gort.mjs';
import { f32, model, passthrough, raw } from './onnx.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const DIST = join(HERE, '..', 'dist');
const ROOT = join(HERE, '..', '..');
const SQUEEZENET = join(ROOT, 'testdata', 'bench', 'test_squeezenet');

// A second instance of the package running gort-test.wasm.
const gt = (await import('../dist/gort.mjs?instance=test')).default;
gt.env.wasmPaths = pathToFileURL(join(DIST, 'gort-test.wasm')).href;

const ops = new Set((await gort._ops()).map((s) => s.replace(/-\[.*$/, '')));
// Asserts that the build registers every named op: a test of something else
// must not pass silently because an op it relies on went missing.
function needs(...names) {
  const missing = names.filter((n) => !ops.has(n));
  assert.deepEqual(missing, [], `ops missing from gort.wasm: ${missing.join(', ')}`);
}

async function rejectsWith(p, code, re) {
  await assert.rejects(p, (e) => {
    assert.ok(e instanceof Error, `not an Error: ${e}`);
    assert.equal(e.code, code, `code ${e.code} (${e.message}), want ${code}`);
    if (re) assert.match(e.message, re);
    return true;
  });
}
function throwsWith(f, code, re) {
  assert.throws(f, (e) => {
    assert.equal(e.code, code, `code ${e.code} (${e.message}), want ${code}`);
    if (re) assert.match(e.message, re);
    return true;
  });
}

const identity = (dtype = 'float32', shape = [2, 3]) => model({
  inputs: [{ name: 'x', type: { tensor: dtype, shape } }],
  outputs: [{ name: 'y', type: { tensor: dtype, shape } }],
  nodes: [{ op: 'Identity', inputs: ['x'], outputs: ['y'] }],
});

// ------------------------------------------------------------------ Tensor

test('Tensor constructors, type inference and validation', () => {
  const a = new Tensor('float32', new Float32Array(6), [2, 3]);
  assert.equal(a.type, 'float32');
  assert.deepEqual(a.dims, [2, 3]);
  assert.equal(a.size, 6);
  assert.equal(a.location, 'cpu');
  assert.deepEqual(new Tensor(new Int32Array([1, 2, 3])).dims, [3]);
  assert.equal(new Tensor(new BigInt64Array(2), [2, 1]).type, 'int64');
  assert.equal(new Tensor(['a', 'b']).type, 'string');
  assert.ok(new Tensor('int64', [1, 2, 3], [3]).data instanceof BigInt64Array, 'plain arrays are converted');
  assert.deepEqual([...new Tensor('bool', [true, false], [2]).data], [1, 0]);
  assert.deepEqual(new Tensor('float32', new Float32Array(6), [6]).reshape([3, 2]).dims, [3, 2]);
  assert.equal(new Tensor('complex64', new Float32Array(4), [2]).size, 2);
  throwsWith(() => new Tensor('float32', new Float32Array(5), [2, 3]), ErrorCode.INVALID_ARGUMENT, /needs 6 values, data has 5/);
  throwsWith(() => new Tensor('float32', new Float64Array(6), [2, 3]), ErrorCode.INVALID_ARGUMENT, /Float32Array/);
  throwsWith(() => new Tensor('float33', new Float32Array(1), [1]), ErrorCode.INVALID_ARGUMENT, /unknown tensor type/);
  throwsWith(() => new Tensor('float32', new Float32Array(1), [-1]), ErrorCode.INVALID_ARGUMENT, /non-negative/);
  if (typeof globalThis.Float16Array === 'function') {
    assert.equal(new Tensor('float16', new globalThis.Float16Array(2), [2]).type, 'float16');
  }
});

test('Tensor dims can be assigned, as onnxruntime-common\'s can (transformers.js relabels tensors in place), keeping the element count', async () => {
  const t = new Tensor('float32', new Float32Array([1, 2, 3, 4, 5, 6]), [1, 2, 3]);
  t.dims = [2, 3]; // transformers.js's squeeze_
  assert.deepEqual(t.dims, [2, 3]);
  assert.throws(() => { t.dims.push(1); }, TypeError, 'the dims array itself stays frozen');
  t.dims = [6];
  assert.deepEqual(t.dims, [6]);
  throwsWith(() => { t.dims = [4]; }, ErrorCode.INVALID_ARGUMENT, /hold 4 elements, the tensor has 6/);
  throwsWith(() => { t.dims = [2, -3]; }, ErrorCode.INVALID_ARGUMENT, /non-negative/);
  assert.deepEqual(t.dims, [6], 'a refused assignment leaves the dims as they were');
  t.dims = [2, 3];
  const s = await InferenceSession.create(identity());
  const { y } = await s.run({ x: t });
  assert.deepEqual(y.dims, [2, 3]);
  assert.deepEqual([...y.data], [1, 2, 3, 4, 5, 6]);
  await s.release();
});

// ------------------------------------------------------------------ dtypes

const ROUND_TRIP = {
  float32: new Float32Array([1.5, -0, Infinity, NaN, 3.4e38, 1e-45]),
  float64: new Float64Array([1.5, -0, -Infinity, NaN, 1.7e308, 5e-324]),
  int8: new Int8Array([-128, -1, 0, 1, 127, 5]),
  uint8: new Uint8Array([0, 1, 127, 128, 255, 6]),
  int16: new Int16Array([-32768, -1, 0, 1, 32767, 7]),
  uint16: new Uint16Array([0, 1, 32767, 32768, 65535, 8]),
  int32: new Int32Array([-(2 ** 31), -1, 0, 1, 2 ** 31 - 1, 9]),
  uint32: new Uint32Array([0, 1, 2 ** 31, 2 ** 32 - 1, 10, 11]),
  int64: new BigInt64Array([-(2n ** 63n), -1n, 0n, 1n, 2n ** 63n - 1n, 2n ** 53n + 1n]),
  uint64: new BigUint64Array([0n, 1n, 2n ** 63n, 2n ** 64n - 1n, 2n ** 53n + 1n, 12n]),
  bool: new Uint8Array([0, 1, 1, 0, 1, 0]),
  float16: new Uint16Array([0x3c00, 0x8000, 0x7c00, 0xfc00, 0x7bff, 0x0001]), // 1, -0, inf, -inf, max, min subnormal
  bfloat16: new Uint16Array([0x3f80, 0x8000, 0x7f80, 0xff80, 0x7f7f, 0x0001]),
  string: ['', 'a', 'héllo', '日本', 'x'.repeat(1000), '\u0000z'],
  int4: new Int8Array([-8, -1, 0, 1, 7, 3]),
  uint4: new Uint8Array([0, 1, 7, 8, 15, 3]),
  int2: new Int8Array([-2, -1, 0, 1, 0, 1]),
  uint2: new Uint8Array([0, 1, 2, 3, 0, 1]),
  float8e4m3fn: new Uint8Array([0x00, 0x38, 0x80, 0x7e, 0xfe, 0x01]),
  float8e4m3fnuz: new Uint8Array([0x00, 0x40, 0x7f, 0xff, 0x01, 0x02]),
  float8e5m2: new Uint8Array([0x00, 0x3c, 0x80, 0x7b, 0x7c, 0x01]),
  float8e5m2fnuz: new Uint8Array([0x00, 0x40, 0x7f, 0xff, 0x01, 0x02]),
  float4e2m1: new Uint8Array([0, 1, 7, 8, 15, 2]),
  complex64: new Float32Array([1, 2, 3, 4, 5, 6, -1, -2, 0, 0, NaN, Infinity]),
  complex128: new Float64Array([1, 2, 3, 4, 5, 6, -1, -2, 0, 0, NaN, -Infinity]),
};

test('every dtype round-trips bit-exactly through a session (bulk byte copies)', async () => {
  const names = Object.keys(ROUND_TRIP);
  const vars = names.map((t) => ({ name: `v_${t}`, type: { tensor: t, shape: [2, 3] } }));
  const s = await InferenceSession.create(passthrough(vars));
  assert.deepEqual([...s.inputNames], vars.map((v) => v.name));
  const feeds = {};
  for (const t of names) feeds[`v_${t}`] = new Tensor(t, ROUND_TRIP[t], [2, 3]);
  const out = await s.run(feeds);
  for (const t of names) {
    const got = out[`v_${t}`];
    assert.equal(got.type, t);
    assert.deepEqual(got.dims, [2, 3]);
    const want = ROUND_TRIP[t];
    assert.equal(got.data.constructor, want.constructor, t);
    if (t === 'string') assert.deepEqual(got.data, want);
    else assert.deepEqual(raw(got.data), raw(want), `${t} bytes differ`);
  }
  // Subarray views: only the viewed bytes are read.
  const big = new Float32Array([9, 9, 1, 2, 3, 4, 5, 6, 9]);
  const r = await s.run({ ...feeds, v_float32: new Tensor('float32', big.subarray(2, 8), [2, 3]) });
  assert.deepEqual([...r.v_float32.data], [1, 2, 3, 4, 5, 6]);
  // Empty tensors.
  const e = await InferenceSession.create(passthrough([{ name: 'z', type: { tensor: 'float32', shape: ['N', 3] } }]));
  const ez = await e.run({ z: new Tensor('float32', new Float32Array(0), [0, 3]) });
  assert.deepEqual(ez.z.dims, [0, 3]);
  assert.equal(ez.z.data.length, 0);
  if (typeof globalThis.Float16Array === 'function') {
    const h = await s.run({ ...feeds, v_float16: new Tensor('float16', new globalThis.Float16Array([1, 2, 3, 4, 5, 6]), [2, 3]) });
    assert.equal(h.v_float16.data[0], 0x3c00);
  }
  await s.release();
  await e.release();
});

test('short runs take the quick path (src/backends/quick.js) with the results of run(): every dtype, rank 9, string outputs, optional feeds', async () => {
  const names = Object.keys(ROUND_TRIP);
  const vars = names.map((t) => ({ name: `v_${t}`, type: { tensor: t, shape: [2, 3] } }));
  const s = await InferenceSession.create(passthrough(vars));
  const feeds = {};
  for (const t of names) feeds[`v_${t}`] = new Tensor(t, ROUND_TRIP[t], [2, 3]);
  for (let i = 0; i < 3; i++) {
    const out = await s.run(feeds);
    for (const t of names) {
      const got = out[`v_${t}`];
      assert.equal(got.type, t);
      assert.deepEqual(got.dims, [2, 3]);
      if (t === 'string') assert.deepEqual(got.data, ROUND_TRIP[t]);
      else assert.deepEqual(raw(got.data), raw(ROUND_TRIP[t]), `run ${i}: ${t} bytes differ`);
    }
  }
  // A string feed is not carried by the quick path: every run took run().
  assert.equal(s._info.quickRuns || 0, 0);
  await s.release();
  const n = await InferenceSession.create(passthrough(vars.filter((v) => v.name !== 'v_string')));
  const numeric = Object.fromEntries(Object.entries(feeds).filter(([name]) => name !== 'v_string'));
  const fetches = Object.keys(numeric);
  // A run is quick when the session's last run took under half the yield
  // interval (5 ms by default): after the
  // first runs (V8 still compiling), most are.
  const quick = (sess) => sess._info.quickRuns || 0;
  for (let i = 0; quick(n) < 3 && i < 100; i++) {
    const f = fetches.slice(i % 3);
    const out = await n.run(numeric, f);
    assert.deepEqual(Object.keys(out).sort(), f.slice().sort());
    for (const name of f) assert.deepEqual(raw(out[name].data), raw(numeric[name].data), `run ${i}: ${name}`);
  }
  assert.equal(quick(n), 3, 'no run took the quick path');
  await n.release();

  // Outputs of rank 9 overflow the header buffer sized for rank 4; a string
  // output made from a numeric feed comes back through the extra values.
  const r = await InferenceSession.create(model({
    inputs: [{ name: 'x', type: { tensor: 'float32', shape: [1, 2, 1, 1, 1, 1, 1, 1, 3] } }],
    outputs: [{ name: 'y', type: { tensor: 'float32', shape: [1, 2, 1, 1, 1, 1, 1, 1, 3] } }, { name: 's', type: { tensor: 'string', shape: [1, 2, 1, 1, 1, 1, 1, 1, 3] } }],
    nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }, { op: 'Cast', inputs: ['x'], outputs: ['s'], attrs: { to: 8 } }],
  }));
  const dims = [1, 2, 1, 1, 1, 1, 1, 1, 3];
  for (let i = 0; quick(r) < 3 && i < 100; i++) {
    const x = new Float32Array([-1, 2, -3, 4, i, 6]);
    const out = await r.run({ x: new Tensor('float32', x, dims) });
    assert.deepEqual(out.y.dims, dims);
    assert.deepEqual([...out.y.data], [0, 2, 0, 4, i, 6]);
    assert.deepEqual(out.s.data, ['-1.0', '2.0', '-3.0', '4.0', `${i}.0`, '6.0']);
  }
  assert.equal(quick(r), 3, 'no run took the quick path');
  // A yield interval of 0 (a turn after every node) keeps every run on run().
  const old = env.wasm.yieldIntervalMs;
  env.wasm.yieldIntervalMs = 0;
  try {
    for (let i = 0; i < 3; i++) await r.run({ x: new Tensor('float32', new Float32Array(6), dims) });
    assert.equal(quick(r), 3);
  } finally {
    env.wasm.yieldIntervalMs = old;
  }
  await r.release();

  // An optional input is wrapped by run(): its runs never go quick, and stay right.
  needs('OptionalHasElement');
  const o = await InferenceSession.create(model({
    opset: 18,
    inputs: [{ name: 'x', type: { optional: { tensor: 'float32', shape: [2] } } }],
    outputs: [{ name: 'h', type: { tensor: 'bool', shape: [] } }],
    nodes: [{ op: 'OptionalHasElement', inputs: ['x'], outputs: ['h'] }],
  }));
  for (let i = 0; i < 10; i++) assert.equal((await o.run({ x: new Tensor('float32', new Float32Array(2), [2]) })).h.data[0], 1);
  assert.equal(quick(o), 0);
  await o.release();
});

test('a session copies each run\'s feeds into the previous run\'s memory without mixing runs up', async () => {
  // wasm/feedbufs.go keeps a session's host feed tensors between runs: Relu
  // may run in place over the kept x, h converts from float16, b normalises
  // bools, and the output p is the feed itself (earlier results must not change
  // when its memory is refilled).
  const s = await InferenceSession.create(model({
    inputs: [{ name: 'x', type: { tensor: 'float32', shape: ['N', 3] } }, { name: 'h', type: { tensor: 'float16', shape: [2] } },
      { name: 'b', type: { tensor: 'bool', shape: [2] } }, { name: 'p', type: { tensor: 'int32', shape: [2] } }],
    outputs: [{ name: 'y', type: { tensor: 'float32', shape: ['N', 3] } }, { name: 'hf', type: { tensor: 'float32', shape: [2] } },
      { name: 'nb', type: { tensor: 'bool', shape: [2] } }, { name: 'p', type: { tensor: 'int32', shape: [2] } }],
    nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }, { op: 'Cast', inputs: ['h'], outputs: ['hf'], attrs: { to: 1 } },
      { op: 'Not', inputs: ['b'], outputs: ['nb'] }],
  }));
  const runs = [
    [[-1, 2, -3, 4, -5, 6], 2, [0x3c00, 0xc000], [1, 0], [1, 2]],
    [[7, -8, 9, -10, 11, -12], 2, [0x4200, 0x0000], [0, 1], [3, 4]],
    [[1, -1, 2], 1, [0xbc00, 0x3800], [1, 1], [5, 6]],
    [[-6, 5, -4, 3, -2, 1], 2, [0x0001, 0x7bff], [0, 0], [7, 8]],
    [[-6, 5, -4, 3, -2, 1], 2, [0x3c00, 0x3c00], [1, 0], [9, 10]],
  ];
  const f16 = { 0x3c00: 1, 0xc000: -2, 0x4200: 3, 0x0000: 0, 0xbc00: -1, 0x3800: 0.5, 0x0001: 2 ** -24, 0x7bff: 65504 };
  const kept = [];
  for (const [x, n, h, b, p] of runs) {
    const out = await s.run({ x: new Tensor('float32', new Float32Array(x), [n, 3]), h: new Tensor('float16', new Uint16Array(h), [2]),
      b: new Tensor('bool', new Uint8Array(b), [2]), p: new Tensor('int32', new Int32Array(p), [2]) });
    assert.deepEqual([...out.y.data], x.map((v) => Math.max(0, v)));
    assert.deepEqual(out.y.dims, [n, 3]);
    assert.deepEqual([...out.hf.data], h.map((v) => f16[v]));
    assert.deepEqual([...out.nb.data].map(Number), b.map((v) => 1 - v));
    assert.deepEqual([...out.p.data], p);
    kept.push([out, p]);
  }
  for (const [out, p] of kept) assert.deepEqual([...out.p.data], p, 'an earlier result changed');
  await s.release();
});

test('sequences (arrays of Tensors) and optionals (null) as feeds and results', async () => {
  const s = await InferenceSession.create(passthrough([
    { name: 'seq', type: { sequence: { tensor: 'int32', shape: ['N'] } } },
    { name: 'opt', type: { optional: { tensor: 'float32', shape: [1] } } },
  ]));
  assert.equal(s.inputMetadata[0].kind, 'sequence');
  assert.equal(s.inputMetadata[0].isTensor, false);
  assert.equal(s.inputMetadata[1].kind, 'optional');
  const a = new Tensor('int32', new Int32Array([1, 2]), [2]);
  const b = new Tensor('int32', new Int32Array([3]), [1]);
  let r = await s.run({ seq: [a, b], opt: null });
  assert.equal(r.seq.length, 2);
  assert.deepEqual([...r.seq[1].data], [3]);
  assert.equal(r.opt, null);
  r = await s.run({ seq: [], opt: new Tensor('float32', new Float32Array([7]), [1]) });
  assert.deepEqual(r.seq, []);
  assert.equal(r.opt.data[0], 7);
  await rejectsWith(s.run({ seq: null, opt: null }), ErrorCode.INVALID_FEED, /not an optional/);
  await s.release();
});

// ------------------------------------------------------------------ sources and options

test('model sources: Uint8Array, ArrayBuffer, (buffer, offset, length), path, file: URL, http URL with onProgress', async (t) => {
  const bytes = passthrough([f32('x', [1])]);
  const dir = await mkdtemp(join(tmpdir(), 'gort-js-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'm.onnx');
  await writeFile(path, bytes);
  const padded = new Uint8Array(bytes.length + 10);
  padded.set(bytes, 7);
  const server = createServer((req, res) => {
    if (req.url === '/m.onnx') {
      res.writeHead(200, { 'content-length': bytes.length, 'content-type': 'application/octet-stream' });
      res.end(Buffer.from(bytes));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const base = `http://127.0.0.1:${server.address().port}`;
  const progress = [];
  const sources = [
    bytes, bytes.buffer.slice(0), path, pathToFileURL(path).href, pathToFileURL(path),
    `${base}/m.onnx`,
  ];
  for (const src of sources) {
    const s = await InferenceSession.create(src, { onProgress: (l, tot) => progress.push([l, tot]) });
    assert.deepEqual([...s.inputNames], ['x'], String(src));
    await s.release();
  }
  const s = await InferenceSession.create(padded.buffer, 7, bytes.length, {});
  assert.deepEqual([...s.outputNames], ['x']);
  await s.release();
  assert.deepEqual(progress.at(-1), [bytes.length, bytes.length]);
  await rejectsWith(InferenceSession.create(`${base}/missing.onnx`), ErrorCode.INVALID_ARGUMENT, /HTTP 404/);
  await rejectsWith(InferenceSession.create(join(dir, 'missing.onnx')), ErrorCode.INVALID_ARGUMENT, /cannot read the model/);
  await rejectsWith(InferenceSession.create(42), ErrorCode.INVALID_ARGUMENT);
});

test('executionProviders: tried in order; when none can serve, the error lists each one\'s reason', async () => {
  const m = passthrough([f32('x', [1])]);
  for (const eps of [['wasm'], ['cpu'], [{ name: 'wasm' }], ['wasm', 'cpu'], ['webgpu', 'wasm'], [{ name: 'webnn' }, 'foo', 'cpu'], undefined]) {
    await (await InferenceSession.create(m, { executionProviders: eps })).release();
  }
  await rejectsWith(InferenceSession.create(m, { executionProviders: ['webgl', 'foo'] }), ErrorCode.INVALID_ARGUMENT,
    /no execution provider can serve this session: webgl: gort has no webgl backend yet; foo: unknown execution provider\. gort provides: wasm, cpu, webgpu/);
  await rejectsWith(InferenceSession.create(m, { executionProviders: [] }), ErrorCode.INVALID_ARGUMENT, /the list is empty/);
  // A backend that cannot start is a reason too, with its own code.
  const bad = (await import('../dist/gort.mjs?instance=eps')).default;
  bad.env.wasmPaths = '/nonexistent/eps/';
  await rejectsWith(bad.InferenceSession.create(m, { executionProviders: ['webgl', 'wasm'] }), ErrorCode.WASM_FETCH,
    /webgl: gort has no webgl backend yet; wasm: GORT_WASM_FETCH: cannot load gort\.wasm; tried \/nonexistent\/eps\/gort\.wasm/);
  await rejectsWith(InferenceSession.create(m, { executionProviders: 'wasm' }), ErrorCode.INVALID_ARGUMENT);
});

test('executionProviders webgpu without navigator.gpu: the session runs on the CPU and says so', async () => {
  needs('Relu');
  const m = model({
    inputs: [f32('x', [64, 128])], outputs: [f32('y', [64, 128])],
    nodes: [{ op: 'Relu', name: 'relu', inputs: ['x'], outputs: ['y'] }],
  });
  assert.equal(globalThis.navigator && globalThis.navigator.gpu, undefined, 'this test needs a host without WebGPU');
  const s = await InferenceSession.create(m, { executionProviders: ['webgpu', 'wasm'], logSeverityLevel: 3 });
  assert.deepEqual([...s.executionProviders], ['wasm']);
  assert.deepEqual(s.placements.map((p) => [p.node, p.op, p.device]), [['relu', 'Relu', 'wasm']]);
  const out = await s.run({ x: new Tensor('float32', new Float32Array(64 * 128).fill(-1), [64, 128]) });
  assert.equal(out.y.data[0], 0);
  await s.release();
  const plain = await InferenceSession.create(m);
  assert.deepEqual([...plain.executionProviders], ['wasm']);
  await plain.release();
});

test('GPU tensors without navigator.gpu: argument errors, CPU outputs, no device', async () => {
  const m = passthrough([f32('x', [2])]);
  // preferredOutputLocation is checked at create; with no GPU step, outputs come back on the CPU.
  await rejectsWith(InferenceSession.create(m, { preferredOutputLocation: 'texture' }), ErrorCode.INVALID_ARGUMENT, /preferredOutputLocation/);
  await rejectsWith(InferenceSession.create(m, { preferredOutputLocation: { nope: 'gpu-buffer' } }), ErrorCode.INVALID_ARGUMENT, /not an output/);
  const s = await InferenceSession.create(m, { executionProviders: ['webgpu', 'wasm'], preferredOutputLocation: 'gpu-buffer', logSeverityLevel: 3 });
  const out = await s.run({ x: new Tensor('float32', new Float32Array([1, 2]), [2]) });
  assert.equal(out.x.location, 'cpu');
  assert.deepEqual([...(await out.x.getData())], [1, 2]);
  // fromGpuBuffer checks its arguments before any device is involved.
  const fake = { size: 8, usage: 0x80 | 0x4, destroy() {} };
  assert.throws(() => Tensor.fromGpuBuffer({}, { dims: [2] }), (e) => e.code === ErrorCode.INVALID_ARGUMENT);
  assert.throws(() => Tensor.fromGpuBuffer(fake, { dataType: 'int32', dims: [2] }), (e) => e.code === ErrorCode.INVALID_ARGUMENT);
  assert.throws(() => Tensor.fromGpuBuffer(fake, { dims: [3] }), (e) => e.code === ErrorCode.INVALID_ARGUMENT);
  assert.throws(() => Tensor.fromGpuBuffer({ size: 8, usage: 0x1, destroy() {} }, { dims: [2] }), (e) => e.code === ErrorCode.INVALID_ARGUMENT);
  const g = Tensor.fromGpuBuffer(fake, { dims: [2], download: async () => new Float32Array([3, 4]) });
  assert.equal(g.location, 'gpu-buffer');
  assert.equal(g.gpuBuffer, fake);
  assert.throws(() => g.data, (e) => e.code === ErrorCode.INVALID_ARGUMENT);
  assert.deepEqual([...(await g.getData())], [3, 4]);
  // Fed to a run here, there is no device to read it on.
  await rejectsWith(s.run({ x: g }), ErrorCode.INVALID_FEED, /no WebGPU device/);
  g.dispose();
  assert.equal(g.location, 'none');
  await rejectsWith(s.run({ x: g }), ErrorCode.INVALID_FEED, /disposed/);
  await rejectsWith(env.webgpu.device, ErrorCode.INVALID_ARGUMENT, /no WebGPU device/);
  assert.throws(() => { env.webgpu.device = {}; }, (e) => e.code === ErrorCode.INVALID_ARGUMENT);
  await s.release();
});

test('freeDimensionOverrides fixes symbolic dims in metadata and feed checks', async () => {
  const m = passthrough([f32('x', ['batch', 3, 'len'])]);
  const plain = await InferenceSession.create(m);
  assert.deepEqual(plain.inputMetadata[0].shape, ['batch', 3, 'len']);
  const s = await InferenceSession.create(m, { freeDimensionOverrides: { batch: 2 } });
  assert.deepEqual(s.inputMetadata[0].shape, [2, 3, 'len']);
  assert.deepEqual(s.outputMetadata[0].shape, [2, 3, 'len']);
  await s.run({ x: new Tensor('float32', new Float32Array(2 * 3 * 5), [2, 3, 5]) });
  await rejectsWith(s.run({ x: new Tensor('float32', new Float32Array(3 * 3), [1, 3, 3]) }), ErrorCode.INVALID_FEED, /dim 0 must be 2/);
  await rejectsWith(InferenceSession.create(m, { freeDimensionOverrides: { batch: -1 } }), ErrorCode.INVALID_ARGUMENT);
  await rejectsWith(InferenceSession.create(m, { freeDimensionOverrides: [1] }), ErrorCode.INVALID_ARGUMENT);
  await s.release();
  await plain.release();
});

test('externalData: bytes or a path next to the model; missing data is GORT_EXTERNAL_DATA', async (t) => {
  needs('Identity');
  const w = new Float32Array([1, 2, 3, 4]);
  const m = model({
    inputs: [],
    outputs: [f32('y', [4])],
    initializers: [{ name: 'w', type: 'float32', dims: [4], external: { location: 'weights.bin', offset: 0, length: 16 } }],
    nodes: [{ op: 'Identity', inputs: ['w'], outputs: ['y'] }],
  });
  const s = await InferenceSession.create(m, { externalData: [{ path: 'weights.bin', data: raw(w) }] });
  assert.deepEqual([...(await s.run({})).y.data], [1, 2, 3, 4]);
  await s.release();
  const dir = await mkdtemp(join(tmpdir(), 'gort-js-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'm.onnx'), m);
  await writeFile(join(dir, 'weights.bin'), raw(w));
  const s2 = await InferenceSession.create(join(dir, 'm.onnx'), { externalData: [{ path: 'weights.bin', data: 'weights.bin' }] });
  assert.deepEqual([...(await s2.run({})).y.data], [1, 2, 3, 4]);
  await s2.release();
  await rejectsWith(InferenceSession.create(m), ErrorCode.EXTERNAL_DATA, /weights\.bin/);
  await rejectsWith(InferenceSession.create(m, { externalData: {} }), ErrorCode.INVALID_ARGUMENT);
});

test('logSeverityLevel: validated; 0 logs loads and runs; unsupported nodes warn at the default level', async (t) => {
  const m = passthrough([f32('x', [1])]);
  await rejectsWith(InferenceSession.create(m, { logSeverityLevel: 7 }), ErrorCode.INVALID_ARGUMENT, /logSeverityLevel/);
  const logs = [];
  const orig = { log: console.log, warn: console.warn };
  console.log = (...a) => logs.push(['log', a.join(' ')]);
  console.warn = (...a) => logs.push(['warn', a.join(' ')]);
  try {
    const s = await InferenceSession.create(m, { logSeverityLevel: 0 });
    await s.run({ x: new Tensor('float32', new Float32Array(1), [1]) });
    const bad = model({ inputs: [f32('x', [1])], outputs: [f32('y', [1])], opsets: { '': 17, 'example.com': 1 },
      nodes: [{ op: 'Frobnicate', domain: 'example.com', inputs: ['x'], outputs: ['y'] }] });
    await (await InferenceSession.create(bad)).release();
    await (await InferenceSession.create(bad, { logSeverityLevel: 3 })).release();
    await s.release();
  } finally {
    Object.assign(console, orig);
  }
  assert.ok(logs.some(([k, l]) => k === 'log' && /loaded a model/.test(l)), JSON.stringify(logs));
  assert.ok(logs.some(([k, l]) => k === 'log' && /run took/.test(l)));
  assert.equal(logs.filter(([k, l]) => k === 'warn' && /Frobnicate/.test(l)).length, 1, JSON.stringify(logs));
});

test('metadata: overridable initializers (IR 3) are flagged, not in inputNames, and can be fed', async () => {
  needs('Add');
  const m = model({
    irVersion: 3,
    opsets: { '': 9 },
    inputs: [f32('x', [2]), f32('b', [2])],
    outputs: [f32('y', [2])],
    initializers: [{ name: 'b', type: 'float32', dims: [2], raw: raw(new Float32Array([10, 20])) }],
    nodes: [{ op: 'Add', inputs: ['x', 'b'], outputs: ['y'] }],
  });
  const s = await InferenceSession.create(m);
  assert.deepEqual([...s.inputNames], ['x']);
  assert.deepEqual(s.inputMetadata.map((i) => [i.name, !!i.overridableInitializer]), [['x', false], ['b', true]]);
  assert.deepEqual(s._graphInputs, ['x', 'b']);
  const x = new Tensor('float32', new Float32Array([1, 2]), [2]);
  assert.deepEqual([...(await s.run({ x })).y.data], [11, 22]);
  assert.deepEqual([...(await s.run({ x, b: new Tensor('float32', new Float32Array([100, 200]), [2]) })).y.data], [101, 202]);
  await s.release();
});

test('run fetches: array, object form, unknown output', async () => {
  const s = await InferenceSession.create(passthrough([f32('a', [1]), f32('b', [1])]));
  const feeds = { a: new Tensor('float32', new Float32Array([1]), [1]), b: new Tensor('float32', new Float32Array([2]), [1]) };
  assert.deepEqual(Object.keys(await s.run(feeds)), ['a', 'b']);
  assert.deepEqual(Object.keys(await s.run(feeds, ['b'])), ['b']);
  assert.deepEqual(Object.keys(await s.run(feeds, { a: null })), ['a']);
  assert.deepEqual(Object.keys(await s.run(feeds, ['b'], {})), ['b']);
  await rejectsWith(s.run(feeds, ['c']), ErrorCode.INVALID_ARGUMENT, /unknown output/);
  await s.release();
});

// ------------------------------------------------------------------ errors

test('feeds are validated before running (GORT_INVALID_FEED names the input)', async () => {
  const s = await InferenceSession.create(passthrough([f32('x', [2, 3]), { name: 'i', type: { tensor: 'int64', shape: ['N'] } }]));
  const x = new Tensor('float32', new Float32Array(6), [2, 3]);
  const i = new Tensor('int64', new BigInt64Array(2), [2]);
  await s.run({ x, i });
  const cases = [
    [{ x }, /"i": missing input/],
    [{ x, i, z: x }, /"z": the model has no input of this name; its inputs are \[x i\]/],
    [{ x: new Tensor('float64', new Float64Array(6), [2, 3]), i }, /"x": expected element type float32, got float64/],
    [{ x: new Tensor('float32', new Float32Array(6), [3, 2]), i }, /"x": dim 0 must be 2/],
    [{ x: new Tensor('float32', new Float32Array(6), [6]), i }, /"x": expected rank 2/],
    [{ x: { type: 'float32', data: new Float32Array(5), dims: [2, 3] }, i }, /"x": dims \[2,3\] need 6 elements, data has 5/],
    [{ x: { type: 'float32', data: new Float64Array(6), dims: [2, 3] }, i }, /"x": float32 data must be a Float32Array, got Float64Array/],
    [{ x: { type: 'float32', data: new Float32Array(6), dims: [2, -3] }, i }, /non-negative/],
    [{ x: 'nope', i }, /"x": expected a Tensor/],
    [{ x: { type: 'float99', data: [], dims: [] }, i }, /unknown tensor type/],
  ];
  for (const [feeds, re] of cases) await rejectsWith(s.run(feeds), ErrorCode.INVALID_FEED, re);
  const mutated = new Tensor('float32', new Float32Array(6), [2, 3]);
  mutated.data = new Float32Array(4);
  await rejectsWith(s.run({ x: mutated, i }), ErrorCode.INVALID_FEED, /need 6 elements, data has 4/);
  await rejectsWith(s.run(null), ErrorCode.INVALID_FEED);
  await s.release();
});

test('a one-element tensor fed for a scalar input is taken as the scalar, as onnxruntime takes it (a VAD library feeds its sample rate so)', async () => {
  const s = await InferenceSession.create(identity('int64', []));
  const { y } = await s.run({ x: new Tensor('int64', new BigInt64Array([16000n]), [1]) });
  assert.deepEqual(y.dims, []);
  assert.equal(y.data[0], 16000n);
  await rejectsWith(s.run({ x: new Tensor('int64', new BigInt64Array(2), [2]) }), ErrorCode.INVALID_FEED, /"x": expected rank 0/);
  await s.release();
});

test('GORT_BAD_MODEL for bytes that are not a model', async () => {
  await rejectsWith(InferenceSession.create(new Uint8Array([1, 2, 3, 4, 5])), ErrorCode.BAD_MODEL);
  await rejectsWith(InferenceSession.create(new Uint8Array(0)), ErrorCode.BAD_MODEL);
  const dangling = model({ inputs: [f32('x', [1])], outputs: [f32('y', [1])], nodes: [{ op: 'Relu', inputs: ['nope'], outputs: ['y'] }] });
  await rejectsWith(InferenceSession.create(dangling), ErrorCode.BAD_MODEL);
});

test('GORT_UNSUPPORTED_OP when running a node gort does not implement', async () => {
  const m = model({ inputs: [f32('x', [1])], outputs: [f32('y', [1])], opsets: { '': 17, 'example.com': 1 },
    nodes: [{ name: 'frob', op: 'Frobnicate', domain: 'example.com', inputs: ['x'], outputs: ['y'] }] });
  const s = await InferenceSession.create(m, { logSeverityLevel: 3 });
  await rejectsWith(s.run({ x: new Tensor('float32', new Float32Array(1), [1]) }), ErrorCode.UNSUPPORTED_OP, /Frobnicate/);
  await s.release();
});

test('GORT_RUNTIME when a node fails on its values', async () => {
  needs('Add');
  const m = model({ inputs: [f32('a', ['N']), f32('b', ['M'])], outputs: [f32('y', null)],
    nodes: [{ name: 'add', op: 'Add', inputs: ['a', 'b'], outputs: ['y'] }] });
  const s = await InferenceSession.create(m);
  const e = await s.run({ a: new Tensor('float32', new Float32Array(2), [2]), b: new Tensor('float32', new Float32Array(3), [3]) }).catch((x) => x);
  assert.ok(e instanceof Error);
  assert.ok([ErrorCode.RUNTIME, ErrorCode.INVALID_ARGUMENT].includes(e.code), e.message);
  assert.equal(e.code, ErrorCode.RUNTIME, e.message);
  assert.equal(e.node, 'add');
  await s.release();
});

test('GORT_TOO_LARGE when a tensor would exceed the memory budget', async () => {
  needs('ConstantOfShape');
  const m = model({ inputs: [{ name: 's', type: { tensor: 'int64', shape: [2] } }], outputs: [f32('y', null)],
    nodes: [{ op: 'ConstantOfShape', inputs: ['s'], outputs: ['y'] }] });
  const s = await InferenceSession.create(m);
  await rejectsWith(s.run({ s: new Tensor('int64', new BigInt64Array([1000000n, 1000000n]), [2]) }), ErrorCode.TOO_LARGE);
  assert.deepEqual((await s.run({ s: new Tensor('int64', new BigInt64Array([2n, 2n]), [2]) })).y.dims, [2, 2]);
  await s.release();
});

test('GORT_INTERNAL: a Go panic inside the runtime becomes a rejected promise, and the runtime lives on', async () => {
  const m = model({ inputs: [f32('x', [1])], outputs: [f32('y', [1])], opsets: { '': 17, 'gort.test': 1 },
    nodes: [{ op: 'Panic', domain: 'gort.test', inputs: ['x'], outputs: ['y'] }] });
  const s = await gt.InferenceSession.create(m);
  await rejectsWith(s.run({ x: new gt.Tensor('float32', new Float32Array(1), [1]) }), ErrorCode.INTERNAL, /panic/);
  const ok = await gt.InferenceSession.create(passthrough([f32('x', [1])]));
  assert.equal((await ok.run({ x: new gt.Tensor('float32', new Float32Array([5]), [1]) })).x.data[0], 5);
  await s.release();
  await ok.release();
});

test('needs(op) fails the test (it never skips) when the build lacks the op', () => {
  assert.throws(() => needs('Identity', 'NoSuchOp'), /ops missing from gort\.wasm: NoSuchOp/);
});

test('graphOptimizationLevel: onnxruntime-web\'s four levels load; anything else is GORT_INVALID_ARGUMENT from the runtime', async () => {
  const m = passthrough([f32('x', [2])]);
  for (const level of ['disabled', 'basic', 'extended', 'all', undefined]) {
    const s = await InferenceSession.create(m, { graphOptimizationLevel: level });
    assert.deepEqual([...(await s.run({ x: new Tensor('float32', [1, 2], [2]) })).x.data], [1, 2]);
    await s.release();
  }
  // gort.wasm reads the option (Go's package options), with one message for every bad value.
  await rejectsWith(InferenceSession.create(m, { graphOptimizationLevel: 'fast' }), ErrorCode.INVALID_ARGUMENT,
    /graphOptimizationLevel must be 'disabled', 'basic', 'extended' or 'all', got "fast"/);
  await rejectsWith(InferenceSession.create(m, { graphOptimizationLevel: 99 }), ErrorCode.INVALID_ARGUMENT,
    /graphOptimizationLevel must be 'disabled', 'basic', 'extended' or 'all', got 99/);
});

test('session options are read once, by gort.wasm: each bad one is GORT_INVALID_ARGUMENT naming it; unknown keys are ignored', async () => {
  const m = passthrough([f32('x', [2])]);
  for (const [options, re] of [
    [5, /session options must be an object, got 5/],
    [[1], /session options must be an object, got an array/],
    [{ executionProviders: 'wasm' }, /executionProviders must be an array of provider names or \{name\} objects, got "wasm"/],
    [{ executionProviders: ['wasm', 7] }, /executionProviders\[1\] must be a provider name or \{name\}, got 7/],
    [{ logSeverityLevel: 2.5 }, /logSeverityLevel must be an integer from 0 \(verbose\) to 4 \(fatal\), got 2\.5/],
    [{ freeDimensionOverrides: { batch: 'one' } }, /freeDimensionOverrides\.batch must be a non-negative integer, got "one"/],
    [{ externalData: {} }, /externalData must be an array of \{path, data\}, got an object/],
    [{ externalData: [{ data: new Uint8Array(4) }] }, /externalData\[0\]\.path must be a string, got null/],
    [{ externalData: [{ path: 'w.bin', data: 5 }] }, /externalData\[0\]\.data must be bytes/],
    [{ webgpuMinElements: -1 }, /webgpuMinElements must be a non-negative integer, got -1/],
    [{ maxTensorBytes: 0 }, /maxTensorBytes must be a positive integer, got 0/],
    [{ preferredOutputLocation: { x: 'texture' } }, /preferredOutputLocation must be 'cpu', 'gpu-buffer'/],
  ]) {
    await rejectsWith(InferenceSession.create(m, options), ErrorCode.INVALID_ARGUMENT, re);
  }
  await rejectsWith(InferenceSession.create(m, { onProgress: 5 }), ErrorCode.INVALID_ARGUMENT, /onProgress must be a function/);
  // onnxruntime's options that gort has no use for, functions among them, are ignored; null is "not given".
  const s = await InferenceSession.create(m, {
    executionMode: 'sequential', enableCpuMemArena: true, extra: { session: { f: () => 1 } }, onProgress: () => {},
    executionProviders: null, graphOptimizationLevel: null, logSeverityLevel: 3,
  });
  assert.deepEqual([...(await s.run({ x: new Tensor('float32', [1, 2], [2]) })).x.data], [1, 2]);
  await s.release();
  // env.logLevel is the default logSeverityLevel.
  const was = env.logLevel;
  env.logLevel = 'loud';
  try {
    await rejectsWith(InferenceSession.create(m), ErrorCode.INVALID_ARGUMENT, /env\.logLevel must be one of verbose, info, warning, error, fatal, got "loud"/);
  } finally {
    env.logLevel = was;
  }
});

test('feeds are duck-typed: {type, dims, data} objects and typed arrays of another realm are tensors', async () => {
  const { runInNewContext } = await import('node:vm');
  const s = await InferenceSession.create(passthrough([f32('x', [2]), { name: 'n', type: { tensor: 'int64', shape: [1] } }]));
  // The shape of onnxruntime-common's Tensor, without its class.
  const foreign = { type: 'float32', dims: [2], data: runInNewContext('new Float32Array([5, 6])'), size: 2, location: 'cpu' };
  const r = await s.run({ x: foreign, n: { type: 'int64', dims: [1], data: new BigInt64Array([9n]) } });
  assert.deepEqual([...r.x.data], [5, 6]);
  assert.equal(r.n.data[0], 9n);
  await rejectsWith(s.run({ x: { type: 'float32', dims: [2], data: new Float32Array(2), location: 'gpu-buffer' }, n: new Tensor('int64', [1n], [1]) }),
    ErrorCode.INVALID_FEED, /lives on 'gpu-buffer'/);
  await s.release();
});

test('float16 and bfloat16 conversions round to nearest, ties to even', () => {
  const { toFloat16Bits, fromFloat16Bits, toBfloat16Bits, fromBfloat16Bits } = gort._convert;
  // [value, IEEE half bits], worked out by hand from the format (1 sign, 5 exponent, 10 mantissa bits).
  const half = [[1, 0x3c00], [-2, 0xc000], [0, 0], [-0, 0x8000], [65504, 0x7bff], [65519, 0x7bff], [65520, 0x7c00],
    [Infinity, 0x7c00], [2 ** -24, 0x0001], [2 ** -25, 0x0000], [3 * 2 ** -25, 0x0002], [2 ** -14, 0x0400],
    [1 + 2 ** -11, 0x3c00], [1 + 3 * 2 ** -11, 0x3c02], [1 + 2 ** -10, 0x3c01], [0.1, 0x2e66], [-1e-8, 0x8000]];
  for (const [v, h] of half) assert.equal(toFloat16Bits(v), h, `float16(${v})`);
  assert.equal(toFloat16Bits(NaN) & 0x7e00, 0x7e00);
  for (const h of [0x3c00, 0x0001, 0x03ff, 0x7bff, 0xc000]) assert.equal(toFloat16Bits(fromFloat16Bits(h)), h);
  assert.equal(fromFloat16Bits(0x0001), 2 ** -24);
  const bf = [[1, 0x3f80], [1 + 2 ** -8, 0x3f80], [1 + 3 * 2 ** -8, 0x3f82], [-2, 0xc000], [Infinity, 0x7f80]];
  for (const [v, h] of bf) assert.equal(toBfloat16Bits(v), h, `bfloat16(${v})`);
  assert.equal(fromBfloat16Bits(0x3f80), 1);
  assert.ok(Number.isNaN(fromBfloat16Bits(toBfloat16Bits(NaN))));
  // Plain number arrays become bit patterns through the same rounding.
  assert.deepEqual([...new Tensor('float16', [1, 65520, 2 ** -25], [3]).data], [0x3c00, 0x7c00, 0]);
  assert.deepEqual([...new Tensor('bfloat16', [1 + 3 * 2 ** -8], [1]).data], [0x3f82]);
});

test('ErrorCode holds runtime/errs\'s codes, plus the JS loader\'s own GORT_WASM_FETCH', async () => {
  const { readFile } = await import('node:fs/promises');
  const goSrc = await readFile(join(ROOT, 'runtime', 'errs', 'errs.go'), 'utf8');
  const goCodes = [...goSrc.matchAll(/Code = "(GORT_[A-Z_]+)"/g)].map((m) => m[1]);
  assert.ok(goCodes.length >= 9, `found ${goCodes.length} codes in errs.go`);
  assert.deepEqual(Object.values(ErrorCode).filter((c) => c !== 'GORT_WASM_FETCH').sort(), goCodes.sort());
});

test('every stable error code is exported', () => {
  assert.deepEqual(Object.values(ErrorCode).sort(), ['GORT_ABORTED', 'GORT_BAD_MODEL', 'GORT_DEVICE_LOST', 'GORT_EXTERNAL_DATA', 'GORT_INTERNAL',
    'GORT_INVALID_ARGUMENT', 'GORT_INVALID_FEED', 'GORT_RUNTIME', 'GORT_TOO_LARGE', 'GORT_UNSUPPORTED_OP', 'GORT_WASM_FETCH', 'GORT_WORKER_LOST']);
});

// ------------------------------------------------------------------ behaviour under use

test('concurrent run() calls on one session are queued; several sessions coexist', async () => {
  const a = await InferenceSession.create(passthrough([f32('x', [1])]));
  const b = await InferenceSession.create(passthrough([{ name: 'y', type: { tensor: 'int32', shape: [1] } }]));
  const runs = [];
  for (let k = 0; k < 20; k++) {
    runs.push(a.run({ x: new Tensor('float32', new Float32Array([k]), [1]) }).then((r) => r.x.data[0]));
    runs.push(b.run({ y: new Tensor('int32', new Int32Array([-k]), [1]) }).then((r) => r.y.data[0]));
  }
  const got = await Promise.all(runs);
  assert.deepEqual(got, Array.from({ length: 40 }, (_, i) => (i % 2 ? -((i - 1) / 2) : i / 2)).map((v) => (Object.is(v, -0) ? 0 : v)));
  await a.release();
  assert.equal((await b.run({ y: new Tensor('int32', new Int32Array([3]), [1]) })).y.data[0], 3, 'b survives a.release()');
  await b.release();
});

test('release(): later runs reject, release is idempotent', async () => {
  const s = await InferenceSession.create(passthrough([f32('x', [1])]));
  await s.release();
  await s.release();
  await rejectsWith(s.run({ x: new Tensor('float32', new Float32Array(1), [1]) }), ErrorCode.INVALID_ARGUMENT, /released/);
});

test('1000 create/run/release cycles leave the wasm heap flat', async () => {
  needs('Identity');
  // 1 MiB of weights per session makes a leak visible at once.
  const w = new Float32Array(256 * 1024).map((_, i) => i % 7);
  const m = model({
    inputs: [f32('x', [1])],
    outputs: [f32('y', [1]), f32('wout', [w.length])],
    initializers: [{ name: 'w', type: 'float32', dims: [w.length], raw: raw(w) }],
    nodes: [{ op: 'Identity', inputs: ['x'], outputs: ['y'] }, { op: 'Identity', inputs: ['w'], outputs: ['wout'] }],
  });
  const x = new Tensor('float32', new Float32Array([1]), [1]);
  const cycle = async () => {
    const s = await InferenceSession.create(m);
    const r = await s.run({ x });
    assert.equal(r.wout.data[6], 6);
    await s.release();
  };
  for (let i = 0; i < 50; i++) await cycle(); // warm up: the heap reaches its working size
  const before = await gort._memory();
  const t0 = Date.now();
  for (let i = 0; i < 1000; i++) await cycle();
  const ms = Date.now() - t0;
  const after = await gort._memory();
  const mb = (n) => (n / 1048576).toFixed(1);
  const line = `memory after 50 warm-up + 1000 cycles (1 MiB weights each, ${ms} ms): wasm memory ${mb(before.wasmMemoryBytes)} → ${mb(after.wasmMemoryBytes)} MiB, Go heap in use ${mb(before.heapInuse)} → ${mb(after.heapInuse)} MiB, sessions ${after.sessions}`;
  console.log(line);
  assert.equal(after.sessions, before.sessions);
  assert.equal(after.runs, 0);
  assert.ok(after.wasmMemoryBytes - before.wasmMemoryBytes <= 8 * 1048576, line);
  assert.ok(after.heapInuse - before.heapInuse <= 4 * 1048576, line);
});

// ------------------------------------------------------------------ abort

// A chain of n Spin nodes of ms milliseconds each: a long graph whose nodes do
// not check for cancellation themselves.
const spinChain = (n, ms) => model({
  inputs: [f32('x', [1])], outputs: [f32(`v${n}`, [1])], opsets: { '': 17, 'gort.test': 1 },
  nodes: Array.from({ length: n }, (_, i) => ({ op: 'Spin', domain: 'gort.test', attrs: { ms }, inputs: [i ? `v${i}` : 'x'], outputs: [`v${i + 1}`] })),
});

test('AbortSignal rejects a long run with GORT_ABORTED within 100 ms, mid-graph', async () => {
  const s = await gt.InferenceSession.create(spinChain(1000, 5)); // 5 s uninterrupted
  const x = new gt.Tensor('float32', new Float32Array([1]), [1]);
  const lat = [];
  for (let k = 0; k < 5; k++) {
    const ac = new AbortController();
    const t0 = performance.now();
    let firedAt = 0;
    setTimeout(() => { firedAt = performance.now(); ac.abort(); }, 200);
    const e = await s.run({ x }, { signal: ac.signal }).catch((err) => err);
    const t1 = performance.now();
    assert.equal(e.code, ErrorCode.ABORTED, e.message);
    lat.push({ afterAbortCall: t1 - firedAt, afterIntended: t1 - (t0 + 200) });
  }
  // The requirement is on the time from abort() to the rejection; the time
  // from the intended moment also counts how late the timer fired, which
  // depends on the machine's load as much as on gort.
  const worst = Math.max(...lat.map((l) => l.afterAbortCall));
  console.log(`abort latency (5 ms nodes, yield every ${gt.env.wasm.yieldIntervalMs} ms): after abort() ${lat.map((l) => l.afterAbortCall.toFixed(1)).join(', ')} ms; after the intended time ${lat.map((l) => l.afterIntended.toFixed(1)).join(', ')} ms`);
  assert.ok(worst < 100, `abort took ${worst.toFixed(1)} ms`);
  // The session still works after an abort.
  const ok = await gt.InferenceSession.create(spinChain(3, 1));
  assert.equal((await ok.run({ x })).v3.data[0], 1);
  await s.release();
  await ok.release();
});

test('AbortSignal: already aborted, aborted while queued, reason in the message', async () => {
  const s = await gt.InferenceSession.create(spinChain(100, 2));
  const x = new gt.Tensor('float32', new Float32Array([1]), [1]);
  await rejectsWith(s.run({ x }, { signal: AbortSignal.abort(new Error('user left')) }), ErrorCode.ABORTED, /user left/);
  const first = s.run({ x });
  const ac = new AbortController();
  const queued = s.run({ x }, { signal: ac.signal });
  const t0 = performance.now();
  ac.abort();
  let firstDone = false;
  first.then(() => { firstDone = true; });
  await rejectsWith(queued, ErrorCode.ABORTED);
  // Rejected at once (the delay is the slice the run in flight holds the thread).
  assert.ok(!firstDone && performance.now() - t0 < 100, `a queued run rejects at once (${performance.now() - t0} ms)`);
  assert.equal((await first).v100.data[0], 1, 'the run in flight is unaffected');
  await s.release();
});

test('AbortSignal inside a Loop with a huge trip count', async () => {
  needs('Loop', 'Identity');
  const body = {
    name: 'body',
    inputs: [{ name: 'i', type: { tensor: 'int64', shape: [] } }, { name: 'c', type: { tensor: 'bool', shape: [] } }, f32('v', [1])],
    outputs: [{ name: 'c2', type: { tensor: 'bool', shape: [] } }, f32('v2', [1])],
    nodes: [{ op: 'Identity', inputs: ['c'], outputs: ['c2'] }, { op: 'Identity', inputs: ['v'], outputs: ['v2'] }],
  };
  const m = model({
    inputs: [{ name: 'M', type: { tensor: 'int64', shape: [] } }, { name: 'cond', type: { tensor: 'bool', shape: [] } }, f32('v0', [1])],
    outputs: [f32('vf', [1])],
    nodes: [{ op: 'Loop', inputs: ['M', 'cond', 'v0'], outputs: ['vf'], attrs: { body: { graph: body } } }],
  });
  const s = await InferenceSession.create(m);
  const ac = new AbortController();
  let firedAt = 0;
  setTimeout(() => { firedAt = performance.now(); ac.abort(); }, 150);
  const t0 = performance.now();
  const e = await s.run({
    M: new Tensor('int64', new BigInt64Array([10n ** 12n]), []),
    cond: new Tensor('bool', new Uint8Array([1]), []),
    v0: new Tensor('float32', new Float32Array([1]), [1]),
  }, { signal: ac.signal }).catch((err) => err);
  const t1 = performance.now();
  assert.equal(e.code, ErrorCode.ABORTED, e.message);
  console.log(`abort latency in a Loop of 10^12 iterations: ${(t1 - firedAt).toFixed(1)} ms after abort(), ${(t1 - t0 - 150).toFixed(1)} ms after the intended time`);
  assert.ok(t1 - firedAt < 100);
  await s.release();
});

// ------------------------------------------------------------------ entries, env, CLI

test('CommonJS entry, no global pollution, proxy ignored in Node, wasmBinary override', async () => {
  const require = createRequire(import.meta.url);
  const cjs = require('../dist/gort.cjs');
  assert.equal(typeof cjs.InferenceSession.create, 'function');
  const s = await cjs.InferenceSession.create(passthrough([f32('x', [1])]));
  assert.equal((await s.run({ x: new cjs.Tensor('float32', new Float32Array([2]), [1]) })).x.data[0], 2);
  await s.release();
  assert.equal(globalThis.Go, undefined);
  assert.equal(globalThis.fs, undefined);
  assert.equal(globalThis.path, undefined);
  const p = (await import('../dist/gort.mjs?instance=proxy')).default;
  p.env.wasm.proxy = true;
  const { readFile } = await import('node:fs/promises');
  p.env.wasmBinary = await readFile(join(DIST, 'gort.wasm'));
  p.env.wasmPaths = 'file:///nonexistent/'; // ignored: the binary wins
  const ps = await p.InferenceSession.create(passthrough([f32('x', [1])]));
  assert.equal((await ps.run({ x: new p.Tensor('float32', new Float32Array([3]), [1]) })).x.data[0], 3);
  await ps.release();
  const bad = (await import('../dist/gort.mjs?instance=bad')).default;
  bad.env.wasmPaths = '/nonexistent/dir/';
  await rejectsWith(bad.InferenceSession.create(passthrough([f32('x', [1])])), ErrorCode.WASM_FETCH,
    /cannot load gort\.wasm; tried \/nonexistent\/dir\/gort\.wasm \(.*ENOENT.*\)\. .*set gort\.env\.wasmPaths/);
  // Not a wasm file (an HTML page where gort.wasm should be) is the same failure, not a compile error.
  const dir = await mkdtemp(join(tmpdir(), 'gort-html-'));
  await writeFile(join(dir, 'gort.wasm'), '<!doctype html><title>index</title>');
  const html = (await import('../dist/gort.mjs?instance=html')).default;
  html.env.wasmPaths = dir + '/';
  await rejectsWith(html.InferenceSession.create(passthrough([f32('x', [1])])), ErrorCode.WASM_FETCH, /gort-html-\w+\/gort\.wasm \(the file is not WebAssembly\)/);
  html.env.wasmBinary = new TextEncoder().encode('<!doctype html>');
  await rejectsWith(html.InferenceSession.create(passthrough([f32('x', [1])])), ErrorCode.WASM_FETCH, /env\.wasmBinary is not WebAssembly/);
  await rm(dir, { recursive: true });
});

test('CLI: gort run model.onnx prints output names, shapes and a checksum', async () => {
  needs('Conv', 'Relu', 'MaxPool', 'Concat', 'Softmax');
  const { stdout } = await promisify(execFile)(process.execPath, [join(HERE, '..', 'bin', 'gort.mjs'), 'run', join(SQUEEZENET, 'model.onnx')]);
  assert.match(stdout, /\n {2}softmaxout_1 {2}float32\[1 1000 1 1\] {2}checksum (1|0\.99999\d)\n/);
});

test('squeezenet in Node matches its expected output', async () => {
  needs('Conv', 'Relu', 'MaxPool', 'Concat', 'Softmax');
  const { readFile } = await import('node:fs/promises');
  const { compare } = await import('./compare.mjs');
  const s = await InferenceSession.create(join(SQUEEZENET, 'model.onnx'));
  const x = await gort._decodeValue(await readFile(join(SQUEEZENET, 'test_data_set_0', 'input_0.pb')));
  const want = await gort._decodeValue(await readFile(join(SQUEEZENET, 'test_data_set_0', 'output_0.pb')));
  const out = await s.run({ [s.inputNames[0]]: x });
  assert.equal(compare(out[s.outputNames[0]], want, { rtol: 1e-3, atol: 1e-5 }), '');
  await s.release();
});
