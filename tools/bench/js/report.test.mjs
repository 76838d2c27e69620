// Tests of the benchmark's arithmetic and table (no timings involved):
//   node --test tools/bench/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { median, p90, agreement, compareRatios, parseBaseline, renderMarkdown } from './report.mjs';
import { parseTensor } from './tensorproto.mjs';

test('median and p90', () => {
  assert.equal(median([5, 1, 3]), 3);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(p90([10, 1, 2, 3, 4, 5, 6, 7, 8, 9]), 9);
  assert.equal(p90([7]), 7);
  assert.equal(p90([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]), 10);
});

test('agreement', () => {
  const o = { y: { dims: [1, 3], data: Float32Array.of(0, 10, -2) } };
  assert.equal(agreement({ y: { dims: [1, 3], data: Float32Array.of(0, 10, -2) } }, o).ok, true);
  assert.equal(agreement({ y: { dims: [1, 3], data: Float32Array.of(0, 10.001, -2) } }, o).ok, true); // 1e-4 relative
  assert.equal(agreement({ y: { dims: [1, 3], data: Float32Array.of(0, 10.1, -2) } }, o).ok, false);
  assert.equal(agreement({ y: { dims: [3, 1], data: Float32Array.of(0, 10, -2) } }, o).ok, false);
  assert.equal(agreement({ y: { dims: [1, 3], data: Float32Array.of(NaN, 10, -2) } }, o).ok, false);
  assert.equal(agreement({}, o).ok, false);
});

const machine = { cpu: '2 × test', memGiB: 1, node: 'v0', platform: 'x', date: 'd', commit: 'c', gortVersion: '0', mode: 'full', ortDefaultThreads: 1 };
const row = (name, g, o) => ({
  name, ratio: g && o ? g / o : null, coldRatio: 1, agreement: { ok: true, worst: 0 },
  gort: { label: 'gort', median: g, n: 5, error: g ? null : 'run: GORT_TOO_LARGE' }, ort1: { median: o, n: 5, version: '1.30.0' },
});

test('a committed table round-trips and regressions beyond 10% are flagged', () => {
  const md = renderMarkdown({ machine, models: [row('a', 20, 10), row('b', 30, 10), row('c', 10, 10)] }, null);
  const base = parseBaseline(md);
  assert.deepEqual(base.ratios, { a: 2, b: 3, c: 1 });
  const now = { models: [row('a', 21.9, 10), row('b', 33.1, 10), row('c', null, 10), row('d', 50, 10)] };
  const regs = compareRatios(base, now, 0.10);
  assert.equal(regs.length, 2, regs.join('\n'));
  assert.match(regs[0], /^b: ratio 3\.31, committed 3\.00/);
  assert.match(regs[1], /^c: no ratio now/);
  assert.equal(parseBaseline('# no data here'), null);
});

test('the table shows failures and the ratio', () => {
  const md = renderMarkdown({ machine, models: [row('a', 20, 10), row('c', null, 10)] }, { file: 'x', regressions: [] });
  assert.match(md, /\| a \|.*\*\*2\.00\*\*/);
  assert.match(md, /c, gort: run: GORT_TOO_LARGE/);
  assert.match(md, /No ratio more than 10% worse/);
});

test('TensorProto inputs: packed and unpacked dims, float32 and int64 raw data', () => {
  // dims 2,3 unpacked (field 1 varint), data_type 1, raw_data 6 floats.
  const f = new Float32Array([1, 2, 3, 4, 5, 6]);
  const raw = new Uint8Array(f.buffer);
  const a = parseTensor(Uint8Array.from([0x08, 2, 0x08, 3, 0x10, 1, 0x4a, raw.length, ...raw]));
  assert.deepEqual(a.dims, [2, 3]);
  assert.equal(a.type, 'float32');
  assert.deepEqual(Array.from(a.data), [1, 2, 3, 4, 5, 6]);
  // dims packed [1], data_type 7 (int64), name "sr", raw 8 bytes of 16000.
  const i64 = new Uint8Array(new BigInt64Array([16000n]).buffer);
  const b = parseTensor(Uint8Array.from([0x0a, 1, 1, 0x10, 7, 0x42, 2, 0x73, 0x72, 0x4a, 8, ...i64]));
  assert.deepEqual(b.dims, [1]);
  assert.equal(b.name, 'sr');
  assert.equal(b.data[0], 16000n);
  assert.throws(() => parseTensor(Uint8Array.from([0x10, 8])), /raw_data/);
});

test('the real-model table comes first, its ratios round-trip and are compared', () => {
  const c = (name, g, o) => ({ ...row(name, g, o), corpus: true, source: 'pkg@1 m.onnx', category: 'vad' });
  const md = renderMarkdown({ machine, corpus: [c('vad', 30, 10)], models: [row('a', 20, 10)] }, null);
  assert.ok(md.indexOf('### Real models') < md.indexOf('| vad |'));
  assert.ok(md.indexOf('| vad |') < md.indexOf('### Classic CNNs') && md.indexOf('### Classic CNNs') < md.indexOf('| a |'));
  assert.match(md, /- \*\*vad\*\*: vad; pkg@1 m\.onnx/);
  const base = parseBaseline(md);
  assert.deepEqual(base.corpusRatios, { vad: 3 });
  assert.deepEqual(base.ratios, { a: 2 });
  const regs = compareRatios(base, { corpus: [c('vad', 34, 10)], models: [] }, 0.10);
  assert.deepEqual(regs.map((r) => r.split(':')[0]), ['corpus vad']);
  // Only the corpus: no empty classic table.
  assert.doesNotMatch(renderMarkdown({ machine, corpus: [c('vad', 30, 10)], models: [] }, null), /Classic CNNs/);
});

test('corpus inputs: deterministic, within range, fixed values', async () => {
  const { makeInputs } = await import('./inputs.mjs');
  const specs = [
    { name: 'input', type: 'float32', dims: [1, 512], range: [-1, 1] },
    { name: 'sr', type: 'int64', dims: [], value: 16000 },
    { name: 'ids', type: 'int64', dims: [2, 3], range: [0, 9] },
  ];
  const a = makeInputs(specs, 'm'), b = makeInputs(specs, 'm'), c = makeInputs(specs, 'other');
  assert.deepEqual(a[0].data, b[0].data);
  assert.notDeepEqual(a[0].data, c[0].data);
  assert.ok(a[0].data.every((x) => x >= -1 && x <= 1));
  assert.ok(new Set(a[0].data).size > 400);
  assert.deepEqual(a[1].dims, []);
  assert.deepEqual(Array.from(a[1].data), [16000n]);
  assert.ok(a[2].data.every((x) => typeof x === 'bigint' && x >= 0n && x <= 9n));
});
