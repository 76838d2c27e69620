// Text detection with PP-OCRv4's detector (a DBNet): the input tensor from
// RGBA pixels and the text boxes from its probability map, as PaddleOCR's
// own pre- and post-processing does them (DetResizeForTest, NormalizeImage,
// DBPostProcess), simplified to axis-aligned boxes. Pure functions, tested in
// Node (test/lib.test.mjs).

// PaddleOCR reads images with OpenCV (BGR) and normalises them with the
// ImageNet mean and std, channel by channel in that order.
export const DET_MEAN = [0.485, 0.456, 0.406];
export const DET_STD = [0.229, 0.224, 0.225];

/** Sizes the detector takes: each side a multiple of 32 (at least 32), the longer side at most `limit`. */
export function detSize(w, h, limit = 640) {
  const s = Math.min(1, limit / Math.max(w, h));
  const r = (x) => Math.max(32, Math.round((x * s) / 32) * 32);
  return { w: r(w), h: r(h) };
}

/** The float32 NCHW input [1,3,h,w] of RGBA pixels: channels B, G, R, each (x/255 − mean)/std. */
export function detInput(rgba, w, h) {
  const n = w * h;
  const out = new Float32Array(3 * n);
  for (let c = 0; c < 3; c++) {
    const src = 2 - c; // B, G, R
    const m = DET_MEAN[c]; const s = DET_STD[c];
    const base = c * n;
    for (let i = 0; i < n; i++) out[base + i] = (rgba[4 * i + src] / 255 - m) / s;
  }
  return out;
}

/**
 * Text boxes of a probability map prob[h*w] (DBPostProcess): pixels above
 * `thresh` grouped into 8-connected regions; a region's score is the mean
 * probability over its bounding box; boxes scoring under `boxThresh` or
 * smaller than `minSize` are dropped; the rest are grown by
 * area·unclip/perimeter on each side (the "unclip" that restores the text's
 * full extent from the shrunk kernel the network predicts). Returns
 * [{x0, y0, x1, y1, score}] in map pixels (x1, y1 exclusive), top to bottom,
 * left to right.
 */
export function detBoxes(prob, w, h, { thresh = 0.3, boxThresh = 0.6, unclip = 1.5, minSize = 3, maxBoxes = 1000 } = {}) {
  const label = new Int32Array(w * h);
  const stack = new Int32Array(w * h);
  const boxes = [];
  let next = 0;
  for (let start = 0; start < w * h; start++) {
    if (label[start] || prob[start] <= thresh) continue;
    next++;
    let x0 = w; let y0 = h; let x1 = -1; let y1 = -1;
    let sp = 0;
    stack[sp++] = start; label[start] = next;
    while (sp) {
      const p = stack[--sp];
      const x = p % w; const y = (p - x) / w;
      if (x < x0) x0 = x; if (x > x1) x1 = x; if (y < y0) y0 = y; if (y > y1) y1 = y;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const q = yy * w + xx;
          if (!label[q] && prob[q] > thresh) { label[q] = next; stack[sp++] = q; }
        }
      }
    }
    const bw = x1 - x0 + 1; const bh = y1 - y0 + 1;
    if (Math.min(bw, bh) < minSize) continue;
    let sum = 0;
    for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) sum += prob[y * w + x];
    const score = sum / (bw * bh);
    if (score < boxThresh) continue;
    const d = (bw * bh * unclip) / (2 * (bw + bh));
    const b = {
      x0: Math.max(0, Math.floor(x0 - d)), y0: Math.max(0, Math.floor(y0 - d)),
      x1: Math.min(w, Math.ceil(x1 + 1 + d)), y1: Math.min(h, Math.ceil(y1 + 1 + d)), score,
    };
    if (Math.min(b.x1 - b.x0, b.y1 - b.y0) < minSize + 2) continue;
    boxes.push(b);
    if (boxes.length >= maxBoxes) break;
  }
  return boxes.sort((a, b) => (Math.abs(a.y0 - b.y0) > 10 ? a.y0 - b.y0 : a.x0 - b.x0));
}
