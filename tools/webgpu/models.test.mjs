// The generated transformer models through the JS package as a client library calls it (InferenceSession.create
// with executionProviders: ['webgpu']) on Node + Dawn (npm `webgpu`) + SwiftShader: the BERT-style encoder and the
// GPT-2-style decoder with its KV cache (prefill and one step) from tools/genmodels' small variants, each with the
// default options and with the cost rule off (webgpuMinElements: 0), at graphOptimizationLevel 'all' and
// 'disabled', against the same package on wasm: every output within atol 1e-4 + rtol 1e-3, and with the cost rule
// off the transformer layers' MatMuls on the GPU.
// Usage: node models.test.mjs gort-src.mjs gort.wasm GENMODELS_DIR   (bridge.sh passes them)
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { readInputs } from '../bench/js/inputs.mjs';

const require = createRequire(path.join(process.env.WEBGPU_TOOLS_DIR, 'package.json'));
const { create, globals } = require('webgpu');
Object.assign(globalThis, globals);
globalThis.navigator = { gpu: create([]) };
const [modPath, wasmPath, genDir] = process.argv.slice(2);
const { gort } = await import(path.resolve(modPath));
const { InferenceSession, Tensor, env } = gort;
env.wasmBinary = fs.readFileSync(wasmPath);

for (const name of ['transformer_12x32', 'decoder_prefill', 'decoder_step']) {
  const dir = path.join(genDir, name);
  const bytes = fs.readFileSync(path.join(dir, 'model.onnx'));
  const inputs = readInputs(dir);
  const feedsFor = (s) => Object.fromEntries(s.inputNames.map((n, i) => [n, new Tensor(inputs[i].type, inputs[i].data, inputs[i].dims)]));
  const cpu = await InferenceSession.create(bytes, { graphOptimizationLevel: 'disabled' });
  const want = await cpu.run(feedsFor(cpu));
  for (const level of ['all', 'disabled']) {
    for (const extra of [{}, { webgpuMinElements: 0 }]) {
      const what = `${name} at ${level}${extra.webgpuMinElements === 0 ? ', cost rule off' : ''}`;
      const s = await InferenceSession.create(bytes, { executionProviders: ['webgpu'], graphOptimizationLevel: level, logSeverityLevel: 3, ...extra });
      const onGPU = s.placements.filter((p) => p.device === 'webgpu').map((p) => p.op);
      if (extra.webgpuMinElements === 0) {
        assert.ok(onGPU.includes('MatMul'), `${what}: no MatMul on the GPU (${JSON.stringify(s.placements)})`);
      }
      const got = await s.run(feedsFor(s));
      for (const [out, w] of Object.entries(want)) {
        const g = got[out];
        assert.deepEqual([...g.dims], [...w.dims], `${what}: ${out} dims`);
        for (let i = 0; i < w.data.length; i++) {
          const d = Math.abs(g.data[i] - w.data[i]);
          assert.ok(d <= 1e-4 + 1e-3 * Math.abs(w.data[i]), `${what}: ${out}[${i}] = ${g.data[i]}, wasm ${w.data[i]}`);
        }
      }
      console.log(`${what}: ok, ${onGPU.length} of ${s.placements.length} nodes on WebGPU`);
      await s.release();
    }
  }
  await cpu.release();
}
