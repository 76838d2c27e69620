// The ONNX node conformance suite (testdata/onnx-node) run through gort's
// public JS API in Node, held to the same manifest as the native Go suite
// (testdata/conformance/manifest.txt, read at test time): "pass" cases must
// pass and "fail" cases must fail. Test data (.pb files) is decoded by the
// wasm module's internal decoder so that expected values go through the same
// Go → JS conversion as real outputs.
//
// GORT_CASES=regexp runs only matching cases and just reports them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, access } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import gort from '../dist/gort.mjs';
import { compare, DEFAULT_TOL } from './compare.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SUITE = join(ROOT, 'testdata', 'onnx-node', 'node');
const MANIFEST = join(ROOT, 'testdata', 'conformance', 'manifest.txt');
const TOLERANCES = join(ROOT, 'testdata', 'conformance', 'tolerances.txt');

// Per-case tolerances, with their reasons, in the file the Go harness reads too.
async function caseTolerances() {
  const out = new Map();
  for (const [i, raw] of (await readFile(TOLERANCES, 'utf8')).split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = line.match(/^(\S+) rtol=(\S+) atol=(\S+) #\s*\S/);
    const r = line.match(/^(\S+) random #\s*\S/);
    if (m) out.set(m[1], { rtol: Number(m[2]), atol: Number(m[3]) });
    else if (r) out.set(r[1], { structureOnly: true });
    else throw new Error(`${TOLERANCES}:${i + 1}: want "<case> rtol=<r> atol=<a> # <why>" or "<case> random # <why>", got ${JSON.stringify(line)}`);
  }
  return out;
}

// As runtime/conformance.RandomReason: a "random" case never counts as a pass.
const RANDOM_REASON = 'random: expected values are RNG draws the spec does not fix; only dtype and shape are checked';

const exists = (p) => access(p).then(() => true, () => false);
const decodeKind = (kind) => (kind.startsWith('optional') ? 'optional' : kind === 'sequence' ? 'sequence' : 'tensor');
const oneLine = (e) => String(e && e.message ? e.message : e).replace(/\n/g, ' ').slice(0, 200);

let quickRuns = 0;

async function runCase(dir, tol, level) {
  let session;
  try {
    session = await gort.InferenceSession.create(await readFile(join(dir, 'model.onnx')), { logSeverityLevel: 4, graphOptimizationLevel: level });
  } catch (e) {
    return oneLine(e);
  }
  try {
    const meta = new Map(session.inputMetadata.map((m) => [m.name, m]));
    const sets = (await readdir(dir)).filter((d) => d.startsWith('test_data_set_')).sort();
    if (!sets.length) return 'no test_data_set_*';
    for (const set of sets) {
      const feeds = {};
      for (const [i, name] of session._graphInputs.entries()) {
        const f = join(dir, set, `input_${i}.pb`);
        if (!(await exists(f))) continue; // omitted optional input
        const m = meta.get(name);
        try {
          feeds[name] = await gort._decodeValue(await readFile(f), decodeKind(m ? m.kind : 'tensor'));
        } catch (e) {
          return `input ${name}: ${oneLine(e)}`;
        }
      }
      // With rewrites on, each set runs twice: the first run goes through
      // the bridge's run(), the second through the quick path
      // (src/backends/quick.js) where the case allows it.
      for (let pass = 0; pass < (level === 'all' ? 2 : 1); pass++) {
        let got;
        try {
          got = await session.run(feeds);
        } catch (e) {
          return `${pass ? 'second run: ' : ''}${oneLine(e)}`;
        }
        for (const [i, m] of session.outputMetadata.entries()) {
          let want;
          try {
            want = await gort._decodeValue(await readFile(join(dir, set, `output_${i}.pb`)), decodeKind(m.kind));
          } catch (e) {
            return `expected output ${m.name}: ${oneLine(e)}`;
          }
          const d = compare(got[m.name], want, tol);
          if (d) return `${pass ? 'second run: ' : ''}output "${m.name}": ${d}`;
        }
      }
    }
    return tol.structureOnly ? RANDOM_REASON : '';
  } finally {
    quickRuns += session._info.quickRuns || 0;
    await session.release();
  }
}

async function readManifest() {
  const m = new Map();
  for (const line of (await readFile(MANIFEST, 'utf8')).split('\n')) {
    const l = line.trim();
    if (!l || l.startsWith('#')) continue;
    const sp = l.indexOf(' ');
    m.set(l.slice(0, sp), l.slice(sp + 1));
  }
  return m;
}

// The suite runs with the plan's rewrites off and on, held to one manifest.
for (const level of ['disabled', 'all']) test(`node conformance suite through the JS API matches the manifest (graphOptimizationLevel ${level})`, { timeout: 30 * 60 * 1000 }, async (t) => {
  const filter = process.env.GORT_CASES ? new RegExp(process.env.GORT_CASES) : null;
  const cases = (await readdir(SUITE)).filter((d) => d.startsWith('test_') && (!filter || filter.test(d))).sort();
  assert.ok(cases.length > 0, `no cases under ${SUITE}`);
  const t0 = Date.now();
  const tolerances = await caseTolerances();
  const got = new Map();
  for (const c of cases) got.set(c, await runCase(join(SUITE, c), tolerances.get(c) || DEFAULT_TOL, level));
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  const passed = [...got.values()].filter((r) => r === '').length;
  t.diagnostic(`conformance (js, ${level}): ${passed} passed, ${got.size - passed} failed, ${secs} s`);
  console.log(`conformance (js, ${level}): ${passed} passed, ${got.size - passed} failed, ${secs} s`);
  if (filter) {
    for (const [c, r] of got) console.log(r ? `FAIL ${c}: ${r}` : `pass ${c}`);
    return;
  }
  // Most cases' second runs took the quick path (cases with string or
  // sequence feeds, or that failed their first run, do not).
  if (level === 'all') assert.ok(quickRuns > 1500, `only ${quickRuns} runs took the quick path`);
  const want = await readManifest();
  const problems = [];
  for (const [c, r] of got) {
    const w = want.get(c);
    if (w === undefined) problems.push(`${c}: missing from the manifest (${r ? 'fail: ' + r : 'pass'})`);
    else if (w === 'pass' && r) problems.push(`${c}: listed pass, but fails: ${r}`);
    else if (w !== 'pass' && !r) problems.push(`${c}: listed "${w}", but it passes`);
  }
  for (const c of want.keys()) if (!got.has(c)) problems.push(`${c}: in the manifest but not in the suite`);
  problems.sort();
  const shown = problems.slice(0, 40).join('\n');
  assert.equal(problems.length, 0, `${problems.length} cases disagree with the manifest` +
    ` (${problems.filter((p) => p.includes('but it passes')).length} listed fail but pass,` +
    ` ${problems.filter((p) => p.includes('listed pass')).length} listed pass but fail):\n${shown}` +
    (problems.length > 40 ? `\n... and ${problems.length - 40} more (GORT_CASES=regexp lists results)` : ''));
});
