// Tensors that stay on the GPU (Tensor.fromGpuBuffer, preferredOutputLocation 'gpu-buffer'), through the JS
// package's own sources (js/src, concatenated as js/build.sh does) on Node + Dawn (npm `webgpu`) + SwiftShader.
// Usage: node gpubuf.test.mjs gort-src.mjs gort.wasm   (bridge.sh builds both)
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { model, raw } from '../../js/test/onnx.mjs';

const require = createRequire(path.join(process.env.WEBGPU_TOOLS_DIR, 'package.json'));
const { create, globals } = require('webgpu');
Object.assign(globalThis, globals);
globalThis.navigator = { gpu: create([]) };
const [modPath, wasmPath] = process.argv.slice(2);
const { gort } = await import(path.resolve(modPath));
const { InferenceSession, Tensor, env, ErrorCode } = gort;
env.wasmBinary = fs.readFileSync(wasmPath);

const f32 = (name, shape) => ({ name, type: { tensor: 'float32', shape } });
const wdata = new Float32Array(8 * 4 * 3 * 3).map((_, i) => Math.cos(i * 0.7) * 0.3);
// A: Conv + Relu (GPU); B: Sigmoid (GPU) and ReduceMean (CPU, reading the GPU feed through a download).
const A = model({
  inputs: [f32('x', [1, 4, 16, 16])], outputs: [f32('y', [1, 8, 16, 16])],
  initializers: [{ name: 'w', type: 'float32', dims: [8, 4, 3, 3], raw: raw(wdata) }],
  nodes: [{ op: 'Conv', name: 'conv', inputs: ['x', 'w'], outputs: ['c'], attrs: { pads: [1, 1, 1, 1] } },
    { op: 'Relu', name: 'relu', inputs: ['c'], outputs: ['y'] }],
});
const B = model({
  inputs: [f32('y', [1, 8, 16, 16])], outputs: [f32('z', [1, 8, 16, 16]), f32('r', [1, 8, 1, 1])],
  nodes: [{ op: 'Sigmoid', name: 'sig', inputs: ['y'], outputs: ['z'] },
    { op: 'ReduceMean', name: 'mean', inputs: ['y'], outputs: ['r'], attrs: { axes: [2, 3] } }],
});
const gpu = { executionProviders: ['webgpu', 'wasm'], webgpuMinElements: 0, logSeverityLevel: 3 };
const close = (got, want, what) => {
  assert.equal(got.length, want.length, what);
  for (let i = 0; i < want.length; i++) assert.ok(Math.abs(got[i] - want[i]) <= 1e-5 + 1e-4 * Math.abs(want[i]), `${what}[${i}]: ${got[i]} vs ${want[i]}`);
};
const code = (c) => (e) => { assert.equal(e.code, c, e.message); return true; };

const xdata = new Float32Array(4 * 16 * 16).map((_, i) => Math.sin(i * 0.37));
const x = new Tensor('float32', xdata, [1, 4, 16, 16]);
// CPU reference.
const cpuA = await InferenceSession.create(A);
const cpuB = await InferenceSession.create(B);
const refY = (await cpuA.run({ x })).y;
const refB = await cpuB.run({ y: refY });

// 1. Chained sessions: A's output stays in a GPUBuffer and is fed to B, whose z stays too and r comes back.
const a = await InferenceSession.create(A, { ...gpu, preferredOutputLocation: 'gpu-buffer' });
const b = await InferenceSession.create(B, { ...gpu, preferredOutputLocation: { z: 'gpu-buffer', r: 'cpu' } });
assert.deepEqual([...a.executionProviders], ['webgpu', 'wasm']);
assert.deepEqual(b.placements.map((p) => [p.node, p.device]), [['sig', 'webgpu'], ['mean', 'wasm']]);
const { y } = await a.run({ x });
assert.equal(y.location, 'gpu-buffer');
assert.deepEqual([...y.dims], [1, 8, 16, 16]);
assert.ok(y.gpuBuffer.size >= y.size * 4);
assert.throws(() => y.data, code(ErrorCode.INVALID_ARGUMENT));
const out = await b.run({ y });
assert.equal(out.z.location, 'gpu-buffer');
assert.equal(out.r.location, 'cpu');
close(await out.z.getData(), refB.z.data, 'z');
close(out.r.data, refB.r.data, 'r');
close(await y.getData(), refY.data, 'y (getData downloads)');
// The CPU session takes the GPU tensor too (it downloads it).
close((await cpuB.run({ y })).z.data, refB.z.data, 'z on the CPU from a GPU feed');

// 2. dispose: the tensor is gone ('none'); feeding it is an error. getData(true) leaves a CPU tensor.
const zData = await out.z.getData(true);
assert.equal(out.z.location, 'cpu');
assert.equal(out.z.data, zData);
y.dispose();
assert.equal(y.location, 'none');
assert.throws(() => y.gpuBuffer, code(ErrorCode.INVALID_ARGUMENT));
await assert.rejects(y.getData(), code(ErrorCode.INVALID_ARGUMENT));
await assert.rejects(b.run({ y }), code(ErrorCode.INVALID_FEED));

// 3. Tensor.fromGpuBuffer on a buffer the caller made on gort's device; the buffer stays the caller's.
const device = await env.webgpu.device;
assert.equal(device, await env.webgpu.device);
const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
const buf = device.createBuffer({ size: xdata.byteLength, usage });
device.queue.writeBuffer(buf, 0, xdata);
const gx = Tensor.fromGpuBuffer(buf, { dataType: 'float32', dims: [1, 4, 16, 16] });
close(await (await a.run({ x: gx })).y.getData(true), refY.data, 'y from fromGpuBuffer');
close((await cpuA.run({ x: gx })).y.data, refY.data, 'y on the CPU from fromGpuBuffer');
close(await gx.getData(), xdata, 'x read back (the run left the buffer alone)');
gx.dispose(); // no dispose callback: the caller's buffer is not destroyed
close(new Float32Array(await Tensor.fromGpuBuffer(buf, { dims: [xdata.length] }).getData()), xdata, 'buffer after dispose');
let disposed = 0;
Tensor.fromGpuBuffer(buf, { dims: [1], dispose: () => disposed++ }).dispose();
assert.equal(disposed, 1);

// 4. Stable error codes: wrong dtype, too small a buffer, missing usage (at construction); wrong dims for the
// model, a buffer of another device (at run); a bad preferredOutputLocation (at create).
assert.throws(() => Tensor.fromGpuBuffer(buf, { dataType: 'int32', dims: [1] }), code(ErrorCode.INVALID_ARGUMENT));
assert.throws(() => Tensor.fromGpuBuffer(buf, { dims: [1, 4, 16, 17] }), code(ErrorCode.INVALID_ARGUMENT));
const mapOnly = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
assert.throws(() => Tensor.fromGpuBuffer(mapOnly, { dims: [4] }), code(ErrorCode.INVALID_ARGUMENT));
assert.throws(() => Tensor.fromGpuBuffer({}, { dims: [4] }), code(ErrorCode.INVALID_ARGUMENT));
await assert.rejects(a.run({ x: Tensor.fromGpuBuffer(buf, { dims: [1, 4, 8, 32] }) }), code(ErrorCode.INVALID_FEED));
await assert.rejects(a.run({ x: { type: 'int32', dims: [4], location: 'gpu-buffer', gpuBuffer: buf } }), code(ErrorCode.INVALID_FEED));
const other = await (await navigator.gpu.requestAdapter()).requestDevice();
const foreign = other.createBuffer({ size: xdata.byteLength, usage });
await assert.rejects(a.run({ x: Tensor.fromGpuBuffer(foreign, { dims: [1, 4, 16, 16] }) }), (e) => code(ErrorCode.INVALID_FEED)(e) && /gort's device/.test(e.message));
await assert.rejects(cpuA.run({ x: Tensor.fromGpuBuffer(foreign, { dims: [1, 4, 16, 16] }) }), code(ErrorCode.INVALID_FEED));
await assert.rejects(Tensor.fromGpuBuffer(foreign, { dims: [4] }).getData(), code(ErrorCode.INVALID_ARGUMENT));
const dead = device.createBuffer({ size: xdata.byteLength, usage });
dead.destroy();
await assert.rejects(a.run({ x: Tensor.fromGpuBuffer(dead, { dims: [1, 4, 16, 16] }) }), code(ErrorCode.INVALID_FEED));
// The device is not poisoned by those attempts.
close(await (await a.run({ x })).y.getData(true), refY.data, 'y after the errors');
await assert.rejects(InferenceSession.create(A, { ...gpu, preferredOutputLocation: 'texture' }), code(ErrorCode.INVALID_ARGUMENT));
await assert.rejects(InferenceSession.create(A, { ...gpu, preferredOutputLocation: { nope: 'gpu-buffer' } }), code(ErrorCode.INVALID_ARGUMENT));
assert.throws(() => { env.webgpu.device = other; }, code(ErrorCode.INVALID_ARGUMENT));

// 5. A CPU session asked for GPU outputs returns them on the CPU (nothing ran on the GPU).
const cpuKeep = await InferenceSession.create(A, { preferredOutputLocation: 'gpu-buffer' });
assert.equal((await cpuKeep.run({ x })).y.location, 'cpu');
// 6. printGraph with executionProviders shows each node's device and CPU reason (without, no placements).
const text = await gort.printGraph(B, gpu);
assert.match(text, /= Sigmoid\(%y\) {2}# on webgpu\n/, text);
assert.match(text, /= ReduceMean\[axes = \[2, 3\]\]\(%y\) {2}# on wasm: no WebGPU kernel for ReduceMean\n/, text);
assert.doesNotMatch(await gort.printGraph(B), /#/);
const doc = await gort.printGraph(A, { ...gpu, json: true });
assert.deepEqual(doc.graph.nodes.map((n) => n.placement), [{ device: 'webgpu' }, { device: 'webgpu', fusedInto: 'conv' }]);
console.log(`gpu-buffer tensors on ${a._providers().adapter}: ok`);
process.exit(0);
