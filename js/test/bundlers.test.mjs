// gort as users install it: `npm pack`'s tarball in a fresh app with real
// bundlers from npm, and a library written against onnxruntime with gort
// installed in onnxruntime's place.
//
//   bundlers   test/fixtures/app (import * as gort from 'gort', no wasmPaths)
//              built by Vite 5 (production build, and its dev server), webpack 5,
//              esbuild and Rollup, each run in headless Chromium, in-thread and
//              with the proxy Worker, asserting the model's result
//   drop-in    test/fixtures/ortlib imports InferenceSession from onnxruntime-web
//              (and onnxruntime-node) and builds its inputs with
//              onnxruntime-common's Tensor; package.json `overrides` install gort
//              as both. It runs inside every bundled app and in Node (ESM, CJS)
//   types      tsc --noEmit on test/types/usage.ts against the packed index.d.ts
//
// The packages are installed into a temporary directory by this test (npm's
// cache makes reruns fast). GORT_BUNDLER_APP=dir keeps (or reuses) the app
// there instead, for debugging.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile, writeFile, mkdtemp, mkdir, rm, cp, stat, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname, normalize, extname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { model } from './onnx.mjs';

const run = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
const JS = join(HERE, '..');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };

// Pinned so that a new release of a bundler cannot change what this test means.
const VERSIONS = {
  vite: '5.4.21', webpack: '5.102.1', 'webpack-cli': '5.1.4', esbuild: '0.25.12', rollup: '4.52.5',
  '@rollup/plugin-node-resolve': '16.0.3', typescript: '5.9.3', 'onnxruntime-common': '1.30.0',
};

let TMP;
let APP;
let keep = false;

const sh = async (cmd, args, opts = {}) => {
  try {
    return await run(cmd, args, { cwd: APP, maxBuffer: 64 << 20, ...opts });
  } catch (e) {
    throw new Error(`${cmd} ${args.join(' ')} failed:\n${e.stdout || ''}\n${e.stderr || ''}`);
  }
};
const npx = (...args) => sh('npx', ['--no-install', ...args]);

// Inputs [1,2,3] + [10,20,30] for the app; the fixture library adds [1,2,3] + [0.5,0.25,0.125].
const WANT_SUM = [11, 22, 33];
const WANT_LIB = [1.5, 2.25, 3.125];

async function setup() {
  if (process.env.GORT_BUNDLER_APP) {
    TMP = process.env.GORT_BUNDLER_APP;
    keep = true;
  } else {
    TMP = await mkdtemp(join(tmpdir(), 'gort-bundlers-'));
  }
  APP = join(TMP, 'app');
  await mkdir(APP, { recursive: true });
  // The packages exactly as npm would publish them.
  const pack = async (dir) => (await sh('npm', ['pack', '--silent', '--pack-destination', TMP, dir], { cwd: JS })).stdout.trim().split('\n').pop();
  const gortTgz = await pack('.');
  const libTgz = await pack('./test/fixtures/ortlib');
  const { vite, webpack, esbuild, rollup, typescript } = VERSIONS;
  const pkg = {
    name: 'gort-bundler-app', private: true, type: 'module',
    dependencies: { gort: `file:../${gortTgz}`, ortlib: `file:../${libTgz}`, 'onnxruntime-common': VERSIONS['onnxruntime-common'] },
    devDependencies: { vite, webpack, 'webpack-cli': VERSIONS['webpack-cli'], esbuild, rollup, '@rollup/plugin-node-resolve': VERSIONS['@rollup/plugin-node-resolve'], typescript },
    // The drop-in: whatever asks for onnxruntime-web or onnxruntime-node gets gort.
    overrides: { 'onnxruntime-web': '$gort', 'onnxruntime-node': '$gort' },
  };
  await writeFile(join(APP, 'package.json'), JSON.stringify(pkg, null, 2));
  await cp(join(HERE, 'fixtures', 'app'), APP, { recursive: true });
  await sh('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline']);
  const f = (name) => ({ name, type: { tensor: 'float32', shape: [3] } });
  const bytes = model({ inputs: [f('x'), f('y')], outputs: [f('z')], nodes: [{ op: 'Add', inputs: ['x', 'y'], outputs: ['z'] }] });
  await writeFile(join(APP, 'model.js'), `export default new Uint8Array([${bytes.join(',')}]);\n`);
  await writeFile(join(APP, 'model.onnx'), bytes);
}

before(setup, { timeout: 240000 });
after(async () => { if (!keep && TMP) await rm(TMP, { recursive: true, force: true }); });

test('drop-in: the onnxruntime-web/-node names resolve to gort', async () => {
  for (const name of ['onnxruntime-web', 'onnxruntime-node']) {
    const p = JSON.parse(await readFile(join(APP, 'node_modules', name, 'package.json'), 'utf8'));
    assert.equal(p.name, 'gort', `${name} is ${p.name}`);
  }
});

test('drop-in: a library written for onnxruntime-node runs on gort in Node (ESM and CommonJS)', async () => {
  const modelPath = join(APP, 'model.onnx');
  const esm = `import { addVectors } from 'ortlib/node'; console.log(JSON.stringify(await addVectors(${JSON.stringify(modelPath)}, [1, 2, 3], [0.5, 0.25, 0.125])));`;
  const cjs = `require('ortlib/node').addVectors(${JSON.stringify(modelPath)}, [1, 2, 3], [0.5, 0.25, 0.125]).then((r) => console.log(JSON.stringify(r)));`;
  await writeFile(join(APP, 'lib-node.mjs'), esm);
  await writeFile(join(APP, 'lib-node.cjs'), cjs);
  for (const f of ['lib-node.mjs', 'lib-node.cjs']) {
    const { stdout } = await sh(process.execPath, [f]);
    assert.deepEqual(JSON.parse(stdout), WANT_LIB, f);
  }
  // onnxruntime-web's subpath entries ('onnxruntime-web/webgpu', ...) are gort too.
  const { stdout } = await sh(process.execPath, ['--input-type=module', '-e',
    "for (const s of ['onnxruntime-web/webgpu', 'onnxruntime-web/wasm', 'onnxruntime-web/all']) console.log((await import(s)).env.versions.gort);"]);
  const { version } = JSON.parse(await readFile(join(JS, 'package.json'), 'utf8'));
  assert.deepEqual(stdout.trim().split('\n'), [version, version, version]);
});

test('types: index.d.ts checks with tsc --noEmit against a typed usage file', async () => {
  await cp(join(HERE, 'types'), join(APP, 'types'), { recursive: true });
  await npx('tsc', '--noEmit', '-p', 'types/tsconfig.json');
  // And the checker can fail: a misuse is reported.
  await writeFile(join(APP, 'types', 'misuse.ts'), "import { InferenceSession } from 'gort';\nInferenceSession.create('m.onnx', { graphOptimizationLevel: 'fastest' });\n");
  await assert.rejects(npx('tsc', '--noEmit', '-p', 'types/tsconfig.json'), /misuse\.ts.*graphOptimizationLevel|fastest/s);
  await rm(join(APP, 'types', 'misuse.ts'));
});

// ------------------------------------------------------------------ bundlers in Chromium

// Builds each app; returns {name: directory with index.html}.
async function buildAll() {
  const out = {};
  await npx('vite', 'build', '--outDir', 'out-vite', '--logLevel', 'warn');
  out.vite = join(APP, 'out-vite');
  // webpack: no config file at all; the page loads its (classic) bundle.
  await npx('webpack', '--mode', 'production', '--entry', './main.js', '--output-path', 'out-webpack');
  await writeFile(join(APP, 'out-webpack', 'index.html'), '<!doctype html><meta charset="utf-8"><script src="./main.js"></script>\n');
  out.webpack = join(APP, 'out-webpack');
  // esbuild and Rollup keep new URL('./gort.wasm', import.meta.url) as it is,
  // which points next to the bundle: the app ships the package's two files there.
  await npx('esbuild', 'main.js', '--bundle', '--format=esm', '--outfile=out-esbuild/main.js', '--log-level=warning');
  await npx('rollup', 'main.js', '--format', 'es', '--dir', 'out-rollup', '--plugin', '@rollup/plugin-node-resolve', '--silent');
  for (const b of ['esbuild', 'rollup']) {
    const dir = join(APP, `out-${b}`);
    for (const f of ['gort.wasm', 'gort.worker.mjs']) await cp(join(APP, 'node_modules', 'gort', 'dist', f), join(dir, f));
    await writeFile(join(dir, 'index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="./main.js"></script>\n');
    out[b] = dir;
  }
  return out;
}

// A static server for one built app, at the root of its own origin (as
// Vite's default base '/' expects).
function serve(root) {
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      let file = normalize(join(root, path));
      if (!file.startsWith(root)) throw new Error('outside');
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

test('bundlers: Vite 5 (build and dev server), webpack 5, esbuild and Rollup apps run gort in Chromium with no wasmPaths', {
  timeout: 300000, skip: process.env.GORT_SKIP_BROWSER === '1' && 'GORT_SKIP_BROWSER=1',
}, async (t) => {
  await stat(CHROMIUM);
  const t0 = Date.now();
  const dirs = await buildAll();
  console.log(`bundlers: built ${Object.keys(dirs).join(', ')} in ${Date.now() - t0} ms`);
  // The wasm was emitted by the bundlers that follow new URL(): no copy by hand.
  for (const b of ['vite', 'webpack']) {
    const files = (await readdir(dirs[b], { recursive: true })).filter((f) => f.endsWith('.wasm'));
    assert.ok(files.length >= 1, `${b} emitted no .wasm`);
  }
  const urls = {};
  for (const [b, dir] of Object.entries(dirs)) {
    const server = await serve(dir);
    t.after(() => server.close());
    urls[b] = `http://127.0.0.1:${server.address().port}/`;
  }
  const vite = await import(pathToFileURL(join(APP, 'node_modules', 'vite', 'dist', 'node', 'index.js')).href);
  const dev = await vite.createServer({ root: APP, configFile: false, logLevel: 'error', server: { port: 0, host: '127.0.0.1' }, clearScreen: false });
  await dev.listen();
  t.after(() => dev.close());
  const devUrl = dev.resolvedUrls.local[0];

  const profile = await mkdtemp(join(tmpdir(), 'gort-chromium-'));
  t.after(() => rm(profile, { recursive: true, force: true }));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  t.after(() => context.close());
  const pages = Object.entries(urls).concat([['vite dev', devUrl]]);
  for (const [name, url] of pages) {
    for (const proxy of [false, true]) {
      const p = await context.newPage();
      const logs = [];
      p.on('console', (m) => logs.push(`${m.type()}: ${m.text()}`));
      p.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));
      p.on('requestfailed', (r) => logs.push(`requestfailed: ${r.url()}`));
      const s0 = Date.now();
      await p.goto(`${url}?proxy=${proxy ? 1 : 0}`);
      await p.waitForFunction(() => window.__gortResult !== undefined, null, { timeout: 30000 }).catch(() => {});
      const r = await p.evaluate(() => window.__gortResult);
      const mode = proxy ? 'proxy Worker' : 'in-thread';
      console.log(`bundlers: ${name} (${mode}): ${JSON.stringify(r)} in ${Date.now() - s0} ms`);
      assert.ok(r && r.ok, `${name} (${mode}): ${JSON.stringify(r)}\n${logs.join('\n')}`);
      assert.deepEqual(r.sum, WANT_SUM, `${name} (${mode})`);
      if (!proxy) {
        // The onnxruntime-web library, on gort, fed onnxruntime-common's own Tensor class.
        assert.deepEqual(r.lib.sum, WANT_LIB, `${name}: ortlib`);
        assert.equal(r.lib.sameClass, false);
      }
      await p.close();
    }
  }
  // A gort.wasm that cannot be fetched: its own code, the URL tried, and what to set.
  const p = await context.newPage();
  await p.goto(`${urls.vite}?wasmPaths=/missing/`);
  await p.waitForFunction(() => window.__gortResult !== undefined, null, { timeout: 30000 });
  const r = await p.evaluate(() => window.__gortResult);
  assert.equal(r.code, 'GORT_WASM_FETCH', JSON.stringify(r));
  assert.match(r.error, /tried http:\/\/127\.0\.0\.1:\d+\/missing\/gort\.wasm \(HTTP 404.*env\.wasmPaths/);
  await p.close();
});
