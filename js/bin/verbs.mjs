// The verbs of the Node CLI, each the counterpart of cmd/gort's: the same
// options, the same lines (Go's number formats and tabwriter columns, from
// gocompat.mjs) and the same --json documents, built from the library's
// model checks (gort.check, printGraph, capabilities, compare, diverge),
// which answer from gort.wasm with the documents of the Go packages the
// native CLI prints.
import { mkdir, readdir, writeFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import gort from '../dist/gort.mjs';
import { formatG, formatG6, formatGShortest, formatInts, formatDuration, tabwrite, goJSON } from './gocompat.mjs';
import { Flags, EXIT_OK, EXIT_FAILED, EXIT_USAGE } from './flags.mjs';
import { CommandError, readBytes, feeds, expected, fileName } from './data.mjs';

const RED = '\x1b[31m';
const YELLOW = '\x1b[33m';
const GREEN = '\x1b[32m';
const RESET = '\x1b[0m';

// Go maps in the documents (written with sorted keys) and compare.Float fields.
const MAPS = new Set(['opsets', 'ops', 'byOp', 'attrs', 'subgraphs', 'values']);
const FLOATS = new Set(['maxAbs', 'maxRel', 'cosine', 'worstGot', 'worstWant']);
const DEFAULT_RTOL = 1e-3;
const DEFAULT_ATOL = 1e-7;

const paint = (io, color, s) => (io.color ? color + s + RESET : s);
const dash = (s) => (s ? s : '-');
const writeJSON = (io, doc) => io.out(goJSON(doc, { maps: MAPS, floats: FLOATS, sortTop: true }));
const nowMs = () => performance.now();

async function modelBytes(path) {
  try {
    return await readBytes(path);
  } catch (e) {
    throw new CommandError(e.message, EXIT_USAGE);
  }
}

// The model decoded by the library's printer, or exit 2 (as cmd/gort's readModel).
async function printed(path, bytes, webgpuDryRun = false) {
  let pm;
  try {
    pm = await gort.printGraph(bytes, { json: true, webgpuDryRun });
  } catch (e) {
    throw new CommandError(`${path}: ${e.message}`, EXIT_USAGE);
  }
  // A value's shape is Go's nil (null) when the rank is unknown, and reaches
  // JS as []: only a scalar's type text ends in "[]".
  const fix = (v) => {
    if (v && Array.isArray(v.shape) && v.shape.length === 0 && !(v.type || '').endsWith('[]')) v.shape = null;
  };
  const visit = (g) => {
    if (!g) return;
    for (const k of ['inputs', 'initializers', 'outputs']) (g[k] || []).forEach(fix);
    for (const n of g.nodes || []) {
      (n.outputs || []).forEach(fix);
      Object.values(n.subgraphs || {}).forEach(visit);
    }
  };
  visit(pm.graph);
  for (const f of pm.functions || []) visit(f);
  return pm;
}

async function load(path, level) {
  const bytes = await modelBytes(path);
  const t0 = nowMs();
  try {
    const session = await gort.InferenceSession.create(bytes, { logSeverityLevel: 3, graphOptimizationLevel: level || 'all' });
    return { session, bytes, loadMs: nowMs() - t0 };
  } catch (e) {
    throw new CommandError(`${path}: ${e.message}`, EXIT_USAGE);
  }
}

async function dataFeeds(session, v) {
  try {
    return await feeds(session, { data: v.data, inputs: v.inputs });
  } catch (e) {
    throw new CommandError(e.message, EXIT_USAGE);
  }
}

function dataFlags(f, withExpected) {
  f.string('data', '', `a test_data_set_* folder: input_<i>.pb feed the inputs${withExpected ? ', output_<i>.pb are the expected outputs' : ''}`);
  f.multi('inputs', 'inputs from a file: .npz (arrays named as the inputs, or arr_0… in order), .npy or .pb (one input),\n.json ({"name": {"type": "float32", "dims": [..], "data": [..]}} or {"name": nested arrays});\nNAME=FILE feeds one input; repeatable. Inputs not given are random (symbolic dims = 1)');
  if (withExpected) f.multi('expected', 'expected outputs, in the same formats as --inputs; repeatable');
}

function tolFlags(f) {
  f.float('rtol', DEFAULT_RTOL, 'relative tolerance');
  f.float('atol', DEFAULT_ATOL, 'absolute tolerance');
}

// Progress on a terminal's stderr during long work: what is running and for how long.
function progress(io, what) {
  if (!io.progress) return () => {};
  const t0 = nowMs();
  const timer = setInterval(() => io.err(`\r  ${what()} (${((nowMs() - t0) / 1000).toFixed(1)} s)`), 200);
  return () => {
    clearInterval(timer);
    io.err('\r\x1b[K');
  };
}

async function runSession(io, session, f, what) {
  const done = progress(io, () => what);
  try {
    return await session.run(f);
  } catch (e) {
    throw new CommandError(e.message, EXIT_FAILED);
  } finally {
    done();
  }
}

// ---- check

export async function check(io, args) {
  const f = new Flags(io, 'check', 'model.onnx', 'Checks the model as onnx.checker.check_model(full_check=True) would, but lists every\nfinding at once: severity, stable code, node (name and index), op and message.\nExit code 1 when there is an error finding.');
  f.string('external-dir', '', "directory holding the model's external data files (default: the model's directory)");
  f.bool('no-external', false, 'do not read external data files');
  const pos = f.parse(args, 1);
  if (!pos) return EXIT_OK;
  const path = pos[0];
  const bytes = await modelBytes(path);
  let rep;
  if (f.values['no-external']) {
    rep = await gort.check(bytes, { externalData: null });
  } else {
    // The external files the model names: the checker's "was not provided" findings say which.
    const none = await gort.check(bytes, { externalData: null });
    const dir = f.values['external-dir'] || dirOf(path);
    const files = [];
    for (const x of none.findings) {
      const m = x.code === 'EXTERNAL_DATA_NOT_CHECKED' && /is stored in ("(?:[^"\\]|\\.)*"), which was not provided$/.exec(x.message);
      if (!m) continue;
      const loc = JSON.parse(m[1]);
      if (loc.includes('..') || files.some((e) => e.path === loc)) continue;
      try {
        files.push({ path: loc, data: await readBytes(`${dir}/${loc}`) });
      } catch { /* missing: the checker reports it */ }
    }
    rep = await gort.check(bytes, { externalData: files });
  }
  // As cmd/gort: an empty file is unreadable input; bytes that do not
  // decode are still a report (one MODEL_DECODE finding), with exit code 2.
  if (bytes.length === 0) throw new CommandError(`${path}: the model is empty (0 bytes)`, EXIT_USAGE);
  if (rep.findings.some((x) => x.code === 'MODEL_DECODE')) {
    if (f.values.json) writeJSON(io, { model: path, ok: false, errors: rep.errors, warnings: rep.warnings, findings: rep.findings });
    else printFindings(io, rep.findings);
    return EXIT_USAGE;
  }
  if (f.values.json) {
    writeJSON(io, { model: path, ok: rep.ok, errors: rep.errors, warnings: rep.warnings, findings: rep.findings });
  } else {
    printFindings(io, rep.findings);
    const summary = `${path}: ${rep.errors} error(s), ${rep.warnings} warning(s)`;
    io.out(`${paint(io, rep.ok ? GREEN : RED, summary)}\n`);
  }
  return rep.ok ? EXIT_OK : EXIT_FAILED;
}

function dirOf(p) {
  const i = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
  return i >= 0 ? p.slice(0, i) : '.';
}

function printFindings(io, findings) {
  if (findings.length === 0) return;
  let s = 'SEVERITY\tCODE\tNODE\tOP\tMESSAGE\n';
  for (const x of findings) {
    const sev = paint(io, x.severity === 'error' ? RED : YELLOW, x.severity.padEnd(8));
    let node = x.node || '';
    if (node) node = `${node} (#${x.nodeIndex})`;
    if (x.graph && x.graph !== 'main') node = `${x.graph}: ${node}`;
    const msg = x.tensor ? `${JSON.stringify(x.tensor)}: ${x.message}` : x.message;
    s += `${sev}\t${x.code}\t${dash(node)}\t${dash(x.op)}\t${msg}\n`;
  }
  io.out(tabwrite(s));
}

// ---- inspect

export async function inspect(io, args) {
  const f = new Flags(io, 'inspect', 'model.onnx', 'Summarizes the model: inputs and outputs with their types, opsets, op counts, how many\nvalue shapes inference determines, and every node gort cannot run (with the reason).');
  const pos = f.parse(args, 1);
  if (!pos) return EXIT_OK;
  const path = pos[0];
  const bytes = await modelBytes(path);
  const pm = await printed(path, bytes);
  const caps = await gort.capabilities(bytes);
  const capabilities = { nodes: caps.nodes, supported: caps.supported, unsupported: caps.unsupported, byOp: caps.byOp };
  const doc = { model: path, irVersion: pm.irVersion, opsets: pm.opsets, producer: pm.producer, inputs: null, outputs: null, initializers: 0, nodes: 0, ops: {}, shapes: { values: 0, ranked: 0, complete: 0 }, capabilities };
  if (pm.graph) {
    const g = pm.graph;
    Object.assign(doc, { inputs: g.inputs, outputs: g.outputs, initializers: g.initializers.length, nodes: g.nodes.length });
    for (const n of g.nodes) {
      doc.ops[n.op] = (doc.ops[n.op] || 0) + 1;
      for (const o of n.outputs) {
        doc.shapes.values++;
        if (o.shape) {
          doc.shapes.ranked++;
          if (o.shape.every((d) => d !== null)) doc.shapes.complete++;
        }
      }
    }
  }
  if (f.values.json) {
    io.out(goJSON(doc, { maps: MAPS, floats: FLOATS }));
    return EXIT_OK;
  }
  const opsets = Object.keys(doc.opsets).sort().map((k) => `${k} ${doc.opsets[k]}`).join(', ');
  let s = `${path}: IR ${doc.irVersion}, opsets ${opsets}${doc.producer ? `, producer ${doc.producer}` : ''}\n`;
  s += `${doc.nodes} nodes, ${doc.initializers} initializers\n`;
  let t = '';
  for (const v of doc.inputs || []) t += `  input\t${v.name}\t${dash(v.type)}\n`;
  for (const v of doc.outputs || []) t += `  output\t${v.name}\t${dash(v.type)}\n`;
  s += tabwrite(t);
  const ops = Object.keys(doc.ops).sort((a, b) => doc.ops[b] - doc.ops[a] || (a < b ? -1 : a > b ? 1 : 0));
  s += `ops: ${ops.map((o) => `${o} ${doc.ops[o]}`).join(', ')}\n`;
  s += `shapes: ${doc.shapes.ranked} of ${doc.shapes.values} node outputs have a known rank, ${doc.shapes.complete} every dim\n`;
  if (capabilities.unsupported.length === 0) {
    io.out(`${s}${paint(io, GREEN, `gort can run all ${capabilities.nodes} nodes`)}\n`);
    return EXIT_OK;
  }
  // The unsupported ops by count, most first, then by name (as cmd/gort sorts them).
  const byOp = Object.keys(capabilities.byOp).sort((a, b) => capabilities.byOp[b] - capabilities.byOp[a] || (a < b ? -1 : a > b ? 1 : 0))
    .map((o) => `${o} ${capabilities.byOp[o]}`).join(', ');
  s += `${paint(io, RED, `gort cannot run ${capabilities.unsupported.length} of ${capabilities.nodes} nodes (${byOp}):`)}\n`;
  s += tabwrite(capabilities.unsupported.map((u) => `  ${u.node} (#${u.nodeIndex})\t${u.op}\t${u.reason}\n`).join(''));
  io.out(s);
  return EXIT_OK;
}

// ---- print

export async function print(io, args) {
  const f = new Flags(io, 'print', 'model.onnx', 'Prints the graph in the spirit of onnx.helper.printable_graph, with the inferred type and\nshape of every value and subgraphs indented; --json gives the same as a JSON document.');
  f.bool('webgpu', false, "also show where a WebGPU session would run each node, and why a node stays on the CPU\n(WebGPU's placement rules and default cost threshold, decided without a device)");
  const pos = f.parse(args, 1);
  if (!pos) return EXIT_OK;
  const bytes = await modelBytes(pos[0]);
  const pm = await printed(pos[0], bytes, f.values.webgpu);
  if (f.values.json) {
    io.out(goJSON(pm, { maps: MAPS, floats: FLOATS }));
    return EXIT_OK;
  }
  io.out(await gort.printGraph(bytes, { webgpuDryRun: f.values.webgpu }));
  return EXIT_OK;
}

// ---- run

function checksum(t) {
  if (t.type === 'bool' || t.type === 'string') return 0;
  let s = 0;
  try {
    for (const v of gort._convert.toNumbers(t)) s += v;
  } catch {
    return 0;
  }
  return s;
}

const isTensor = (v) => v instanceof gort.Tensor;

// Go's nil slices, which reach JS as empty arrays: a scalar's shape, and the
// worst index of a comparison without mismatches (set only on a mismatch).
const nilIfEmpty = (a) => (a && a.length > 0 ? a : null);
function goStats(st) {
  return { ...st, gotShape: nilIfEmpty(st.gotShape), wantShape: nilIfEmpty(st.wantShape), worstIndex: st.mismatches > 0 ? st.worstIndex : null };
}

// Whether an output is a plain tensor (optional ones arrive unwrapped, but
// are *tensor.Optional to the native CLI).
const tensorOutput = (session, i) => ((session.outputMetadata[i] || {}).kind || 'tensor') === 'tensor';

function summaries(session, out) {
  return session.outputNames.map((name, i) => {
    const v = out[name];
    if (!tensorOutput(session, i) || !isTensor(v)) {
      const kind = (session.outputMetadata[i] || {}).kind || '';
      return { name, dtype: kind.startsWith('optional') ? '*tensor.Optional' : kind === 'sequence' ? '*tensor.Sequence' : '<nil>', shape: null, checksum: 0 };
    }
    return { name, dtype: v.type, shape: nilIfEmpty([...v.dims]), checksum: checksum(v) };
  });
}

// compare.Compare for values that are not plain tensors: sequences item by
// item, optionals by presence then value; "" when they match.
async function compareValue(got, want, tol) {
  const what = (v) => (v === null || v === undefined ? '*tensor.Optional' : Array.isArray(v) ? '*tensor.Sequence' : '*tensor.Tensor');
  if (want === null || want === undefined) return got === null || got === undefined ? '' : `optional presence differs (got true, want false)`;
  if (got === null || got === undefined) return 'optional presence differs (got false, want true)';
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return `got a ${what(got)}, want a sequence`;
    if (got.length !== want.length) return `sequence has ${got.length} items, want ${want.length}`;
    for (let i = 0; i < want.length; i++) {
      const d = await compareValue(got[i], want[i], tol);
      if (d) return `item ${i}: ${d}`;
    }
    return '';
  }
  if (!isTensor(got)) return `got a ${what(got)}, want a tensor`;
  if (got.type !== want.type) return `dtype ${got.type}, want ${want.type}`;
  if (formatInts(got.dims) !== formatInts(want.dims)) return `shape ${formatInts(got.dims)}, want ${formatInts(want.dims)}`;
  const st = await gort.compare(got, want, tol);
  return st.pass ? '' : `${st.mismatches} of ${st.elements} elements differ (max abs ${formatG(st.maxAbs, 3)})`;
}

export async function run(io, args) {
  const f = new Flags(io, 'run', 'model.onnx', "Runs the model and prints each output's dtype, shape and checksum (the sum of its values).");
  dataFlags(f, false);
  f.int('repeat', 1, 'number of timed runs (the best is reported)');
  f.string('save', '', 'write the outputs to this .npz file');
  f.string('save-values', '', 'write every node output to this folder as <value>.npy (a reference for diverge)');
  const pos = f.parse(args, 1);
  if (!pos) return EXIT_OK;
  const v = f.values;
  const { session, bytes, loadMs } = await load(pos[0]);
  const { feeds: fd, notes } = await dataFeeds(session, v);
  const runs = Math.max(v.repeat, 1);
  let out;
  let best = 0;
  for (let r = 0; r < runs; r++) {
    const t0 = nowMs();
    out = await runSession(io, session, fd, runs > 1 ? `run ${r + 1}/${runs}` : 'running');
    const d = nowMs() - t0;
    if (r === 0 || d < best) best = d;
  }
  const sums = summaries(session, out);
  if (v['save-values']) {
    try {
      await saveValues(v['save-values'], await gort._recordValues(bytes, fd));
    } catch (e) {
      throw new CommandError(e.message, EXIT_FAILED);
    }
  }
  if (v.save) {
    const arrays = {};
    for (const name of session.outputNames) if (isTensor(out[name])) arrays[name] = out[name];
    try {
      await writeFile(v.save, await gort.writeNpy(arrays));
    } catch (e) {
      throw new CommandError(e.message, EXIT_FAILED);
    }
  }
  await session.release();
  if (v.json) {
    writeJSON(io, { model: pos[0], loadMs: roundMs(loadMs), runMs: roundMs(best), runs, inputs: notes, outputs: sums });
    return EXIT_OK;
  }
  let s = `${pos[0]}: loaded in ${formatDuration(loadMs)}, ran in ${formatDuration(best)} (best of ${runs})\n`;
  for (const n of notes) s += `  ${n}\n`;
  s += tabwrite(sums.map((x) => `  ${x.name}\t${x.dtype}${formatInts(x.shape)}\tchecksum ${formatG6(x.checksum)}\n`).join(''));
  io.out(s);
  return EXIT_OK;
}

// Every value of a run as <fileName(value)>.npy (cmd/gort's writeValues),
// leaving out the dtypes NumPy lacks (bfloat16, 8-bit floats).
async function saveValues(dir, values) {
  await mkdir(dir, { recursive: true });
  for (const [name, t] of Object.entries(values)) {
    let b;
    try {
      b = await gort.writeNpy(t);
    } catch {
      continue;
    }
    await writeFile(join(dir, `${fileName(name)}.npy`), b);
  }
}

// cmd/gort's ms(): whole microseconds, in milliseconds.
const roundMs = (ms) => Math.trunc(ms * 1000) / 1000;

// ---- compare

function comparisonTable(io, rs) {
  let s = 'OUTPUT\tDTYPE\tSHAPE\tMAX ABS\tMAX REL\tMISMATCHES\tCOSINE\tWORST (got / want)\tRESULT\n';
  for (const r of rs) {
    const res = r.pass ? 'ok  ' : paint(io, RED, 'FAIL');
    if (!r.stats) {
      s += `${r.name}\t-\t-\t-\t-\t-\t-\t${dash(r.note)}\t${res}\n`;
      continue;
    }
    const st = r.stats;
    let worst = st.worstIndex ? `${formatInts(st.worstIndex)} ${formatG6(st.worstGot)} / ${formatG6(st.worstWant)}` : '-';
    if (st.note) worst = st.note;
    const cos = Number.isFinite(st.cosine) ? st.cosine.toFixed(6) : formatGShortest(st.cosine);
    s += `${r.name}\t${st.gotDtype}\t${formatInts(st.gotShape)}\t${formatG(st.maxAbs, 3)}\t${formatG(st.maxRel, 3)}\t${st.mismatches}/${st.elements}\t${cos}\t${worst}\t${res}\n`;
  }
  io.out(tabwrite(s));
}

export async function compare(io, args) {
  const f = new Flags(io, 'compare', 'model.onnx', 'Runs the model and compares each output with the expected one: dtype and shape, max abs and\nrel error, mismatches at atol + rtol·|expected| (ONNX defaults rtol 1e-3, atol 1e-7), cosine\nsimilarity and the worst element. Exit code 1 when an output differs.');
  dataFlags(f, true);
  tolFlags(f);
  const pos = f.parse(args, 1);
  if (!pos) return EXIT_OK;
  const v = f.values;
  if (!v.data && v.expected.length === 0) {
    io.err('gort compare: give --data DIR or --expected FILE\n');
    return EXIT_USAGE;
  }
  const { session } = await load(pos[0]);
  const { feeds: fd, notes } = await dataFeeds(session, v);
  let want;
  try {
    want = await expected(session, v);
  } catch (e) {
    throw new CommandError(e.message, EXIT_USAGE);
  }
  if (Object.keys(want).length === 0) {
    io.err('gort compare: no expected outputs found\n');
    return EXIT_USAGE;
  }
  const got = await runSession(io, session, fd, 'running');
  await session.release();
  const results = [];
  let pass = true;
  for (const [i, name] of session.outputNames.entries()) {
    if (!(name in want)) {
      results.push({ name, note: 'no expected value', pass: true });
      continue;
    }
    const r = { name };
    if (tensorOutput(session, i) && isTensor(got[name]) && isTensor(want[name])) {
      const st = goStats(await gort.compare(got[name], want[name], { rtol: v.rtol, atol: v.atol }));
      Object.assign(r, { stats: st, note: st.note, pass: st.pass });
    } else {
      r.note = await compareValue(got[name], want[name], { rtol: v.rtol, atol: v.atol });
      r.pass = r.note === '';
    }
    pass = pass && r.pass;
    results.push(r);
  }
  if (v.json) {
    writeJSON(io, { model: pos[0], pass, rtol: v.rtol, atol: v.atol, inputs: notes, outputs: results });
  } else {
    let s = notes.map((n) => `${n}\n`).join('');
    io.out(s);
    comparisonTable(io, results);
    const failed = results.filter((r) => !r.pass).length;
    s = `${pass ? 'PASS' : 'FAIL'}: ${results.length - failed} of ${results.length} outputs match (rtol ${formatGShortest(v.rtol)}, atol ${formatGShortest(v.atol)})`;
    io.out(`${paint(io, pass ? GREEN : RED, s)}\n`);
  }
  return pass ? EXIT_OK : EXIT_FAILED;
}

// ---- diverge

// Per-value references: an .npz by value name, or a folder of
// <fileName(value)>.npy for the model's values (its inputs and node outputs).
async function readReference(path, pm) {
  if (path.toLowerCase().endsWith('.npz')) return gort.readNpy(await readBytes(path));
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    await readBytes(path); // throws Go's "open PATH: ..." text
    throw e;
  }
  if (!st.isDirectory()) throw new Error(`${path}: want a folder of .npy files or an .npz`);
  const files = new Set(await readdir(path));
  const names = new Set();
  const visit = (g) => {
    if (!g) return;
    for (const x of g.inputs || []) names.add(x.name);
    for (const n of g.nodes || []) {
      for (const o of n.outputs || []) names.add(o.name);
      for (const sg of Object.values(n.subgraphs || {})) visit(sg);
    }
  };
  visit(pm.graph);
  const out = {};
  for (const n of [...names].sort()) {
    const file = `${fileName(n)}.npy`;
    if (!files.has(file)) continue;
    try {
      out[n] = await gort.readNpy(await readBytes(join(path, file)));
    } catch (e) {
      throw new Error(`${fileName(n)}.npy: ${e.message}`);
    }
  }
  return out;
}

export async function diverge(io, args) {
  const f = new Flags(io, 'diverge', 'model.onnx', "Runs the model with a trace of every node's outputs and names the first node, in\ntopological order, whose output differs from a reference beyond tolerance, with the\ncomparison of its outputs and whether its inputs still agreed. The reference is a folder\nof <value>.npy files (gort run --save-values, or dumped from another runtime), an .npz of\nvalues by name, or (--unoptimized) the same model run with graph optimization disabled.\nExit code 1 when a node diverges.");
  dataFlags(f, false);
  f.string('reference', '', 'per-value reference outputs: a folder of <value>.npy files or an .npz');
  f.bool('unoptimized', false, 'compare the optimized run against a run with graph optimization disabled');
  tolFlags(f);
  const pos = f.parse(args, 1);
  if (!pos) return EXIT_OK;
  const v = f.values;
  if ((v.reference === '') === !v.unoptimized) {
    io.err('gort diverge: give exactly one of --reference or --unoptimized\n');
    return EXIT_USAGE;
  }
  const { session, bytes } = await load(pos[0]);
  const { feeds: fd, notes } = await dataFeeds(session, v);
  await session.release();
  const opts = { rtol: v.rtol, atol: v.atol };
  if (v.unoptimized) opts.unoptimized = true;
  else {
    try {
      opts.reference = await readReference(v.reference, await printed(pos[0], bytes));
    } catch (e) {
      throw new CommandError(e.message, EXIT_FAILED);
    }
  }
  let res;
  const done = progress(io, () => 'tracing every node');
  try {
    res = await gort.diverge(bytes, fd, opts);
  } catch (e) {
    if (!v.unoptimized && Object.keys(opts.reference).length === 0) res = null;
    else throw new CommandError(e.message, EXIT_FAILED);
  } finally {
    done();
  }
  if (res === null || (!v.unoptimized && res.summary.compared === 0)) {
    io.err(`gort diverge: no value of the run has a reference in ${v.reference}\n`);
    return EXIT_USAGE;
  }
  const div = res.divergence ? { ...res.divergence, outputs: res.divergence.outputs.map((o) => ({ ...o, stats: goStats(o.stats) })) } : null;
  if (v.json) {
    writeJSON(io, { model: pos[0], diverged: div !== null && div !== undefined, divergence: div, summary: res.summary, inputs: notes });
    return div ? EXIT_FAILED : EXIT_OK;
  }
  io.out(notes.map((n) => `${n}\n`).join(''));
  const sum = res.summary;
  if (!div) {
    io.out(`${paint(io, GREEN, `no divergence: ${sum.compared} values compared over ${sum.steps} nodes (${sum.skipped} without reference)`)}\n`);
    return EXIT_OK;
  }
  io.out(`${paint(io, RED, `first divergence at node ${div.node} (${div.op}, #${div.index} in execution order)`)}\n`);
  comparisonTable(io, div.outputs.map((o) => ({ name: o.name, stats: o.stats, pass: o.stats.pass })));
  if (div.inputsAgreed) io.out('its inputs agreed with the reference: the node itself computes differently\n');
  else io.out(`its inputs already differed: ${(div.inputNotes || []).join('; ')}\n`);
  return EXIT_FAILED;
}

// ---- bench

/** Nearest-rank percentile (p in 0..100) of ascending values. */
export const percentile = (sorted, p) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];

export async function bench(io, args) {
  const f = new Flags(io, 'bench', 'model.onnx', 'Loads the model once and runs it N times on the same inputs: the cold create (load and\nplan), the first run, and the median and 90th percentile of the runs after the first.');
  dataFlags(f, false);
  f.int('runs', 10, 'number of runs, the first included');
  f.bool('profile', false, 'also print where the steady-state time goes: per op type and the slowest nodes');
  const pos = f.parse(args, 1);
  if (!pos) return EXIT_OK;
  const v = f.values;
  if (v.runs < 1) {
    io.err('gort bench: --runs must be at least 1\n');
    return EXIT_USAGE;
  }
  if (v.profile) {
    // The JS package does not time single nodes; the native CLI built for
    // wasm does (see README, Benchmarks).
    io.err('gort bench: --profile is only in the native CLI (go run ./cmd/gort bench --profile, or built for GOOS=js)\n');
    return EXIT_USAGE;
  }
  const { session, loadMs } = await load(pos[0]);
  const { feeds: fd, notes } = await dataFeeds(session, v);
  const times = [];
  for (let r = 0; r < v.runs; r++) {
    const t0 = nowMs();
    await runSession(io, session, fd, `run ${r + 1}/${v.runs}`);
    times.push(nowMs() - t0);
  }
  await session.release();
  const warm = (times.length > 1 ? times.slice(1) : times).slice().sort((a, b) => a - b);
  const doc = { model: pos[0], runs: v.runs, createMs: roundMs(loadMs), firstRunMs: roundMs(times[0]), medianMs: roundMs(percentile(warm, 50)), p90Ms: roundMs(percentile(warm, 90)), inputs: notes };
  if (v.json) {
    io.out(goJSON(doc));
    return EXIT_OK;
  }
  let s = `${pos[0]}: ${v.runs} run(s)\n`;
  for (const n of notes) s += `  ${n}\n`;
  s += tabwrite([
    `  cold create\t${formatDuration(loadMs)}\n`,
    `  first run\t${formatDuration(times[0])}\n`,
    `  median\t${formatDuration(percentile(warm, 50))}\n`,
    `  p90\t${formatDuration(percentile(warm, 90))}\n`,
  ].join(''));
  io.out(s);
  return EXIT_OK;
}
