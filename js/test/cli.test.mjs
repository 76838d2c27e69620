// The Node CLI (bin/gort.mjs) against the native one (cmd/gort). Both run
// the same Go code (cmd/gort over package cli; the Node one compiled to
// dist/gort-cli.wasm), so
// this checks the wiring: that the launcher passes the command line, the
// environment, files, stdout, stderr and the exit code through. For every
// verb, the same stdout, stderr and exit code on the same command line —
// a valid model (squeezenet), a model of every input type the random feeds
// fill, a broken model (check: exit 1), a three-node chain with a planted
// numeric error in its middle node (compare: exit 1, diverge names that
// node), external data, and usage errors (exit 2); only timings differ, and
// are masked. Then what only the launcher does: paths relative to the
// working directory, colour and progress on a terminal, NO_COLOR. Then the
// installed package: `npm pack`, installed into a fresh project, `npx gort
// check|print|run` there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, writeFile, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brokenModel, f32, model, raw, tensorProto } from './onnx.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const JS = join(HERE, '..');
const ROOT = join(JS, '..');
const CLI = join(JS, 'bin', 'gort.mjs');
const GO = process.env.GO || 'go';
const SQUEEZENET = join(ROOT, 'testdata', 'bench', 'test_squeezenet');

// Runs a command; resolves {code, stdout, stderr} whatever the exit code.
function sh(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    execFile(cmd, args, { maxBuffer: 64 << 20, ...opts }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

// x → Relu (relu) → a → Mul by c (scale) → b → Add d (shift) → y, with c = 2
// and d = 1; the planted model has c = 2.5, so `scale` is the node that diverges.
function chain(c) {
  return model({
    inputs: [f32('x', [2, 3])],
    outputs: [f32('y', [2, 3])],
    initializers: [
      { name: 'c', type: 'float32', dims: [1], raw: raw(new Float32Array([c])) },
      { name: 'd', type: 'float32', dims: [1], raw: raw(new Float32Array([1])) },
    ],
    nodes: [
      { op: 'Relu', name: 'relu', inputs: ['x'], outputs: ['a'] },
      { op: 'Mul', name: 'scale', inputs: ['a', 'c'], outputs: ['b'] },
      { op: 'Add', name: 'shift', inputs: ['b', 'd'], outputs: ['y'] },
    ],
  });
}
const X = [-1, 0.5, 2, -0.25, 3, 1.5];
// Worked by hand from X for c = 2, d = 1.
const REFERENCE = { x: X, a: [0, 0.5, 2, 0, 3, 1.5], b: [0, 1, 4, 0, 6, 3], y: [1, 2, 5, 1, 7, 4] };

// A float32 .npy of shape [2, 3], written by hand (format 1.0: magic, header
// length, a Python dict literal padded with spaces to 64 bytes, the data).
function npy(values) {
  let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  header += ' '.repeat(64 - ((10 + header.length + 1) % 64)) + '\n';
  const head = Uint8Array.from([0x93, ...Buffer.from('NUMPY'), 1, 0, header.length & 0xff, header.length >> 8, ...Buffer.from(header)]);
  return Buffer.concat([head, raw(new Float32Array(values))]);
}

// What differs between two runs of the same command: timings.
const TIMING_KEYS = /^(\s*"(loadMs|runMs|createMs|firstRunMs|medianMs|p90Ms)": )\S+?(,?)$/gm;
const mask = (s) => s
  .replace(/loaded in \S+, ran in \S+/g, 'loaded in T, ran in T')
  .replace(/^( {2}(cold create|first run|median|p90) +)\S+$/gm, '$1T')
  .replace(TIMING_KEYS, '$1T$3')
  .replaceAll('\u00a0', ' '); // protobuf-go's error texts hold random no-break spaces

test('CLI: every verb prints what the native cmd/gort prints, with its exit code', { timeout: 300000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gort-cli-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const native = join(dir, 'gort-native');
  const built = await sh(GO, ['build', '-o', native, './cmd/gort'], { cwd: ROOT, env: { ...process.env, GOTOOLCHAIN: process.env.GOTOOLCHAIN || 'auto' } });
  assert.equal(built.code, 0, built.stderr);

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
  await writeFile(join(dir, 'types.onnx'), model({
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
  }));
  await writeFile(join(dir, 'chain.onnx'), chain(2));
  await writeFile(join(dir, 'empty.onnx'), '');
  await writeFile(join(dir, 'planted.onnx'), chain(2.5));
  await writeFile(join(dir, 'x.json'), JSON.stringify({ x: { type: 'float32', dims: [2, 3], data: X } }));
  await writeFile(join(dir, 'y.npy'), npy(REFERENCE.y));
  await writeFile(join(dir, 'x.pb'), tensorProto({ name: 'x', type: 'float32', dims: [2, 3], raw: raw(new Float32Array(X)) }));
  await writeFile(join(dir, 'nested.json'), JSON.stringify({ x: [X.slice(0, 3), X.slice(3)] }));
  await writeFile(join(dir, 'ragged.json'), JSON.stringify({ x: [X.slice(0, 3), X.slice(4)] }));
  await mkdir(join(dir, 'ref'));
  for (const [k, v] of Object.entries(REFERENCE)) await writeFile(join(dir, 'ref', `${k}.npy`), npy(v));
  await writeFile(join(dir, 'broken.onnx'), brokenModel()); // a missing op, a dangling input, an output nothing makes
  // External data: w.bin beside the model (12 bytes: 3 floats).
  await mkdir(join(dir, 'ext'));
  await mkdir(join(dir, 'empty'));
  await writeFile(join(dir, 'ext', 'model.onnx'), model({
    inputs: [f32('x', [3])],
    outputs: [f32('y', [3])],
    initializers: [{ name: 'w', type: 'float32', dims: [3], external: { location: 'w.bin', offset: '0', length: '12' } }],
    nodes: [{ op: 'Add', name: 'add', inputs: ['x', 'w'], outputs: ['y'] }],
  }));
  await writeFile(join(dir, 'ext', 'w.bin'), raw(new Float32Array([1, 2, 3])));

  const M = join(SQUEEZENET, 'model.onnx');
  const D = join(SQUEEZENET, 'test_data_set_0');
  const p = (f) => join(dir, f);
  const data = ['--inputs', p('x.json')];
  // An .npz of the expected output, as the native CLI saves it.
  const savedNpz = await sh(native, ['run', '--inputs', p('x.pb'), '--save', p('y.npz'), p('chain.onnx')]);
  assert.equal(savedNpz.code, 0, savedNpz.stderr);
  const cases = [
    // a valid model
    [0, 'check', M], [0, 'inspect', M], [0, 'info', '--json', M], [0, 'print', M], [0, 'print', '--json', M], [0, 'print', '--webgpu', M], [0, 'print', '--json', '--webgpu', M],
    [0, 'run', M], [0, 'run', '--json', ...data, p('chain.onnx')], [0, 'compare', '--data', D, M],
    [0, 'run', p('types.onnx')], [0, 'check', '--json', p('chain.onnx')],
    [0, 'bench', '--runs', '3', ...data, p('chain.onnx')], [0, 'bench', '--json', '--runs', '2', p('chain.onnx')],
    // a broken one
    [1, 'check', p('broken.onnx')], [1, 'check', '--json', p('broken.onnx')], [0, 'inspect', p('broken.onnx')],
    // the planted numeric error
    [0, 'compare', ...data, '--expected', p('y.npy'), p('chain.onnx')],
    [1, 'compare', ...data, '--expected', p('y.npy'), p('planted.onnx')],
    [1, 'compare', '--json', ...data, '--expected', `y=${p('y.npy')}`, p('planted.onnx')],
    [0, 'compare', '--inputs', p('x.pb'), '--expected', p('y.npz'), p('chain.onnx')],
    [1, 'compare', '--inputs', `x=${p('x.pb')}`, '--expected', p('y.npz'), '--atol', '0.1', p('planted.onnx')],
    [0, 'diverge', ...data, '--reference', p('ref'), p('chain.onnx')],
    [1, 'diverge', ...data, '--reference', p('ref'), p('planted.onnx')],
    [1, 'diverge', '--json', ...data, '--reference', p('ref'), '--rtol', '0.01', p('planted.onnx')],
    [0, 'diverge', '--unoptimized', p('chain.onnx')],
    [2, 'diverge', ...data, '--reference', p('empty'), p('chain.onnx')],
    // external data
    [0, 'check', p('ext/model.onnx')], [0, 'check', '--no-external', p('ext/model.onnx')],
    [1, 'check', '--external-dir', p('empty'), p('ext/model.onnx')],
    // usage errors and unreadable input
    [2], [0, '--help'], [2, 'bogus', M], [2, 'run'], [2, 'run', M, M], [2, 'run', '--repeat', 'x', M], [2, 'check', '--nope', M],
    [2, 'compare', p('chain.onnx')], [2, 'diverge', p('chain.onnx')], [2, 'check', p('nonexistent.onnx')],
    [2, 'inspect', p('x.json')], [2, 'check', p('x.json')], [2, 'check', p('empty.onnx')], [2, 'run', '--inputs', p('y.npy'), '--inputs', `nope=${p('y.npy')}`, p('chain.onnx')],
    [2, 'bench', '--runs', '0', M], [0, 'run', '--inputs', p('nested.json'), p('chain.onnx')],
    [2, 'run', '--inputs', p('ragged.json'), p('chain.onnx')], [2, 'run', '--inputs', p('chain.onnx'), p('chain.onnx')],
    ...['check', 'inspect', 'print', 'run', 'compare', 'diverge', 'bench'].map((v) => [0, v, '--help']),
  ];
  const outputs = {};
  for (const [want, ...args] of cases) {
    const name = `gort ${args.join(' ').replaceAll(dir, '$TMP').replaceAll(ROOT, '$ROOT')}`;
    const go = await sh(native, args);
    const js = await sh(process.execPath, [CLI, ...args]);
    assert.equal(go.code, want, `${name}: native exit code (stderr: ${go.stderr})`);
    assert.equal(js.code, want, `${name}: Node exit code (stderr: ${js.stderr})`);
    assert.equal(mask(js.stdout), mask(go.stdout), `${name}: stdout`);
    assert.equal(mask(js.stderr), mask(go.stderr), `${name}: stderr`);
    assert.ok(!js.stdout.includes('\x1b') && !js.stderr.includes('\x1b'), `${name}: colour or progress without a terminal`);
    outputs[name] = js.stdout;
  }
  // What the outputs say, beyond being equal.
  const get = (prefix) => Object.entries(outputs).find(([k]) => k.startsWith(prefix))[1];
  assert.match(get('gort check $TMP/broken.onnx'), /NoSuchOp/);
  assert.match(get('gort compare --inputs $TMP/x.json --expected $TMP/y.npy $TMP/planted.onnx'), /^FAIL: 0 of 1 outputs match/m);
  assert.match(get('gort diverge --inputs $TMP/x.json --reference $TMP/ref $TMP/planted.onnx'), /first divergence at node scale \(Mul, #1 in execution order\)\n(.*\n)*its inputs agreed/);
  const div = JSON.parse(get('gort diverge --json'));
  assert.equal(div.divergence.node, 'scale');
  assert.deepEqual(div.divergence.outputs[0].stats.worstIndex, [1, 1]); // 7.5 for 6: the largest excess
  assert.match(get('gort check --no-external'), /EXTERNAL_DATA_NOT_CHECKED/);
  assert.match(get('gort run $ROOT'), /softmaxout_1 +float32\[1 1000 1 1\] +checksum 1\n/);

  // On a terminal (script(1) gives the commands a pty): the native CLI's
  // colours, and progress on stderr (masked: it depends on timing).
  if ((await sh('script', ['-qec', 'true', '/dev/null'])).code === 0) {
    const tty = async (cmd) => {
      const r = await sh('script', ['-qec', cmd.join(' '), '/dev/null']);
      return { code: r.code, out: mask(r.stdout).replace(/\r {2}(node|run|running)[^\r]*/g, '').replaceAll('\r\x1b[K', '') };
    };
    for (const [want, ...args] of [[1, 'check', p('broken.onnx')], [1, 'compare', ...data, '--expected', p('y.npy'), p('planted.onnx')], [0, 'inspect', M]]) {
      const go = await tty([native, ...args]);
      const js = await tty([process.execPath, CLI, ...args]);
      assert.equal(js.code, want, `on a terminal: ${args.join(' ')}`);
      assert.match(js.out, /\x1b\[3[12]m/, `on a terminal: ${args.join(' ')}`);
      assert.equal(js.out, go.out, `on a terminal: ${args.join(' ')}`);
    }
    // NO_COLOR reaches the Go code through the launcher's environment.
    const args = ['check', p('broken.onnx')];
    const [go, js] = [await tty(['NO_COLOR=1', native, ...args]), await tty(['NO_COLOR=1', process.execPath, CLI, ...args])];
    assert.equal(js.code, 1);
    assert.ok(!js.out.includes('\x1b['), 'NO_COLOR on a terminal');
    assert.equal(js.out, go.out, 'NO_COLOR on a terminal');
  }

  // Relative paths, read and written from the working directory.
  for (const args of [['run', '--inputs', 'x.json', '--save', 'rel.npz', 'chain.onnx'], ['compare', '--inputs', 'x.json', '--expected', 'rel.npz', 'chain.onnx'], ['check', 'ext/model.onnx']]) {
    const go = await sh(native, args, { cwd: dir });
    const js = await sh(process.execPath, [CLI, ...args], { cwd: dir });
    assert.equal(js.code, 0, `relative paths: ${args.join(' ')}: ${js.stderr}`);
    assert.equal(go.code, 0, `relative paths: ${args.join(' ')}: ${go.stderr}`);
    assert.equal(mask(js.stdout), mask(go.stdout), `relative paths: ${args.join(' ')}`);
  }

  // --save: the outputs as .npz; --save-values: every value as .npy, the
  // reference diverge reads (here from the planted model, against the good one).
  const gort = (await import('../dist/gort.mjs')).default;
  const saved = await sh(process.execPath, [CLI, 'run', ...data, '--save', p('out.npz'), '--save-values', p('values'), p('chain.onnx')]);
  assert.equal(saved.code, 0, saved.stderr);
  const npz = await gort.readNpy(await readFile(p('out.npz')));
  assert.deepEqual(Array.from(npz.y.data), REFERENCE.y);
  assert.deepEqual((await readdir(p('values'))).sort(), ['a.npy', 'b.npy', 'x.npy', 'y.npy']);
  for (const [k, want] of Object.entries(REFERENCE)) assert.deepEqual(Array.from((await gort.readNpy(await readFile(p(`values/${k}.npy`)))).data), want, k);
  const args = ['diverge', ...data, '--reference', p('values'), p('planted.onnx')];
  const [go, js] = [await sh(native, args), await sh(process.execPath, [CLI, ...args])];
  assert.equal(js.code, 1, js.stderr);
  assert.equal(js.stdout, go.stdout);
  assert.match(js.stdout, /first divergence at node scale/);
});

test('CLI: the installed package runs as `npx gort`', { timeout: 180000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gort-npx-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const packed = await sh('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: JS });
  assert.equal(packed.code, 0, packed.stderr);
  const tgz = join(dir, packed.stdout.trim().split('\n').pop());
  const app = join(dir, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), '{"name": "app", "version": "1.0.0", "private": true}\n');
  const installed = await sh('npm', ['install', '--no-audit', '--no-fund', '--offline', tgz], { cwd: app });
  assert.equal(installed.code, 0, installed.stderr);
  const native = join(dir, 'gort-native');
  const built = await sh(GO, ['build', '-o', native, './cmd/gort'], { cwd: ROOT, env: { ...process.env, GOTOOLCHAIN: process.env.GOTOOLCHAIN || 'auto' } });
  assert.equal(built.code, 0, built.stderr);
  const M = join(SQUEEZENET, 'model.onnx');
  for (const args of [['check', M], ['print', M], ['run', M], ['bench', '--help']]) {
    const js = await sh('npx', ['--no-install', 'gort', ...args], { cwd: app });
    const go = await sh(native, args);
    assert.equal(js.code, 0, `npx gort ${args.join(' ')}: ${js.stderr}`);
    assert.equal(mask(js.stdout), mask(go.stdout), `npx gort ${args.join(' ')}`);
  }
});
