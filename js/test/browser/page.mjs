// The in-page half of js/test/browser.test.mjs. The page loads gort either as
// an ES module or through a classic <script> (then it is the global `gort`),
// runs the squeezenet bench model fetched by URL and compares its output
// with the expected output of its test data set. Results go to
// window.__gortResult for Playwright to read. External file, not inline:
// the pages are served under a CSP of script-src 'self' 'wasm-unsafe-eval'.
import { compare } from '/test/compare.mjs';

const params = new URLSearchParams(location.search);
const mode = params.get('mode'); // esm | classic | proxy
const violations = [];
document.addEventListener('securitypolicyviolation', (e) => violations.push(`${e.violatedDirective} ${e.blockedURI}`));

async function main() {
  const gort = mode === 'classic' ? globalThis.gort : (await import('/dist/gort.mjs')).default;
  if (!gort) throw new Error('global gort is not defined');
  if (mode === 'proxy') gort.env.wasm.proxy = true;
  const base = '/squeezenet/';
  const progress = [];
  const t0 = performance.now();
  const session = await gort.InferenceSession.create(`${base}model.onnx`, {
    executionProviders: ['wasm'],
    onProgress: (loaded, total) => progress.push([loaded, total]),
  });
  const t1 = performance.now();
  const bytes = async (f) => new Uint8Array(await (await fetch(base + f)).arrayBuffer());
  const input = await gort._decodeValue(await bytes('test_data_set_0/input_0.pb'));
  const want = await gort._decodeValue(await bytes('test_data_set_0/output_0.pb'));
  // Count main-thread timer ticks during the run: with the proxy the page's
  // thread stays free; without it, the run yields to the event loop.
  let ticks = 0;
  const iv = setInterval(() => { ticks++; }, 10);
  const t2 = performance.now();
  const out = await session.run({ [session.inputNames[0]]: input });
  const t3 = performance.now();
  clearInterval(iv);
  const diff = compare(out[session.outputNames[0]], want, { rtol: 1e-3, atol: 1e-5 });
  // Abort mid-run.
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 30);
  const ta = performance.now();
  const err = await session.run({ [session.inputNames[0]]: input }, { signal: ac.signal }).then(() => null, (e) => e);
  const abortMs = performance.now() - ta - 30;
  // Errors keep their code across the worker boundary.
  const bad = await session.run({}).then(() => null, (e) => e);
  // Yield cost: the same run never yielding, and yielding between every node.
  const yieldCost = {};
  if (mode === 'esm') {
    const times = { never: [], '10ms': [], '0ms': [] };
    for (let round = 0; round < 3; round++) {
      for (const [k, ms] of [['never', 1e9], ['10ms', 10], ['0ms', 0]]) {
        gort.env.wasm.yieldIntervalMs = ms;
        const s0 = performance.now();
        await session.run({ [session.inputNames[0]]: input });
        times[k].push(performance.now() - s0);
      }
    }
    gort.env.wasm.yieldIntervalMs = 10;
    for (const k of Object.keys(times)) yieldCost[k] = Math.round(times[k].sort((a, b) => a - b)[1]);
  }
  await session.release();
  const spinAbort = await abortMidGraph(mode);
  return {
    spinAbort,
    yieldCost,
    ok: diff === '' && spinAbort.every((l) => l.code === 'GORT_ABORTED' && l.afterAbortMs < 100) && (!err || err.code === 'GORT_ABORTED') && bad && bad.code === 'GORT_INVALID_FEED' && violations.length === 0,
    diff,
    dims: out[session.outputNames[0]].dims,
    loadMs: Math.round(t1 - t0),
    runMs: Math.round(t3 - t2),
    ticksDuringRun: ticks,
    progressCalls: progress.length,
    lastProgress: progress.at(-1),
    abort: err ? { code: err.code, latencyMs: Math.round(abortMs) } : 'the run finished before the abort',
    badFeedCode: bad && bad.code,
    violations,
    globalsLeaked: ['Go', 'fs', 'process', 'path'].filter((k) => k in globalThis),
  };
}

// A 5 s graph of 5 ms nodes (test-only op gort.test.Spin, from
// gort-test.wasm in a second instance of the package): aborted after 200 ms,
// it must reject within 100 ms of the intended time.
async function abortMidGraph(mode) {
  const gt = (await import('/dist/gort.mjs?instance=test')).default;
  gt.env.wasmPaths = '/dist/gort-test.wasm';
  if (mode === 'proxy') gt.env.wasm.proxy = true;
  const { model } = await import('/test/onnx.mjs');
  const f32 = (name) => ({ name, type: { tensor: 'float32', shape: [1] } });
  const n = 1000;
  const s = await gt.InferenceSession.create(model({
    inputs: [f32('x')], outputs: [f32(`v${n}`)], opsets: { '': 17, 'gort.test': 1 },
    nodes: Array.from({ length: n }, (_, i) => ({ op: 'Spin', domain: 'gort.test', attrs: { ms: 5 }, inputs: [i ? `v${i}` : 'x'], outputs: [`v${i + 1}`] })),
  }));
  const x = new gt.Tensor('float32', new Float32Array([1]), [1]);
  const out = [];
  for (let k = 0; k < 3; k++) {
    const ac = new AbortController();
    const t0 = performance.now();
    let firedAt = 0;
    setTimeout(() => { firedAt = performance.now(); ac.abort(); }, 200);
    const e = await s.run({ x }, { signal: ac.signal }).then(() => ({ code: 'finished' }), (err) => err);
    const t1 = performance.now();
    out.push({ code: e.code, afterAbortMs: Math.round(t1 - firedAt), afterIntendedMs: Math.round(t1 - t0 - 200) });
  }
  await s.release();
  return out;
}

main().then((r) => { window.__gortResult = r; }, (e) => { window.__gortResult = { ok: false, error: `${e && e.code} ${e && e.stack ? e.stack : e}` }; });
