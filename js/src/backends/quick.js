// The quick run: a synchronous call into gort.wasm for short runs on the CPU
// (wasm/quick.go describes the protocol). A run through the bridge's run()
// costs a Promise, a goroutine hand-off and a Go object per field of every
// feed and output: 0.25 ms, more than onnxruntime-web's whole run of a small
// model. The quick run passes the feeds' and outputs' metadata as numbers in
// one reused buffer, the feeds' bytes as they are, and reads the outputs'
// bytes straight out of wasm memory. It cannot yield or be aborted midway,
// so it is taken only for sessions whose previous run took under half the
// yield interval (quickLimitMs): a run that short would not have yielded
// (nor noticed an abort) on the other path either.

/** The longest previous run (ms) after which the next run is quick. */
export function quickLimitMs(yieldIntervalMs) {
  return yieldIntervalMs >= 0 ? yieldIntervalMs / 2 : Infinity;
}

// ONNX element type numbers (TensorProto.DataType) by wire type name.
const CODES = {
  float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, bool: 9, float16: 10, float64: 11,
  uint32: 12, uint64: 13, complex64: 14, complex128: 15, bfloat16: 16, float8e4m3fn: 17, float8e4m3fnuz: 18,
  float8e5m2: 19, float8e5m2fnuz: 20, uint4: 21, int4: 22, float4e2m1: 23, float8e8m0: 24, uint2: 25, int2: 26,
};
const NAMES = [];
for (const [name, code] of Object.entries(CODES)) NAMES[code] = name;

let io = new Float64Array(256);

/** The session's input and output indices by name, as runQuick counts them. */
function indices(info) {
  if (!info.quickIndex) {
    // Only inputs declared as tensors take the quick path (an optional's
    // feed is wrapped by run()), but every input counts for the numbering.
    const feeds = new Map();
    let i = 0;
    for (const x of (info.inputs || []).concat(info.overridable || [])) {
      if (!feeds.has(x.name)) feeds.set(x.name, x.kind === 'tensor' ? i : -1);
      i++;
    }
    const outputs = new Map();
    (info.outputs || []).forEach((x, j) => outputs.set(x.name, j));
    info.quickIndex = { feeds, outputs };
  }
  return info.quickIndex;
}

/**
 * Runs quickly if it can: the outputs as {name: wire value}, or null when
 * this run must take the bridge's run() (a feed or fetch it does not carry,
 * a plan with GPU steps). api is the bridge, memory the instance's
 * WebAssembly.Memory.
 */
export function runQuick(api, memory, info, feeds, fetches) {
  const { feeds: feedIndex, outputs: outIndex } = indices(info);
  const names = Object.keys(feeds);
  let need = 2 + names.length * 3 + (fetches ? fetches.length : 0);
  const bytes = [];
  for (const name of names) {
    const w = feeds[name];
    if (!w || w.kind !== 'tensor' || !w.bytes || !CODES[w.type] || !(feedIndex.get(name) >= 0)) return null;
    need += w.dims.length;
    bytes.push(w.bytes);
  }
  if (fetches) for (const f of fetches) if (!outIndex.has(f)) return null;
  // Room for the outputs' header too: index, type, rank, address, length and a few dims each.
  need = Math.max(need, 1 + (fetches ? fetches.length : outIndex.size) * 9);
  if (io.length < need) io = new Float64Array(Math.max(need, 2 * io.length));
  let k = 0;
  io[k++] = names.length;
  for (const name of names) {
    const w = feeds[name];
    io[k++] = feedIndex.get(name);
    io[k++] = CODES[w.type];
    io[k++] = w.dims.length;
    for (const d of w.dims) io[k++] = d;
  }
  if (fetches) {
    io[k++] = fetches.length;
    for (const f of fetches) io[k++] = outIndex.get(f);
  } else {
    io[k++] = -1;
  }
  const extra = [];
  const r = api.runQuick(info.id, new Uint8Array(io.buffer), extra, ...bytes);
  if (r instanceof Error) throw r;
  if (r === -1) return null;
  const h = r instanceof Uint8Array ? new Float64Array(r.buffer, r.byteOffset, r.byteLength / 8) : io;
  const outNames = info.outputs;
  const buf = memory.buffer;
  const out = {};
  k = 0;
  const n = h[k++];
  for (let i = 0; i < n; i++) {
    const name = outNames[h[k++]].name;
    const code = h[k++];
    const rank = h[k++];
    const dims = [];
    for (let j = 0; j < rank; j++) dims.push(h[k++]);
    const addr = h[k++];
    const len = h[k++];
    if (code === -1) {
      out[name] = extra[addr];
      continue;
    }
    out[name] = { kind: 'tensor', type: NAMES[code], dims, bytes: new Uint8Array(buf, addr, len).slice() };
  }
  return out;
}
