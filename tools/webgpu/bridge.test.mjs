// The Go side of executionProviders: ['webgpu', 'wasm'] (wasm/webgpu.go), driven through the raw
// bridge of gort.wasm the way the JS package would, on Node + Dawn (npm `webgpu`) + SwiftShader.
// Usage: node bridge.test.mjs gort.wasm model.onnx   (NO_WEBGPU=1: a host without navigator.gpu)
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
const require = createRequire(path.join(process.env.WEBGPU_TOOLS_DIR, 'package.json'));
if (process.env.NO_WEBGPU) {
  globalThis.navigator = { userAgent: 'no-webgpu' };
} else {
  const { create, globals } = require('webgpu');
  Object.assign(globalThis, globals);
  globalThis.navigator = { gpu: create([]) };
}
require(path.join(process.env.GOROOT, 'lib/wasm/wasm_exec.js'));
const [wasmPath, modelPath] = process.argv.slice(2);
const go = new globalThis.Go();
const key = '__gort_bridge_test';
const api = await new Promise((resolve) => {
  globalThis[key] = resolve;
  go.argv = ['gort', key];
  WebAssembly.instantiate(fs.readFileSync(wasmPath), go.importObject).then(({ instance }) => go.run(instance));
});
const model = new Uint8Array(fs.readFileSync(modelPath));
const cpu = await api.load(model, {});
const x = cpu.inputs[0];
const n = x.shape.reduce((a, b) => a * b, 1);
const data = new Float32Array(n).map((_, i) => Math.sin(i * 0.37));
const feeds = { [x.name]: { kind: 'tensor', type: 'float32', dims: x.shape, bytes: new Uint8Array(data.buffer) } };
for (const w of cpu.inputs.slice(1)) { // weights fed as inputs (node-suite models)
  const m = w.shape.reduce((a, b) => a * b, 1);
  feeds[w.name] = { kind: 'tensor', type: 'float32', dims: w.shape, bytes: new Uint8Array(new Float32Array(m).map((_, i) => Math.cos(i)).buffer) };
}
const f32 = (v) => new Float32Array(v.bytes.buffer, v.bytes.byteOffset, v.bytes.byteLength / 4);
const run = async (s) => Object.values(await api.run(s.id, 1, feeds))[0];
const want = f32(await run(cpu));
assert.deepEqual(cpu.providers.executionProviders, ['wasm']);

// A list naming no provider gort serves, with each name's reason (package options).
await assert.rejects(api.load(model, { executionProviders: ['webgl', 'foo'] }),
  /no execution provider can serve this session: webgl: gort has no webgl backend yet; foo: unknown execution provider/);

const s = await api.load(model, { executionProviders: ['webgpu', 'wasm'], webgpuMinElements: 0 });
const got = f32(await run(s));
for (let i = 0; i < want.length; i++) assert.ok(Math.abs(got[i] - want[i]) <= 1e-5 + 1e-4 * Math.abs(want[i]), `element ${i}: ${got[i]} vs ${want[i]}`);
if (process.env.NO_WEBGPU) {
  assert.deepEqual(s.providers.executionProviders, ['wasm']);
  assert.match(s.providers.webgpuUnavailable, /navigator\.gpu is missing/);
  console.log('bridge without navigator.gpu: ok, runs on the CPU because:', s.providers.webgpuUnavailable);
} else {
  assert.deepEqual(s.providers.executionProviders, ['webgpu', 'wasm'], JSON.stringify(s.providers));
  assert.ok(s.providers.placements.every((p) => p.device === 'webgpu'), JSON.stringify(s.providers.placements));
  assert.deepEqual(api.providers(s.id).executionProviders, ['webgpu', 'wasm']);
  // The default cost threshold keeps this tiny model on the CPU, and says so.
  const tiny = await api.load(model, { executionProviders: ['webgpu', 'wasm'] });
  assert.deepEqual(tiny.providers.executionProviders, ['wasm']);
  assert.match(tiny.providers.placements[0].reason, /tiny/);
  const later = await api.load(model, { executionProviders: [{ name: 'wasm' }, 'webgpu'] });
  assert.deepEqual(later.providers.executionProviders, ['wasm']);
  console.log(`bridge with WebGPU (${s.providers.adapter}): ok, ${s.providers.placements.length} node(s) on webgpu`);
}
process.exit(0);
