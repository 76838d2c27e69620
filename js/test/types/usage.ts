// Typed usage of gort's public API, checked by `tsc --noEmit` against the
// packed dist/index.d.ts (js/test/bundlers.test.mjs). Never run: it only
// has to type-check, and each line is what an app would write.
import gort, { InferenceSession, Tensor, env, ErrorCode } from 'gort';
import type { GpuBuffer, GortError, OnnxValue, TensorLike, ValueMetadata, CheckReport, CapabilityReport, TensorStats } from 'gort';

export async function usage(modelBytes: Uint8Array, signal: AbortSignal): Promise<number> {
  env.wasmPaths = '/assets/';
  env.wasm.proxy = true;
  env.wasm.numThreads = 1;
  env.wasm.yieldIntervalMs = 5;
  env.logLevel = 'error';
  const version: string = env.versions.gort;

  const session = await InferenceSession.create(modelBytes, {
    executionProviders: ['webgpu', 'wasm', { name: 'cpu' }],
    graphOptimizationLevel: 'extended',
    freeDimensionOverrides: { batch: 1 },
    logSeverityLevel: 3,
    onProgress: (loaded: number, total: number) => { void (loaded / total); },
  });
  const other = await gort.InferenceSession.create('model.onnx', { graphOptimizationLevel: 'disabled' });
  await other.release();
  const names: readonly string[] = session.inputNames;
  const meta: readonly ValueMetadata[] = session.inputMetadata;
  const dims = meta[0].shape;

  const x = new Tensor('float32', new Float32Array([1, 2, 3, 4]), [2, 2]);
  const typed: Float32Array = x.data;
  const ids = new Tensor('int64', [1n, 2n], [2]);
  const half = new Tensor('float16', [1, 0.5], [2]);
  const inferred = new Tensor(new Int32Array([1, 2, 3]));
  // A tensor of another library's class (e.g. onnxruntime-common) is fed as it is.
  const foreign: TensorLike = { type: 'float32', dims: [2, 2], data: new Float32Array(4), location: 'cpu' };
  // Tensors that stay on the GPU, chained between sessions.
  const device = await env.webgpu.device;
  const gbuf = device.createBuffer({ size: 16, usage: 0x80 | 0x4 | 0x8 });
  const onGpu: Tensor<'float32'> = Tensor.fromGpuBuffer(gbuf, { dataType: 'float32', dims: [2, 2], dispose: () => gbuf.destroy() });
  const gsession = await InferenceSession.create(modelBytes, { executionProviders: ['webgpu'], preferredOutputLocation: { y: 'gpu-buffer' }, webgpuMinElements: 0 });
  const gout = (await gsession.run({ x: onGpu })).y as Tensor;
  if (gout.location === 'gpu-buffer') {
    const kept: GpuBuffer = gout.gpuBuffer;
    void kept;
    const back = await gout.getData(true);
    void back;
  }
  gout.dispose();
  const placed = await gort.printGraph(modelBytes, { executionProviders: ['webgpu', 'wasm'] });
  void placed;

  const out = await session.run({ [names[0]]: x, ids, half, inferred, foreign }, { signal });
  const y: OnnxValue = out[session.outputNames[0]];
  const picked = await session.run({ x }, ['y'], { signal });
  void picked;
  await session.release();

  const report: CheckReport = await gort.check(modelBytes);
  const firstCode: string | undefined = report.findings[0]?.code;
  const caps: CapabilityReport = await gort.capabilities(modelBytes, { graphOptimizationLevel: 'basic' });
  const onCPU = caps.placements.filter((p) => p.device === 'cpu').length;
  const text: string = await gort.printGraph(modelBytes);
  const doc = await gort.printGraph(modelBytes, { json: true });
  const shapes = await gort.inferShapes(modelBytes);
  const stats: TensorStats = await gort.compare(x, x, { rtol: 1e-3 });
  const npy: Uint8Array = await gort.writeNpy(x);
  void [firstCode, onCPU, text, doc.graph.nodes.length, shapes.values, stats.pass, npy];

  try {
    await InferenceSession.create(new ArrayBuffer(8), 0, 8, { executionProviders: ['wasm'] });
  } catch (e) {
    const err = e as GortError;
    if (err.code === ErrorCode.WASM_FETCH) return err.urls ? err.urls.length : 0;
    if (err.code === 'GORT_BAD_MODEL') return -1;
  }
  return version.length + typed.length + (dims ? dims.length : 0) + (y instanceof Tensor ? y.size : 0);
}
