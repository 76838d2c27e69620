// Go's wasm_exec_node.js with navigator.gpu from the npm package `webgpu` (Dawn): runs a GOOS=js
// wasm binary (a test binary, say) that uses WebGPU. Used by ci-webgpu.sh (SwiftShader here) and
// device-run.sh (a real GPU). Needs GOROOT (for lib/wasm/wasm_exec.js) and `webgpu` resolvable from
// this file's folder; DAWN_OPTS passes Dawn options.
import { createRequire } from 'node:module';
import path from 'node:path';
const require = createRequire(import.meta.url);
globalThis.require = require; globalThis.fs = require('fs'); globalThis.path = path;
globalThis.TextEncoder ??= require('util').TextEncoder; globalThis.TextDecoder ??= require('util').TextDecoder;
globalThis.crypto ??= require('crypto');
const { create, globals } = await import('webgpu');
Object.assign(globalThis, globals);
const gpu = create((process.env.DAWN_OPTS || '').split(/\s+/).filter(Boolean));
Object.defineProperty(globalThis, 'navigator', { value: { gpu, userAgent: 'node-webgpu' }, configurable: true, writable: true });
require(path.join(process.env.GOROOT, 'lib/wasm/wasm_exec.js'));
const go = new Go();
go.argv = process.argv.slice(2);
go.env = Object.assign({ TMPDIR: require('os').tmpdir() }, process.env);
go.exit = process.exit;
const { instance } = await WebAssembly.instantiate(fs.readFileSync(process.argv[2]), go.importObject);
process.on('exit', (code) => { if (code === 0 && !go.exited) { go._pendingEvent = { id: 0 }; go._resume(); } });
await go.run(instance);
process.exit(0);
