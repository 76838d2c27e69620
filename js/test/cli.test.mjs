// The Node CLI (bin/gort.mjs) against the native one (cmd/gort): same random
// inputs, same output lines (name, type, dims, checksum to 6 digits), for a
// model of every input type cmd/gort fills (and some it leaves zero, and a
// symbolic dim), and for squeezenet. Also Go's PCG and %.6g reproduced in
// bin/gocompat.mjs, against values printed by Go itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { model } from './onnx.mjs';
import { PCG, formatG6 } from '../bin/gocompat.mjs';

const run = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const GO = process.env.GO || 'go';

// Printed by Go 1.27 (math/rand/v2, fmt) for these inputs.
test('gocompat: PCG(1, 2) and %.6g as Go prints them', () => {
  const r = new PCG(1, 2);
  assert.equal(r.uint64(), 14192431797130687760n);
  assert.equal(r.uint64(), 11371241257079532652n);
  const want = { 1: '1', 0.1: '0.1', 1e-5: '1e-05', 123456: '123456', 1234567: '1.23457e+06', 0.00012345678: '0.000123457', '-2.5e-7': '-2.5e-07', 100000: '100000', 1e21: '1e+21' };
  for (const [x, s] of Object.entries(want)) assert.equal(formatG6(Number(x)), s, x);
});

test('CLI: gort run prints the same lines as the native cmd/gort on the same random inputs', { timeout: 600000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gort-cli-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const native = join(dir, 'gort-native');
  await run(GO, ['build', '-o', native, './cmd/gort'], { cwd: ROOT, env: { ...process.env, GOTOOLCHAIN: process.env.GOTOOLCHAIN || 'auto' } });
  const inputs = [
    { name: 'f32', type: { tensor: 'float32', shape: [2, 'n', 3] } },
    { name: 'f64', type: { tensor: 'float64', shape: [7] } },
    { name: 'i64', type: { tensor: 'int64', shape: [3, 5] } },
    { name: 'i32', type: { tensor: 'int32', shape: [9] } },
    { name: 'b', type: { tensor: 'bool', shape: [11] } },
    { name: 'h', type: { tensor: 'float16', shape: [4] } },
    { name: 'bf', type: { tensor: 'bfloat16', shape: [6] } },
    { name: 'u8', type: { tensor: 'uint8', shape: [2, 2] } },
  ];
  // Both CLIs' checksums skip bools, and print float16 at 6 digits: Cast
  // exposes the bool draws as int32 and the float16/bfloat16 ones exactly as float64.
  const types = model({
    inputs,
    outputs: inputs.concat([
      { name: 'b_i32', type: { tensor: 'int32', shape: [11] } },
      { name: 'h_f64', type: { tensor: 'float64', shape: [4] } },
      { name: 'bf_f64', type: { tensor: 'float64', shape: [6] } },
    ]),
    nodes: [
      { op: 'Cast', inputs: ['b'], outputs: ['b_i32'], attrs: { to: 6 } },
      { op: 'Cast', inputs: ['h'], outputs: ['h_f64'], attrs: { to: 11 } },
      { op: 'Cast', inputs: ['bf'], outputs: ['bf_f64'], attrs: { to: 11 } },
    ],
  });
  await writeFile(join(dir, 'types.onnx'), types);
  const models = [join(dir, 'types.onnx'), join(ROOT, 'testdata', 'bench', 'test_squeezenet', 'model.onnx')];
  const lines = (out) => out.split('\n').filter((l) => /^ {2}\S+: /.test(l));
  for (const m of models) {
    const go = lines((await run(native, ['run', m])).stdout);
    const js = lines((await run(process.execPath, [join(HERE, '..', 'bin', 'gort.mjs'), 'run', m])).stdout);
    assert.ok(go.length > 0, `no output lines from cmd/gort for ${m}`);
    assert.deepEqual(js, go, m);
    console.log(`cli: ${m}\n${js.join('\n')}`);
  }
});
