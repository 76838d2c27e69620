// The in-page half of the threads test of js/test/browser.test.mjs: a page
// served without COOP/COEP (no SharedArrayBuffer), where gort's threads are
// module Workers (gort.worker.mjs). A convolution model runs on 1 and on 2
// threads; the outputs must be bit-identical and parts must have gone to
// the worker. Results go to window.__gortResult.
import gort from '/dist/gort.mjs';
import { model, raw, f32, floats } from '/test/onnx.mjs';

async function main() {
  const c = 48;
  const w = (name, shape, seed) => ({ name, type: 'float32', dims: shape, raw: raw(floats(shape.reduce((a, b) => a * b, 1), seed)) });
  const m = model({
    inputs: [f32('x', [1, c, 40, 56])],
    outputs: [f32('y', [1, c, 40, 56])],
    initializers: [w('w1', [c, c, 3, 3], 1), w('b1', [c], 2)],
    nodes: [{ op: 'Conv', inputs: ['x', 'w1', 'b1'], outputs: ['y'], attrs: { pads: [1, 1, 1, 1] } }],
  });
  const feeds = { x: new gort.Tensor('float32', floats(c * 40 * 56, 9), [1, c, 40, 56]) };
  const one = await gort.InferenceSession.create(m, { intraOpNumThreads: 1 });
  const two = await gort.InferenceSession.create(m, { intraOpNumThreads: 2 });
  const want = (await one.run(feeds)).y.data;
  const pool = gort._threadPool();
  const before = pool ? pool.stats.parts : 0;
  let same = true;
  for (let run = 0; run < 3; run++) {
    const got = (await two.run(feeds)).y.data;
    const a = new Uint32Array(got.buffer, got.byteOffset, got.length), b = new Uint32Array(want.buffer, want.byteOffset, want.length);
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) same = false;
  }
  return { threads: two.threads, same, parts: pool ? pool.stats.parts - before : 0, sharedArrayBuffer: typeof SharedArrayBuffer, crossOriginIsolated: globalThis.crossOriginIsolated };
}

main().then((r) => { window.__gortResult = r; }, (e) => { window.__gortResult = { error: String(e && e.stack ? e.stack : e) }; });
