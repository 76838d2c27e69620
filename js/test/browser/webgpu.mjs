// The in-page half of the WebGPU browser test: squeezenet through the
// public API with executionProviders ['webgpu', 'wasm'] (Chromium on
// SwiftShader), checked against its test data; the result says which
// providers the session uses and how many nodes run on the GPU.
import { compare } from '/test/compare.mjs';

async function main() {
  const gort = (await import('/dist/gort.mjs')).default;
  const base = '/squeezenet/';
  const session = await gort.InferenceSession.create(`${base}model.onnx`, { executionProviders: ['webgpu', 'wasm'] });
  const bytes = async (f) => new Uint8Array(await (await fetch(base + f)).arrayBuffer());
  const input = await gort._decodeValue(await bytes('test_data_set_0/input_0.pb'));
  const want = await gort._decodeValue(await bytes('test_data_set_0/output_0.pb'));
  const out = await session.run({ [session.inputNames[0]]: input });
  const diff = compare(out[session.outputNames[0]], want, { rtol: 1e-3, atol: 1e-5 });
  const placements = session.placements;
  const r = {
    hasGPU: !!navigator.gpu,
    providers: [...session.executionProviders],
    gpuNodes: placements.filter((p) => p.device === 'webgpu').length,
    cpuNodes: placements.filter((p) => p.device === 'wasm').length,
    cpuReasons: [...new Set(placements.filter((p) => p.device === 'wasm').map((p) => p.reason))].slice(0, 5),
    diff,
  };
  // The input as a GPUBuffer of gort's device (Tensor.fromGpuBuffer), read in place by the GPU nodes.
  const device = await gort.env.webgpu.device;
  const buf = device.createBuffer({ size: input.data.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(buf, 0, input.data);
  const gpuIn = gort.Tensor.fromGpuBuffer(buf, { dataType: 'float32', dims: input.dims });
  r.gpuFeedDiff = compare((await session.run({ [session.inputNames[0]]: gpuIn }))[session.outputNames[0]], want, { rtol: 1e-3, atol: 1e-5 });
  // Every node on the GPU (no cost rule) and the output left there: getData downloads it.
  const kept = await gort.InferenceSession.create(`${base}model.onnx`, { executionProviders: ['webgpu'], webgpuMinElements: 0, preferredOutputLocation: 'gpu-buffer' });
  const y = (await kept.run({ [kept.inputNames[0]]: gpuIn }))[kept.outputNames[0]];
  r.keptLocation = y.location;
  r.keptDiff = compare(new gort.Tensor('float32', await y.getData(), y.dims), want, { rtol: 1e-3, atol: 1e-5 });
  y.dispose();
  buf.destroy();
  await kept.release();
  await session.release();
  r.ok = diff === '' && r.providers[0] === 'webgpu' && r.gpuNodes > 0 && r.gpuFeedDiff === '' && r.keptLocation === 'gpu-buffer' && r.keptDiff === '';
  return r;
}

main().then((r) => { window.__gortResult = r; }, (e) => { window.__gortResult = { ok: false, error: `${e && e.code} ${e && e.stack ? e.stack : e}` }; });
