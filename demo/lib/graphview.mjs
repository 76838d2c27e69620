// The demo's node-link view of a graph, drawn on a canvas so that it stays
// usable at thousands of nodes (a DOM or SVG element per node is what makes
// such views crawl). Layout: layered top to bottom, a node one layer below
// its lowest producer, nodes in a layer ordered by their producers' mean
// column (one barycentre pass) so that chains stay straight. Only what is in
// the viewport is drawn; edge labels (inferred shapes) and node names appear
// once zoomed in enough to read them.
//
// Keyboard: arrows pan, + / − zoom, 0 fits the graph; Enter on a selected
// node re-announces it. Mouse: drag pans, wheel zooms at the pointer, click
// selects.

const BOX_W = 150;
const BOX_H = 30;
const COL = 180;
const ROW = 70;

/**
 * graph: {inputs: [{name, type}], outputs: [{name, type}], nodes: [{name,
 * op, inputs: [names], outputs: [{name, type}]}], initializers: Set of names}.
 */
export function layout(graph) {
  const verts = [];
  const producer = new Map(); // value name → vertex index
  const types = new Map();
  for (const v of graph.inputs) {
    if (graph.initializers.has(v.name)) continue;
    producer.set(v.name, verts.length);
    types.set(v.name, v.type);
    verts.push({ kind: 'input', name: v.name, op: 'input', label: v.name, ins: [], layer: 0, node: null });
  }
  for (const n of graph.nodes) {
    const id = verts.length;
    const ins = [];
    for (const name of n.inputs) if (name && producer.has(name)) ins.push({ from: producer.get(name), value: name });
    for (const o of n.outputs) { if (o.name) { producer.set(o.name, id); types.set(o.name, o.type); } }
    verts.push({ kind: 'node', name: n.name, op: n.op, label: n.op, ins, layer: 0, node: n });
  }
  for (const o of graph.outputs) {
    const ins = producer.has(o.name) ? [{ from: producer.get(o.name), value: o.name }] : [];
    verts.push({ kind: 'output', name: o.name, op: 'output', label: o.name, ins, layer: 0, node: null });
  }
  // Layers (nodes are in topological order in a valid model; a back edge
  // from a broken model just gets no constraint).
  for (let i = 0; i < verts.length; i++) {
    let l = 0;
    for (const e of verts[i].ins) if (e.from < i) l = Math.max(l, verts[e.from].layer + 1);
    verts[i].layer = verts[i].kind === 'input' ? 0 : Math.max(l, 1);
  }
  // Nodes that consume no other node (Constant, ConstantOfShape on an
  // initializer) sit just above their first consumer instead of all in the
  // first row, where they would make one very wide row of long edges.
  const consumers = verts.map(() => []);
  for (let i = 0; i < verts.length; i++) for (const e of verts[i].ins) consumers[e.from].push(i);
  for (let i = verts.length - 1; i >= 0; i--) {
    const v = verts[i];
    if (v.kind !== 'node' || v.ins.length || !consumers[i].length) continue;
    v.layer = Math.max(1, Math.min(...consumers[i].map((c) => verts[c].layer)) - 1);
  }
  const layers = [];
  for (let i = 0; i < verts.length; i++) (layers[verts[i].layer] = layers[verts[i].layer] || []).push(i);
  for (const row of layers) {
    if (!row) continue;
    for (const i of row) {
      const v = verts[i];
      const xs = v.ins.filter((e) => verts[e.from].x !== undefined).map((e) => verts[e.from].x);
      v.bary = xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
    }
    row.sort((a, b) => verts[a].bary - verts[b].bary || a - b);
    row.forEach((i, k) => { verts[i].x = (k - (row.length - 1) / 2) * COL; verts[i].y = verts[i].layer * ROW; });
  }
  const edges = [];
  // Each edge enters its consumer at its own slot, so fan-in edges and their labels do not overlap.
  for (let i = 0; i < verts.length; i++) {
    const ins = verts[i].ins;
    ins.forEach((e, k) => edges.push({ a: e.from, b: i, value: e.value, type: types.get(e.value) || '', dx: (k - (ins.length - 1) / 2) * 28, slot: k }));
  }
  let minX = Infinity; let maxX = -Infinity; let maxY = 0;
  for (const v of verts) { minX = Math.min(minX, v.x); maxX = Math.max(maxX, v.x); maxY = Math.max(maxY, v.y); }
  return { verts, edges, bounds: { minX: minX - BOX_W, maxX: maxX + BOX_W, minY: -ROW, maxY: maxY + ROW } };
}

function colorOf(op) {
  if (op === 'input' || op === 'output') return '#e8f0fe';
  let h = 0;
  for (const c of op) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return `hsl(${h % 360}, 55%, 86%)`;
}

export class GraphView {
  /** canvas: the element to draw on; onSelect(vertex) is called on selection. */
  constructor(canvas, onSelect) {
    this.canvas = canvas;
    this.onSelect = onSelect || (() => {});
    this.L = null;
    this.zoom = 1; this.ox = 0; this.oy = 0; // screen = world * zoom + (ox, oy)
    this.selected = -1;
    this.matches = new Set();
    this._frame = 0;
    this._bind();
  }

  setGraph(graph) {
    this.L = layout(graph);
    this.selected = -1;
    this.matches = new Set();
    this.canvas.dataset.nodes = String(this.L.verts.filter((v) => v.kind === 'node').length);
    // Fitted at the first draw with a size: the view may be in a hidden tab now.
    this._needsFit = true;
    this.draw();
  }

  /** Fits the graph's width; tall graphs start at their top. */
  fit(topOnly) {
    if (!this.L) return;
    const { width, height } = this._size();
    const b = this.L.bounds;
    const zx = width / (b.maxX - b.minX);
    const zy = height / (b.maxY - b.minY);
    this.zoom = Math.min(1.2, topOnly ? Math.max(zx, Math.min(zx, zy), 0.35) : Math.min(zx, zy));
    this.ox = width / 2 - ((b.minX + b.maxX) / 2) * this.zoom;
    this.oy = topOnly && (b.maxY - b.minY) * this.zoom > height ? -b.minY * this.zoom : height / 2 - ((b.minY + b.maxY) / 2) * this.zoom;
    this.draw();
  }

  _size() {
    const r = this.canvas.getBoundingClientRect();
    return { width: Math.max(1, r.width), height: Math.max(1, r.height) };
  }

  /** Vertex indices whose name or op contains q (case-insensitive). */
  search(q) {
    q = q.trim().toLowerCase();
    this.matches = new Set();
    if (!this.L || !q) { this.draw(); return []; }
    const out = [];
    this.L.verts.forEach((v, i) => { if (v.name.toLowerCase().includes(q) || v.op.toLowerCase().includes(q)) out.push(i); });
    // Exact name matches first.
    out.sort((a, b) => (this.L.verts[b].name.toLowerCase() === q) - (this.L.verts[a].name.toLowerCase() === q) || a - b);
    this.matches = new Set(out);
    this.draw();
    return out;
  }

  vertex(i) { return this.L && this.L.verts[i]; }

  /** Centres on vertex i and selects it. */
  focus(i) {
    const v = this.vertex(i);
    if (!v) return;
    this._needsFit = false;
    const { width, height } = this._size();
    if (this.zoom < 0.8) this.zoom = 1;
    this.ox = width / 2 - v.x * this.zoom;
    this.oy = height / 2 - v.y * this.zoom;
    this.select(i);
  }

  select(i) {
    this.selected = i;
    this.canvas.dataset.selected = i >= 0 ? this.L.verts[i].name : '';
    this.draw();
    if (i >= 0) this.onSelect(this.L.verts[i], i);
  }

  _hit(sx, sy) {
    if (!this.L) return -1;
    const x = (sx - this.ox) / this.zoom; const y = (sy - this.oy) / this.zoom;
    for (let i = 0; i < this.L.verts.length; i++) {
      const v = this.L.verts[i];
      if (Math.abs(x - v.x) <= BOX_W / 2 && Math.abs(y - v.y) <= BOX_H / 2) return i;
    }
    return -1;
  }

  _bind() {
    const c = this.canvas;
    let drag = null;
    c.addEventListener('pointerdown', (e) => { drag = { x: e.clientX, y: e.clientY, ox: this.ox, oy: this.oy, moved: false }; c.setPointerCapture(e.pointerId); });
    c.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x; const dy = e.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      this.ox = drag.ox + dx; this.oy = drag.oy + dy;
      this.draw();
    });
    c.addEventListener('pointerup', (e) => {
      if (drag && !drag.moved) {
        const r = c.getBoundingClientRect();
        const i = this._hit(e.clientX - r.left, e.clientY - r.top);
        if (i >= 0) this.select(i);
      }
      drag = null;
    });
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      const r = c.getBoundingClientRect();
      this.zoomAt(e.clientX - r.left, e.clientY - r.top, Math.exp(-e.deltaY * 0.0015));
    }, { passive: false });
    c.addEventListener('keydown', (e) => {
      const step = 60;
      const { width, height } = this._size();
      switch (e.key) {
        case 'ArrowLeft': this.ox += step; break;
        case 'ArrowRight': this.ox -= step; break;
        case 'ArrowUp': this.oy += step; break;
        case 'ArrowDown': this.oy -= step; break;
        case '+': case '=': this.zoomAt(width / 2, height / 2, 1.25); return e.preventDefault();
        case '-': this.zoomAt(width / 2, height / 2, 0.8); return e.preventDefault();
        case '0': this.fit(false); return e.preventDefault();
        case 'Enter': if (this.selected >= 0) this.select(this.selected); return e.preventDefault();
        default: return undefined;
      }
      e.preventDefault();
      this.draw();
      return undefined;
    });
    if (typeof ResizeObserver === 'function') new ResizeObserver(() => this.draw()).observe(c);
  }

  zoomAt(sx, sy, f) {
    const z = Math.min(4, Math.max(0.02, this.zoom * f));
    const k = z / this.zoom;
    this.ox = sx - (sx - this.ox) * k; this.oy = sy - (sy - this.oy) * k;
    this.zoom = z;
    this.draw();
  }

  draw() {
    if (this._frame) return;
    const raf = typeof requestAnimationFrame === 'function' ? requestAnimationFrame : (f) => setTimeout(f, 16);
    this._frame = raf(() => { this._frame = 0; this._draw(); });
  }

  _draw() {
    const c = this.canvas;
    const { width, height } = this._size();
    if (this._needsFit && width > 1 && height > 1) { this._needsFit = false; this.fit(true); return; }
    const dpr = window.devicePixelRatio || 1;
    if (c.width !== Math.round(width * dpr) || c.height !== Math.round(height * dpr)) { c.width = Math.round(width * dpr); c.height = Math.round(height * dpr); }
    const ctx = c.getContext('2d');
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = '#fbfbfd';
    ctx.fillRect(0, 0, c.width, c.height);
    if (!this.L) return;
    const z = this.zoom;
    ctx.setTransform(dpr * z, 0, 0, dpr * z, dpr * this.ox, dpr * this.oy);
    const x0 = -this.ox / z - BOX_W; const x1 = (width - this.ox) / z + BOX_W;
    const y0 = -this.oy / z - BOX_H; const y1 = (height - this.oy) / z + BOX_H;
    const V = this.L.verts;
    let drawn = 0;
    // Edges
    ctx.lineWidth = 1.2 / Math.max(z, 0.3);
    ctx.strokeStyle = '#8a94a6';
    ctx.beginPath();
    const labels = [];
    for (const e of this.L.edges) {
      const a = V[e.a]; const b = V[e.b];
      if (Math.max(a.x, b.x) < x0 || Math.min(a.x, b.x) > x1 || Math.max(a.y, b.y) < y0 || Math.min(a.y, b.y) > y1) continue;
      const ya = a.y + BOX_H / 2; const yb = b.y - BOX_H / 2; const xb = b.x + e.dx;
      ctx.moveTo(a.x, ya);
      ctx.bezierCurveTo(a.x, ya + ROW / 2, xb, yb - ROW / 2, xb, yb);
      // The label sits just above where the edge enters, stacked by slot.
      if (z >= 0.7 && e.type) labels.push([e.type, xb + 4, yb - 8 - 11 * e.slot]);
    }
    ctx.stroke();
    // Nodes
    const showName = z >= 0.9;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (let i = 0; i < V.length; i++) {
      const v = V[i];
      if (v.x < x0 || v.x > x1 || v.y < y0 || v.y > y1) continue;
      drawn++;
      ctx.fillStyle = colorOf(v.op);
      const round = v.kind === 'node' ? 4 : 14;
      ctx.beginPath();
      ctx.roundRect(v.x - BOX_W / 2, v.y - BOX_H / 2, BOX_W, BOX_H, round);
      ctx.fill();
      const hit = this.matches.has(i);
      ctx.lineWidth = (i === this.selected ? 3 : hit ? 2.5 : 1) / Math.max(z, 0.3);
      ctx.strokeStyle = i === this.selected ? '#d93025' : hit ? '#f29900' : '#5f6368';
      ctx.stroke();
      if (z >= 0.25) {
        ctx.fillStyle = '#202124';
        ctx.font = `${showName && v.kind === 'node' ? 600 : 500} 12px system-ui, sans-serif`;
        const text = v.kind === 'node' ? v.op : v.name;
        if (showName && v.kind === 'node' && v.name) {
          ctx.fillText(clip(ctx, text, BOX_W - 8), v.x, v.y - 6);
          ctx.font = '10px system-ui, sans-serif';
          ctx.fillStyle = '#5f6368';
          ctx.fillText(clip(ctx, v.name, BOX_W - 8), v.x, v.y + 8);
        } else {
          ctx.fillText(clip(ctx, text, BOX_W - 8), v.x, v.y);
        }
      }
    }
    // Shapes on edges, readable sizes only.
    ctx.font = '10px ui-monospace, monospace';
    ctx.textAlign = 'left';
    ctx.fillStyle = '#1a73e8';
    for (const [t, x, y] of labels) ctx.fillText(t, x, y);
    c.dataset.drawn = String(drawn);
  }
}

function clip(ctx, s, w) {
  if (ctx.measureText(s).width <= w) return s;
  let lo = 0; let hi = s.length;
  while (lo < hi) { const m = (lo + hi + 1) >> 1; if (ctx.measureText(`${s.slice(0, m)}…`).width <= w) lo = m; else hi = m - 1; }
  return `${s.slice(0, lo)}…`;
}
