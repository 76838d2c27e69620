// The headless-Chromium variant of the benchmark: one page, served with
// cross-origin isolation (onnxruntime-web's threaded wasm build needs
// SharedArrayBuffer), loads gort's ES module and onnxruntime-web's wasm
// build and runs them interleaved on a few models, on the page's thread.
// Chromium is Debian's (/usr/bin/chromium, as js/test.sh installs it),
// driven by playwright-core.
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize, relative } from 'node:path';

const types = { '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html', '.pb': 'application/octet-stream', '.onnx': 'application/octet-stream' };

// The page: hooks WebAssembly memories before either runtime loads, then
// exposes window.__bench(models, iters).
const page = `<!doctype html><meta charset="utf-8"><title>gort bench</title>
<script type="module">
const mems = { gort: [], ort: [] };
let current = 'gort';
const Orig = WebAssembly.Memory;
WebAssembly.Memory = new Proxy(Orig, { construct(t, a) { const m = Reflect.construct(t, a); mems[current].push(m); return m; } });
const grab = (r) => { const i = r && r.instance ? r.instance : r; if (i && i.exports) for (const v of Object.values(i.exports)) if (v instanceof Orig) mems[current].push(v); return r; };
for (const fn of ['instantiate', 'instantiateStreaming']) { const o = WebAssembly[fn]; WebAssembly[fn] = async function (...a) { return grab(await o.apply(this, a)); }; }
const peak = (k) => mems[k].reduce((m, x) => Math.max(m, x.buffer.byteLength), 0);
const { parseTensor } = await import('/tools/bench/js/tensorproto.mjs');
const gort = await import('/js/dist/gort.mjs');
current = 'ort';
const ort = await import('/tools/bench/js/node_modules/onnxruntime-web/dist/ort.wasm.min.mjs');
ort.env.wasm.numThreads = 1;
gort.env.wasm.numThreads = 1; // both on one thread (gort's default follows the cores too)
ort.env.wasm.proxy = false;
ort.env.logLevel = 'error';
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
async function timed(fn) { const t0 = performance.now(); const r = await fn(); return [performance.now() - t0, r]; }
window.__bench = async (models, iters) => {
  const out = [];
  for (const m of models) {
    const bytes = new Uint8Array(await (await fetch(m.url + '/model.onnx')).arrayBuffer());
    const inputs = [];
    for (let i = 0; ; i++) { const r = await fetch(m.url + '/test_data_set_0/input_' + i + '.pb'); if (!r.ok) break; inputs.push(parseTensor(new Uint8Array(await r.arrayBuffer()))); }
    const rts = { gort: { lib: gort, runs: [] }, ort: { lib: ort, runs: [] } };
    for (const [k, r] of Object.entries(rts)) {
      current = k;
      try {
        [r.create, r.s] = await timed(() => k === 'gort' ? gort.InferenceSession.create(bytes) : ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] }));
        r.feeds = {};
        inputs.forEach((t, i) => { r.feeds[r.s.inputNames[i]] = new r.lib.Tensor(t.type, t.data, t.dims); });
        [r.first] = await timed(() => r.s.run(r.feeds));
      } catch (e) { r.error = String(e && e.message || e).slice(0, 200); }
    }
    const slow = Math.max(1, ...Object.values(rts).filter((r) => !r.error).map((r) => r.first));
    const n = Math.max(iters.min, Math.min(iters.max, Math.floor(iters.budgetMs / slow)));
    for (let i = 0; i < n; i++) {
      for (const k of i % 2 ? ['ort', 'gort'] : ['gort', 'ort']) {
        const r = rts[k];
        if (r.error) continue;
        current = k;
        try { const [t] = await timed(() => r.s.run(r.feeds)); r.runs.push(t); } catch (e) { r.error = String(e && e.message || e).slice(0, 200); }
      }
    }
    const res = { name: m.name, n };
    for (const [k, r] of Object.entries(rts)) {
      res[k] = { create: r.create, first: r.first, median: r.runs.length ? med(r.runs) : null, memory: peak(k), error: r.error };
      if (r.s) await r.s.release();
    }
    res.ratio = res.gort.median && res.ort.median ? res.gort.median / res.ort.median : null;
    out.push(res);
  }
  return { models: out, ortVersion: ort.env.versions?.web, isolated: crossOriginIsolated };
};
window.__ready = true;
</script>`;

function serve(root) {
  const server = createServer((req, res) => {
    const headers = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp', 'Cache-Control': 'no-store' };
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path === '/bench.html') { res.writeHead(200, { ...headers, 'Content-Type': 'text/html' }); res.end(page); return; }
    const file = normalize(join(root, path));
    if (relative(root, file).startsWith('..') || !existsSync(file) || !statSync(file).isFile()) { res.writeHead(404, headers); res.end(); return; }
    res.writeHead(200, { ...headers, 'Content-Type': types[extname(file)] || 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

// Runs the models in Chromium; returns {version, ortVersion, models} or
// {error} when Chromium or playwright-core is missing.
export async function runBrowser({ root, models, quick }) {
  const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(chromiumPath)) return { error: `no Chromium at ${chromiumPath} (apt-get install chromium, or set CHROMIUM)` };
  let chromium;
  try { ({ chromium } = await import('playwright-core')); } catch (e) { return { error: `playwright-core: ${e.message}` }; }
  if (!models.length) return { error: 'none of its models is present' };
  const server = await serve(root);
  const profile = mkdtempSync(join(tmpdir(), 'gort-bench-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    });
    const p = await context.newPage();
    const logs = [];
    p.on('pageerror', (e) => logs.push(e.message));
    p.on('console', (m) => { if (m.type() === 'error') logs.push(m.text()); });
    await p.goto(`http://127.0.0.1:${server.address().port}/bench.html`);
    try { await p.waitForFunction(() => window.__ready === true, null, { timeout: 120000 }); } catch { return { error: `page did not load: ${logs.join('; ')}` }; }
    const iters = quick ? { min: 2, max: 3, budgetMs: 3000 } : { min: 5, max: 15, budgetMs: 15000 };
    const list = models.map((m) => ({ name: m.name, url: '/' + relative(root, m.dir).split('\\').join('/') }));
    const res = await p.evaluate(([l, it]) => window.__bench(l, it), [list, iters]);
    return { version: `Chromium ${context.browser()?.version() ?? ''}`.trim(), ...res };
  } catch (e) {
    return { error: String(e.message || e).split('\n')[0] };
  } finally {
    if (context) await context.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
