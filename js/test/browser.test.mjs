// Browser test: Debian's chromium driven by playwright-core, pages served by
// a local static server on 127.0.0.1 under a CSP of
// script-src 'self' 'wasm-unsafe-eval' (no eval, no blob: workers). gort is
// loaded as an ES module, through a classic <script>, and in proxy (module
// Worker) mode; each runs the squeezenet bench model and checks its output
// against the expected output of its test data set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname, normalize, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const JS = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = join(JS, '..');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const MOUNTS = { '/dist/': join(JS, 'dist'), '/test/': join(JS, 'test'), '/squeezenet/': join(ROOT, 'testdata', 'bench', 'test_squeezenet') };
const TYPES = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.onnx': 'application/octet-stream', '.pb': 'application/octet-stream' };
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

function serve() {
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      const mount = Object.keys(MOUNTS).find((m) => path.startsWith(m));
      if (!mount) throw new Error('not found');
      const file = normalize(join(MOUNTS[mount], path.slice(mount.length)));
      if (!file.startsWith(MOUNTS[mount])) throw new Error('outside');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream', 'content-length': body.length, 'content-security-policy': CSP, 'cache-control': 'no-store' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

// launch serves the package and starts headless Chromium (extra flags
// added), both closed when the test ends.
async function launch(t, extraArgs) {
  await stat(CHROMIUM);
  const server = await serve();
  t.after(() => server.close());
  const profile = await mkdtemp(join(tmpdir(), 'gort-chromium-'));
  t.after(() => rm(profile, { recursive: true, force: true }));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', ...extraArgs, '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  t.after(() => context.close());
  return { base: `http://127.0.0.1:${server.address().port}`, context };
}

test('browser: squeezenet via ES module, classic <script> and proxy Worker, under a strict CSP', { timeout: 240000 }, async (t) => {
  const { base, context } = await launch(t, []);
  for (const [page, mode] of [['esm', 'esm'], ['classic', 'classic'], ['esm', 'proxy']]) {
    const p = await context.newPage();
    const logs = [];
    p.on('console', (m) => logs.push(`${m.type()}: ${m.text()}`));
    p.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));
    await p.goto(`${base}/test/browser/${page}.html?mode=${mode}`);
    await p.waitForFunction(() => window.__gortResult !== undefined, null, { timeout: 180000 });
    const r = await p.evaluate(() => window.__gortResult);
    console.log(`browser ${mode}: ${JSON.stringify(r)}`);
    assert.ok(r.ok, `${mode}: ${JSON.stringify(r)}\n${logs.join('\n')}`);
    assert.deepEqual(r.dims, [1, 1000, 1, 1]);
    assert.deepEqual(r.globalsLeaked, []);
    assert.ok(r.progressCalls > 0 && r.lastProgress[0] === r.lastProgress[1]);
    // Squeezenet: without the proxy an abort lands at the next checkpoint
    // (between nodes, and between a Conv's GEMM blocks): ~35 ms measured on
    // the 2-core development machine; the bound leaves room for a loaded CI
    // machine. With the proxy the page's promise rejects at once.
    if (typeof r.abort === 'object') assert.ok(r.abort.latencyMs < (mode === 'proxy' ? 100 : 500), `${mode}: abort took ${r.abort.latencyMs} ms`);
    if (mode === 'proxy') assert.ok(r.ticksDuringRun >= r.runMs / 10 / 3, `proxy: the page's thread was blocked (${r.ticksDuringRun} ticks in ${r.runMs} ms)`);
    await p.close();
  }
});

// Threads in a page served without COOP/COEP (so no SharedArrayBuffer):
// two threads, the second a module Worker, give one thread's bits.
test('browser: threads as module Workers, without cross-origin isolation', { timeout: 120000 }, async (t) => {
  const { base, context } = await launch(t, []);
  const p = await context.newPage();
  const logs = [];
  p.on('console', (m) => logs.push(`${m.type()}: ${m.text()}`));
  p.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));
  await p.goto(`${base}/test/browser/threads.html`);
  await p.waitForFunction(() => window.__gortResult !== undefined, null, { timeout: 90000 });
  const r = await p.evaluate(() => window.__gortResult);
  console.log(`browser threads: ${JSON.stringify(r)}`);
  assert.ok(!r.error, `${r.error}\n${logs.join('\n')}`);
  assert.equal(r.crossOriginIsolated, false);
  assert.equal(r.threads, 2);
  assert.ok(r.parts >= 3, `only ${r.parts} parts went to the worker`);
  assert.ok(r.same, 'two threads gave other bits than one');
});

// WebGPU through the public API, on Chromium's software adapter
// (SwiftShader, --enable-unsafe-webgpu): the plan places squeezenet's nodes
// on the GPU, session.executionProviders says so, and the output matches.
test('browser: squeezenet with executionProviders webgpu (SwiftShader)', { timeout: 300000 }, async (t) => {
  const { base, context } = await launch(t, ['--enable-unsafe-webgpu']);
  const p = await context.newPage();
  const logs = [];
  p.on('console', (m) => logs.push(`${m.type()}: ${m.text()}`));
  await p.goto(`${base}/test/browser/webgpu.html`);
  await p.waitForFunction(() => window.__gortResult !== undefined, null, { timeout: 280000 });
  const r = await p.evaluate(() => window.__gortResult);
  console.log(`browser webgpu: ${JSON.stringify(r)}`);
  assert.ok(r.ok, `${JSON.stringify(r)}\n${logs.join('\n')}`);
});
