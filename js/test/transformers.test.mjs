// transformers.js (npm @huggingface/transformers) as a client of gort: its
// pipelines, with gort installed in onnxruntime-node's place, against the same
// pipelines on the real onnxruntime-node. See docs/transformersjs.md.
//
//   models     `go run ./tools/genmodels -tfjs` writes a tiny BERT and a tiny
//              GPT-2 (KV cache), each in fp32 and q8 (dynamic int8), and a
//              tiny Llama-style decoder of onnxruntime contrib ops in q4, with
//              tokenizers, in the folder layout transformers.js reads from
//              env.localModelPath; remote models are off, so nothing comes
//              from the Hugging Face hub
//   gort app   transformers.js + the packed gort, npm overrides turning
//              onnxruntime-node and onnxruntime-web into gort
//   ort app    transformers.js + its own onnxruntime-node (CPU binaries ship in
//              the npm package; ONNXRUNTIME_NODE_INSTALL=skip stops its
//              postinstall from fetching more)
//   both       sharp (native image library, unused by text pipelines) is a stub
//
// fixtures/transformersjs/run.mjs runs in each app; this test compares what
// they print: feature-extraction embeddings and the prompt's logits within
// 1e-4, the generated token ids and text identical.
//   webgpu     the gort app once more, fp32 BERT and GPT-2 only, with
//              transformers.js's device: 'webgpu' (executionProviders
//              ['webgpu'], gort's default placement), on Node + Dawn (npm
//              `webgpu@0.6.2`, installed into .webgpu-tools/ as
//              tools/webgpu/ci-webgpu.sh does) + SwiftShader (Debian chromium,
//              which js/test.sh installs): the same comparisons against the
//              gort app's CPU run, and nodes really placed on the GPU. Skipped,
//              saying why, without SwiftShader's Vulkan ICD. GORT_TFJS_ITERATIONS=N adds timings of both
// runtimes (reported as diagnostics). GORT_TFJS_DIR=dir keeps (or reuses) the
// apps there instead of a temporary directory, for debugging.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdtemp, mkdir, rm, cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
const JS = join(HERE, '..');
const ROOT = join(JS, '..');
const FIXTURE = join(HERE, 'fixtures', 'transformersjs');

// Pinned: transformers.js and the onnxruntime-node it pins; onnxruntime-common
// is what transformers.js imports its Tensor from (a dependency of
// onnxruntime-node, so the gort app lists it itself).
const VERSIONS = { transformers: '4.3.2', 'onnxruntime-common': '1.30.0' };
const TOLERANCE = 1e-4;

// The npm `webgpu` (Dawn for Node) and the Vulkan ICD of SwiftShader, as tools/webgpu/ci-webgpu.sh uses them.
const WEBGPU = { version: '0.6.2', tools: process.env.WEBGPU_TOOLS_DIR || join(ROOT, '.webgpu-tools') };
const ICD = process.env.VK_ICD_FILENAMES || '/usr/lib/chromium/vk_swiftshader_icd.json';
const noWebGPU = existsSync(ICD) ? false : `no Vulkan ICD for SwiftShader at ${ICD} (Debian chromium installs it)`;

let TMP;
let keep = false;
const results = {};

const sh = async (cmd, args, opts = {}) => {
  try {
    return await run(cmd, args, { maxBuffer: 256 << 20, ...opts });
  } catch (e) {
    throw new Error(`${cmd} ${args.join(' ')} failed:\n${e.stdout || ''}\n${e.stderr || ''}`);
  }
};

async function app(name, pkg) {
  const dir = join(TMP, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module', ...pkg }, null, 2));
  await cp(join(FIXTURE, 'run.mjs'), join(dir, 'run.mjs'));
  await sh('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline'], {
    cwd: dir, env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' },
  });
  return dir;
}

async function setup() {
  if (process.env.GORT_TFJS_DIR) {
    TMP = process.env.GORT_TFJS_DIR;
    keep = true;
    await mkdir(TMP, { recursive: true });
  } else {
    TMP = await mkdtemp(join(tmpdir(), 'gort-tfjs-'));
  }
  const models = join(TMP, 'models');
  await sh(process.env.GO || 'go', ['run', './tools/genmodels', '-tfjs', '-out', models], {
    cwd: ROOT, env: { GOTOOLCHAIN: 'auto', ...process.env },
  });
  for (const stub of ['sharp-stub', 'unused-stub']) await cp(join(FIXTURE, stub), join(TMP, stub), { recursive: true });
  const gortTgz = (await sh('npm', ['pack', '--silent', '--pack-destination', TMP, '.'], { cwd: JS })).stdout.trim().split('\n').pop();
  const transformers = { '@huggingface/transformers': VERSIONS.transformers };
  const [gortApp, ortApp] = await Promise.all([
    app('gort-app', {
      dependencies: { ...transformers, gort: `file:../${gortTgz}`, 'onnxruntime-common': VERSIONS['onnxruntime-common'], sharp: 'file:../sharp-stub' },
      overrides: { 'onnxruntime-node': '$gort', 'onnxruntime-web': '$gort', sharp: '$sharp' },
    }),
    app('ort-app', {
      dependencies: { ...transformers, sharp: 'file:../sharp-stub', 'onnxruntime-web': 'file:../unused-stub' },
      overrides: { sharp: '$sharp', 'onnxruntime-web': '$onnxruntime-web' },
    }),
  ]);
  const iterations = process.env.GORT_TFJS_ITERATIONS || '0';
  for (const [name, dir] of [['gort', gortApp], ['ort', ortApp]]) {
    const { stdout } = await sh(process.execPath, ['run.mjs', models, iterations], { cwd: dir });
    results[name] = JSON.parse(stdout.trim().split('\n').pop());
  }
  if (!noWebGPU) {
    await ensureWebGPU();
    const xdg = join(TMP, 'xdg');
    await mkdir(xdg, { recursive: true, mode: 0o700 });
    const t0 = Date.now();
    const { stdout } = await sh(process.execPath, ['run.mjs', models, iterations, 'webgpu'], {
      cwd: gortApp,
      env: {
        ...process.env,
        GORT_WEBGPU_TOOLS: WEBGPU.tools,
        VK_ICD_FILENAMES: ICD,
        LD_LIBRARY_PATH: [process.env.LD_LIBRARY_PATH, '/usr/lib/chromium'].filter(Boolean).join(':'),
        XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR || xdg,
      },
    });
    results.webgpu = JSON.parse(stdout.trim().split('\n').pop());
    results.webgpuMs = Date.now() - t0;
  }
}

// npm `webgpu` into .webgpu-tools/ (or WEBGPU_TOOLS_DIR) when missing, as tools/webgpu/ci-webgpu.sh installs it.
async function ensureWebGPU() {
  if (existsSync(join(WEBGPU.tools, 'node_modules', 'webgpu', 'dist', 'linux-x64', 'dawn.node'))) return;
  await mkdir(WEBGPU.tools, { recursive: true });
  const pkg = join(WEBGPU.tools, 'package.json');
  if (!existsSync(pkg)) await writeFile(pkg, JSON.stringify({ name: 'webgpu-tools', private: true }));
  await sh('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `webgpu@${WEBGPU.version}`], { cwd: WEBGPU.tools });
}

before(setup, { timeout: 300000 });
after(async () => { if (!keep && TMP) await rm(TMP, { recursive: true, force: true }); });

test('transformers.js loads gort as onnxruntime-node in the gort app, and the real one in the other', async () => {
  const { version } = JSON.parse(await readFile(join(JS, 'package.json'), 'utf8'));
  assert.equal(results.gort.runtime, `gort ${version}`);
  assert.match(results.ort.runtime, /^onnxruntime-node \d/);
  assert.equal(results.gort.transformers, VERSIONS.transformers);
  assert.equal(results.ort.transformers, VERSIONS.transformers);
});

function close(got, want, what, gotName = 'gort', wantName = 'onnxruntime-node') {
  assert.deepEqual(got.dims, want.dims, `${what}: dims`);
  let worst = 0;
  let at = -1;
  for (let i = 0; i < want.data.length; i++) {
    const d = Math.abs(got.data[i] - want.data[i]);
    if (!(d <= worst)) { worst = d; at = i; }
  }
  assert.ok(worst <= TOLERANCE, `${what}: element ${at} is ${got.data[at]} on ${gotName}, ${want.data[at]} on ${wantName} (|diff| ${worst} > ${TOLERANCE})`);
  return worst;
}

// fp32: onnx/model.onnx; q8: onnx/model_quantized.onnx (DynamicQuantizeLinear, MatMulInteger).
for (const dtype of ['fp32', 'q8']) {
  test(`feature-extraction (tiny BERT, ${dtype}): gort's embeddings match onnxruntime-node's within ${TOLERANCE}`, (t) => {
    const [g, o] = [results.gort[dtype], results.ort[dtype]];
    for (const k of ['features', 'featuresBatch', 'featuresMean']) {
      const worst = close(g[k], o[k], `${dtype} ${k}`);
      t.diagnostic(`${k} ${JSON.stringify(g[k].dims)}: max |diff| ${worst.toExponential(2)}`);
    }
    // The padded batch holds both texts.
    assert.equal(o.featuresBatch.dims[0], 2);
  });

  test(`text-generation (tiny GPT-2, ${dtype}, KV cache, greedy): gort generates onnxruntime-node's tokens`, (t) => {
    sameGeneration(t, results.gort[dtype], results.ort[dtype]);
  });
}

test('text-generation (tiny Llama-style decoder, q4: GroupQueryAttention, MatMulNBits, RotaryEmbedding, SkipSimplifiedLayerNormalization): gort generates onnxruntime-node\'s tokens', (t) => {
  sameGeneration(t, results.gort.llamaQ4, results.ort.llamaQ4);
});

function sameGeneration(t, g, o, gotName, wantName) {
  assert.deepEqual(g.promptIds, o.promptIds, 'prompt token ids');
  const worst = close(g.promptLogits, o.promptLogits, 'prompt logits', gotName, wantName);
  assert.deepEqual(g.generatedIds, o.generatedIds, 'generated token ids');
  assert.equal(g.generatedText, o.generatedText);
  // 8 new tokens, not all one token (the KV cache changes what comes next).
  const fresh = o.generatedIds.slice(o.promptIds.length);
  assert.equal(fresh.length, 8);
  assert.ok(new Set(fresh).size > 1, `degenerate generation ${fresh}`);
  t.diagnostic(`prompt logits ${JSON.stringify(g.promptLogits.dims)}: max |diff| ${worst.toExponential(2)}; generated ${JSON.stringify(fresh)}`);
}

// WebGPU: gort on Dawn + SwiftShader against gort on the CPU, the same pipelines and tolerances.
test(`feature-extraction (tiny BERT, fp32) on WebGPU: gort's embeddings match its CPU run within ${TOLERANCE}`, { skip: noWebGPU }, (t) => {
  const [w, c] = [results.webgpu.fp32, results.gort.fp32];
  assert.equal(results.webgpu.device, 'webgpu');
  onGPU(t, 'BERT', w.bertPlacement);
  for (const k of ['features', 'featuresBatch', 'featuresMean']) {
    const worst = close(w[k], c[k], `webgpu ${k}`, 'gort on WebGPU', 'gort on the CPU');
    t.diagnostic(`${k} ${JSON.stringify(w[k].dims)}: max |diff| ${worst.toExponential(2)}`);
  }
  t.diagnostic(`the WebGPU run (BERT and GPT-2 pipelines, fp32) took ${results.webgpuMs} ms`);
});

test('text-generation (tiny GPT-2, fp32, KV cache, greedy) on WebGPU: gort generates its CPU run\'s tokens, the KV cache in GPU buffers', { skip: noWebGPU }, (t) => {
  const w = results.webgpu.fp32;
  onGPU(t, 'GPT-2', w.gpt2Placement);
  sameGeneration(t, w, results.gort.fp32, 'gort on WebGPU', 'gort on the CPU');
  // transformers.js asks for the presents in GPU buffers on WebGPU and feeds them back as past_key_values.
  const n = w.gpt2Locations;
  assert.ok(n.gpuOutputs > 0 && n.gpuFeeds > 0, `the KV cache never stayed on the GPU: ${JSON.stringify(n)}`);
  t.diagnostic(`${n.runs} runs: ${n.gpuOutputs} outputs left in GPUBuffers, ${n.gpuFeeds} fed back from them`);
});

function onGPU(t, what, p) {
  assert.deepEqual(p.executionProviders, ['webgpu', 'wasm'], `${what}: executionProviders`);
  assert.ok(p.gpuOps.includes('MatMul'), `${what}: no MatMul on the GPU (${JSON.stringify(p)})`);
  t.diagnostic(`${what}: ${p.gpuNodes} of ${p.nodes} nodes on WebGPU (${p.gpuOps.join(', ')})`);
}

test('timings (GORT_TFJS_ITERATIONS=N)', { skip: !process.env.GORT_TFJS_ITERATIONS }, (t) => {
  for (const dtype of ['fp32', 'q8']) {
    for (const name of ['gort', 'ort']) {
      const m = results[name][dtype].timings;
      t.diagnostic(`${dtype} ${results[name].runtime}: ${m.featureExtractionMs.toFixed(2)} ms per feature-extraction call (median ${m.featureExtractionMedianMs.toFixed(2)}), `
        + `${m.generateMsPerToken.toFixed(2)} ms per generated token (median ${m.generateMedianMsPerToken.toFixed(2)})`);
    }
  }
  for (const name of ['gort', 'ort']) {
    const m = results[name].llamaQ4.timings;
    t.diagnostic(`llama q4 ${results[name].runtime}: ${m.generateMsPerToken.toFixed(2)} ms per generated token (median ${m.generateMedianMsPerToken.toFixed(2)})`);
  }
});
