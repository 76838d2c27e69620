// Smoke test of the model-checking exports of gort.wasm (wasm/checks.go),
// run in Node against a built gort.wasm:
//
//	GOOS=js GOARCH=wasm go build -tags gortlite -o /tmp/gort.wasm ./wasm
//	node wasm/checks_test.mjs /tmp/gort.wasm "$(go env GOROOT)/lib/wasm/wasm_exec.js"
//
// It loads the bridge the way js/src does (argv ["gort", key], the bridge
// handed to globalThis[key]) and checks each export on the node-suite models.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import assert from 'node:assert/strict';

const [wasmPath, execPath] = process.argv.slice(2);
createRequire(import.meta.url)(execPath); // defines globalThis.Go
const key = '__gort_checks_test';
const bridge = new Promise((resolve) => { globalThis[key] = resolve; });
const go = new globalThis.Go();
go.argv = ['gort', key];
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), go.importObject);
go.run(instance);
const gort = await bridge;

const model = (name) => new Uint8Array(readFileSync(new URL(`../testdata/onnx-node/node/${name}/model.onnx`, import.meta.url)));

// check: a clean model, then garbage (a report, not a rejection).
let r = await gort.check(model('test_conv_with_strides_padding'));
assert.equal(r.ok, true);
assert.deepEqual(r.findings, []);
r = await gort.check(new Uint8Array([0xff, 0xff, 0xff, 1]));
assert.equal(r.ok, false);
assert.equal(r.findings[0].code, 'MODEL_DECODE');
assert.equal(r.findings[0].nodeIndex, -1);

// inferShapes: Conv with strides 2 and padding 1 on 7×5 gives 4×3 (by hand: floor((7+2-3)/2)+1 = 4, floor((5+2-3)/2)+1 = 3).
const s = await gort.inferShapes(model('test_conv_with_strides_padding'));
assert.equal(s.values.y.type, 'float32[1,1,4,3]');
assert.deepEqual(s.values.y.shape, [1, 1, 4, 3]);
assert.deepEqual(s.problems, []);

// printGraph: text and document.
const text = await gort.printGraph(model('test_if'));
assert.match(text, /%res: float32\[5\] = If\[else_branch = @else_branch, then_branch = @then_branch\]\(%cond\)/);
const doc = await gort.printGraph(model('test_if'), { json: true });
assert.equal(doc.graph.nodes[0].op, 'If');
assert.ok(doc.graph.nodes[0].subgraphs.then_branch);

// capabilities: everything in the suite's Relu runs.
const c = await gort.capabilities(model('test_relu'));
assert.equal(c.nodes, 1);
assert.equal(c.supported, 1);
assert.deepEqual(c.unsupported, []);

// npy round trip and compareValues.
const t = { kind: 'tensor', type: 'float32', dims: [2], bytes: new Uint8Array(new Float32Array([1, 2]).buffer) };
const npyBytes = await gort.writeNpy(t);
assert.equal(new TextDecoder().decode(npyBytes.slice(1, 6)), 'NUMPY');
const back = await gort.readNpy(npyBytes);
assert.deepEqual(back.dims, [2]);
const u = { kind: 'tensor', type: 'float32', dims: [2], bytes: new Uint8Array(new Float32Array([1, 2.5]).buffer) };
const st = await gort.compareValues(back, u, {});
assert.equal(st.pass, false);
assert.equal(st.mismatches, 1);
assert.deepEqual(st.worstIndex, [1]);
const npz = await gort.readNpy(await gort.writeNpy({ a: t, b: u }));
assert.deepEqual(Object.keys(npz), ['a', 'b']);

// diverge against a planted reference.
const x = { kind: 'tensor', type: 'float32', dims: [3, 4, 5], bytes: new Uint8Array(new Float32Array(60).fill(-1).buffer) };
const d = await gort.diverge(model('test_relu'), { x }, { reference: { y: t } });
assert.equal(d.diverged, true);
assert.equal(d.divergence.op, 'Relu');
console.log('wasm checks: ok');
process.exit(0);
