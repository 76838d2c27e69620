// Tensor value helpers for the demo page: numbers for display and
// comparison (float16/bfloat16 decoded, int64 as Number), statistics, the
// ONNX-runner comparison (|got − want| ≤ atol + rtol·|want|, NaN equals NaN),
// and which outputs can be drawn as images or read as top-k scores.

/** IEEE half → float. */
export function halfToFloat(h) {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

function bf16ToFloat(h) {
  const b = new DataView(new ArrayBuffer(4));
  b.setUint32(0, h << 16);
  return b.getFloat32(0);
}

/** The values of {type, data} as a Float64Array (strings: NaN). */
export function toNumbers(v) {
  const d = v.data;
  const out = new Float64Array(d.length);
  if (v.type === 'float16') for (let i = 0; i < d.length; i++) out[i] = halfToFloat(d[i]);
  else if (v.type === 'bfloat16') for (let i = 0; i < d.length; i++) out[i] = bf16ToFloat(d[i]);
  else if (typeof d[0] === 'bigint') for (let i = 0; i < d.length; i++) out[i] = Number(d[i]);
  else if (v.type === 'string') out.fill(NaN);
  else for (let i = 0; i < d.length; i++) out[i] = d[i];
  return out;
}

export function stats(nums) {
  let min = Infinity; let max = -Infinity; let sum = 0; let sq = 0; let nan = 0; let n = 0;
  for (const x of nums) {
    if (Number.isNaN(x)) { nan++; continue; }
    if (x < min) min = x;
    if (x > max) max = x;
    if (Number.isFinite(x)) { sum += x; sq += x * x; n++; }
  }
  const mean = n ? sum / n : NaN;
  return { min, max, mean, std: n ? Math.sqrt(Math.max(0, sq / n - mean * mean)) : NaN, nan, count: nums.length };
}

export const DEFAULT_RTOL = 1e-3;
export const DEFAULT_ATOL = 1e-7;

/**
 * Compares got with want as the ONNX test runner does. Returns
 * {ok, reason, count, mismatches, maxAbs, maxRel, worst, ratio} where ratio
 * (per element, Float32Array) is |got − want| / (atol + rtol·|want|): ≤ 1
 * passes, the heatmap draws it.
 */
export function compareValues(got, want, rtol = DEFAULT_RTOL, atol = DEFAULT_ATOL) {
  const r = { ok: false, reason: '', count: 0, mismatches: 0, maxAbs: 0, maxRel: 0, worst: -1, ratio: null };
  if (!got) { r.reason = 'no such output'; return r; }
  if (got.type !== want.type) {
    r.reason = `dtype ${got.type}, reference ${want.type}`;
    return r;
  }
  if (got.dims.join(',') !== want.dims.join(',')) {
    r.reason = `shape [${got.dims}], reference [${want.dims}]`;
    return r;
  }
  r.count = want.data.length;
  if (want.type === 'string') {
    for (let i = 0; i < r.count; i++) if (got.data[i] !== want.data[i]) { r.mismatches++; if (r.worst < 0) r.worst = i; }
    r.ok = r.mismatches === 0;
    if (!r.ok) r.reason = `${r.mismatches} of ${r.count} strings differ (first at ${r.worst})`;
    return r;
  }
  const g = toNumbers(got); const w = toNumbers(want);
  const exact = !['float32', 'float64', 'float16', 'bfloat16'].includes(want.type);
  r.ratio = new Float32Array(r.count);
  let worstRatio = -1;
  for (let i = 0; i < r.count; i++) {
    const a = g[i]; const b = w[i];
    let ratio;
    if (Number.isNaN(a) || Number.isNaN(b)) ratio = Number.isNaN(a) && Number.isNaN(b) ? 0 : Infinity;
    else if (!Number.isFinite(a) || !Number.isFinite(b)) ratio = a === b ? 0 : Infinity;
    else {
      const diff = Math.abs(a - b);
      if (diff > r.maxAbs) r.maxAbs = diff;
      if (b !== 0 && diff / Math.abs(b) > r.maxRel) r.maxRel = diff / Math.abs(b);
      ratio = exact ? (diff === 0 ? 0 : Infinity) : diff / (atol + rtol * Math.abs(b));
    }
    r.ratio[i] = ratio;
    if (ratio > 1) r.mismatches++;
    if (ratio > worstRatio) { worstRatio = ratio; r.worst = i; }
  }
  r.ok = r.mismatches === 0;
  if (!r.ok) r.reason = `${r.mismatches} of ${r.count} values out of tolerance; worst at index ${r.worst}: got ${g[r.worst]}, reference ${w[r.worst]}`;
  return r;
}

/**
 * How an output with these dims can be drawn as an image: {h, w, c, layout}
 * for [N,C,H,W] / [C,H,W] with C ∈ {1,3,4} (NCHW), [N,H,W,C] with C ∈ {1,3,4}
 * (NHWC), [H,W] and [N,1,H,W] masks; null otherwise. Tiny images (< 4 px a
 * side) are not worth drawing.
 */
export function imageLayout(dims) {
  const d = dims.slice();
  while (d.length > 2 && d[0] === 1 && d.length > 3) d.shift();
  let r = null;
  if (d.length === 2) r = { c: 1, h: d[0], w: d[1], layout: 'HW' };
  else if (d.length === 3 && [1, 3, 4].includes(d[0])) r = { c: d[0], h: d[1], w: d[2], layout: 'CHW' };
  else if (d.length === 3 && [1, 3, 4].includes(d[2])) r = { c: d[2], h: d[0], w: d[1], layout: 'HWC' };
  if (!r || r.h < 4 || r.w < 4) return null;
  return r;
}

/** Scores output ([K], [1,K], [1,K,1,1]) with K ≥ 2 → true. */
export function looksLikeScores(dims) {
  const big = dims.filter((d) => d !== 1);
  return big.length === 1 && big[0] >= 2 && big[0] <= 100000;
}

/** The k largest scores with their indices and, when the scores are not probabilities already, their softmax. */
export function topK(nums, k = 5) {
  const idx = Array.from(nums.keys()).sort((a, b) => nums[b] - nums[a]).slice(0, k);
  let sum = 0; let min = Infinity;
  for (const x of nums) { sum += x; if (x < min) min = x; }
  const isProb = min >= 0 && Math.abs(sum - 1) < 1e-3;
  let probs = null;
  if (!isProb) {
    const m = Math.max(...idx.map((i) => nums[i]));
    let z = 0;
    for (const x of nums) z += Math.exp(x - m);
    probs = idx.map((i) => Math.exp(nums[i] - m) / z);
  }
  return idx.map((i, j) => ({ index: i, score: nums[i], prob: isProb ? nums[i] : probs[j] }));
}

/** Draws the first image of an output onto a canvas (values 0–1 or 0–255 kept, others stretched). */
export function drawImage(canvas, nums, dims) {
  const L = imageLayout(dims);
  if (!L) return false;
  const { h, w, c, layout } = L;
  const n = h * w;
  const s = stats(nums.subarray(0, n * c));
  let scale = 255; let off = 0;
  if (s.min >= 0 && s.max <= 1) { scale = 255; off = 0; } else if (s.min >= 0 && s.max <= 255) { scale = 1; off = 0; } else if (s.max > s.min) { scale = 255 / (s.max - s.min); off = -s.min; }
  canvas.width = w; canvas.height = h;
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(w, h);
  const px = img.data;
  const at = (ch, i) => (layout === 'HWC' ? nums[i * c + ch] : nums[ch * n + i]);
  for (let i = 0; i < n; i++) {
    const v = (ch) => Math.max(0, Math.min(255, (at(ch, i) + off) * scale));
    if (c >= 3) { px[4 * i] = v(0); px[4 * i + 1] = v(1); px[4 * i + 2] = v(2); } else { px[4 * i] = px[4 * i + 1] = px[4 * i + 2] = v(0); }
    px[4 * i + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  return true;
}

/**
 * Draws a comparison's ratio array as a heatmap over the last two axes of
 * dims (the first slice of the leading axes; a vector becomes one row):
 * black = exact, yellow = within tolerance, red = out of tolerance.
 */
export function drawHeatmap(canvas, ratio, dims) {
  let h = 1; let w = ratio.length;
  if (dims.length >= 2) { h = dims[dims.length - 2]; w = dims[dims.length - 1]; }
  if (w * h === 0) return false;
  // Very wide rows wrap so that the map stays readable.
  if (h === 1 && w > 256) { h = Math.ceil(w / 256); w = 256; }
  canvas.width = w; canvas.height = h;
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(w, h);
  const px = img.data;
  for (let i = 0; i < w * h; i++) {
    const r = i < ratio.length ? ratio[i] : 0;
    let R; let G; let B;
    if (r > 1) { R = 255; G = 0; B = 0; } else if (r === 0) { R = G = B = 0; } else { const t = Math.sqrt(r); R = 200 * t + 40; G = 180 * t + 30; B = 20; }
    px[4 * i] = R; px[4 * i + 1] = G; px[4 * i + 2] = B; px[4 * i + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  return true;
}

/** float → IEEE half (round toward zero; tiny values flush to ±0, huge ones to ±Inf). */
export function floatToHalf(x) {
  const f = new Float32Array([x]); const u = new Uint32Array(f.buffer)[0];
  const sign = (u >>> 16) & 0x8000; const e = ((u >>> 23) & 0xff) - 112; const m = (u >>> 13) & 0x3ff;
  if (Number.isNaN(x)) return 0x7e00;
  if (e <= 0) return sign;
  if (e >= 31) return sign | 0x7c00;
  return sign | (e << 10) | m;
}

/** The from/to the page offers for random values of a type: integers 0–9 (indices, ids), bytes 0–255, floats 0–1. */
export function randomRange(type) {
  if (type === 'uint8') return [0, 255];
  if (/^u?int(8|16|32|64)$/.test(type)) return [0, 9];
  return [0, 1];
}

const INT_LIMITS = { int8: [-128, 127], uint8: [0, 255], int16: [-32768, 32767], uint16: [0, 65535], int32: [-(2 ** 31), 2 ** 31 - 1], uint32: [0, 2 ** 32 - 1], int64: [-(2 ** 53), 2 ** 53], uint64: [0, 2 ** 53] };

/**
 * Deterministic uniform values (xorshift), so a random run can be repeated:
 * floats in [lo, hi), integers in [lo, hi] (both ends included, rounded
 * inwards, clamped to the type), bools false/true.
 */
export function randomData(type, n, seed = 1, lo = 0, hi = 1) {
  let s = seed >>> 0 || 1;
  const next = () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 4294967296; };
  if (!Number.isFinite(lo)) lo = randomRange(type)[0];
  if (!Number.isFinite(hi)) hi = randomRange(type)[1];
  if (hi < lo) [lo, hi] = [hi, lo];
  const lim = INT_LIMITS[type];
  let ilo = 0; let ihi = 0;
  if (lim) {
    ilo = Math.max(lim[0], Math.ceil(lo)); ihi = Math.min(lim[1], Math.floor(hi));
    if (ihi < ilo) ihi = ilo = Math.min(lim[1], Math.max(lim[0], Math.round(lo)));
  }
  const int = () => ilo + Math.min(ihi - ilo, Math.floor(next() * (ihi - ilo + 1)));
  switch (type) {
    case 'float32': return Float32Array.from({ length: n }, () => lo + (hi - lo) * next());
    case 'float64': return Float64Array.from({ length: n }, () => lo + (hi - lo) * next());
    case 'int64': return BigInt64Array.from({ length: n }, () => BigInt(int()));
    case 'uint64': return BigUint64Array.from({ length: n }, () => BigInt(int()));
    case 'int32': return Int32Array.from({ length: n }, int);
    case 'uint32': return Uint32Array.from({ length: n }, int);
    case 'int16': return Int16Array.from({ length: n }, int);
    case 'uint16': return Uint16Array.from({ length: n }, int);
    case 'int8': return Int8Array.from({ length: n }, int);
    case 'uint8': return Uint8Array.from({ length: n }, int);
    case 'bool': return Uint8Array.from({ length: n }, () => (next() < 0.5 ? 1 : 0));
    case 'float16': return Uint16Array.from({ length: n }, () => floatToHalf(lo + (hi - lo) * next()));
    default: return null;
  }
}

/**
 * Segmentation-style outputs [1,C,H,W] (or [C,H,W]) with C from 2 to 1000
 * classes: {c, h, w}; null otherwise.
 */
export function classMapLayout(dims) {
  const d = dims.length === 4 && dims[0] === 1 ? dims.slice(1) : dims;
  if (d.length !== 3) return null;
  const [c, h, w] = d;
  return c >= 2 && c <= 1000 && h >= 4 && w >= 4 && c !== 3 && c !== 4 ? { c, h, w } : null;
}

/** Draws argmax over the channel axis with one colour per class; returns the classes present. */
export function drawClassMap(canvas, nums, dims) {
  const L = classMapLayout(dims);
  if (!L) return null;
  const { c, h, w } = L;
  const n = h * w;
  canvas.width = w; canvas.height = h;
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(w, h);
  const present = new Set();
  for (let i = 0; i < n; i++) {
    let best = 0; let bv = nums[i];
    for (let k = 1; k < c; k++) { const v = nums[k * n + i]; if (v > bv) { bv = v; best = k; } }
    present.add(best);
    // Golden-angle hues: neighbouring class ids get distant colours; class 0 (background, usually) is dark.
    const [r, g, b] = best === 0 ? [20, 20, 20] : hsl((best * 137.508) % 360, 0.65, 0.55);
    img.data[4 * i] = r; img.data[4 * i + 1] = g; img.data[4 * i + 2] = b; img.data[4 * i + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  return [...present].sort((a, b) => a - b);
}

function hsl(h, s, l) {
  const f = (n) => {
    const k = (n + h / 30) % 12;
    const a = s * Math.min(l, 1 - l);
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}
