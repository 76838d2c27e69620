// Model checks, client-side: check, inferShapes, printGraph, capabilities,
// compare, diverge, and .npy/.npz. Each is one call into gort.wasm
// (wasm/checks.go), which answers with the same documents the CLIs print
// with --json; the Go packages behind them are runtime/check, shapes,
// printer, compare, diverge and npy.
import { ErrorCode, gortError } from './errors.js';
import { Tensor } from './tensor.js';
import { defaultBackend } from './backends/index.js';
import { readSource } from './io.js';
import { loadArguments } from './session.js';
import { feedToWire, wireToValue } from './wire.js';

const tool = (name, ...args) => defaultBackend().tool(name, args);

/**
 * Every finding at once: {ok, errors, warnings, findings: [{severity, code, node, nodeIndex, op, message, ...}]}.
 * {externalData: null} leaves external data unchecked (EXTERNAL_DATA_NOT_CHECKED warnings naming each file,
 * as `gort check --no-external`); otherwise a file the model names and externalData lacks is an error.
 */
export async function check(model, options) {
  const unchecked = !!options && options.externalData === null;
  const { bytes, loadOpts } = await loadArguments(model, unchecked ? { ...options, externalData: undefined } : options);
  // Given no externalData, the files the model names are missing (errors), unlike null (unchecked).
  return tool('check', bytes, { externalData: unchecked ? null : loadOpts.externalData === undefined ? [] : loadOpts.externalData });
}

/** Inferred type and shape of every value: {values: {name: {type, elem, shape, why}}, problems}. */
export async function inferShapes(model) {
  const { bytes } = await loadArguments(model);
  return tool('inferShapes', bytes);
}

/** The graph as text (printable_graph style) or, with {json: true}, as a document. */
export async function printGraph(model, options) {
  const o = options || {};
  // With executionProviders (as create takes), each node shows where it runs.
  const { bytes, loadOpts } = await loadArguments(model, o);
  // webgpuDryRun: where a WebGPU session would run each node, by WebGPU's
  // rules and default cost threshold, decided without a device.
  return tool('printGraph', bytes, Object.assign(loadOpts, { json: !!o.json, webgpuDryRun: !!o.webgpuDryRun }));
}

/**
 * What gort can run, before running: unsupported nodes with reasons, what
 * the optimiser folded, removed and fused, and where each step runs, for
 * the given session options (as InferenceSession.create takes).
 */
export async function capabilities(model, options) {
  const { bytes, loadOpts } = await loadArguments(model, options);
  return tool('capabilities', bytes, loadOpts);
}

function wireOf(v, what) {
  if (!v || typeof v !== 'object' || !('dims' in v) || !('data' in v)) throw gortError(ErrorCode.INVALID_ARGUMENT, `${what} must be a Tensor`);
  return feedToWire(v, what);
}

// Feeds as run takes them (sequences and optionals too), in the wire format.
function feedsToWire(feeds) {
  const wf = {};
  for (const [k, v] of Object.entries(feeds || {})) wf[k] = feedToWire(v, `feeds.${k}`);
  return wf;
}

// {name: wire} from gort.wasm as {name: value}.
function valuesOf(r) {
  const out = {};
  for (const [k, v] of Object.entries(r)) out[k] = wireToValue(v);
  return out;
}

/**
 * Compares outputs with expected ones: one tensor with another, or
 * {name: Tensor} with {name: Tensor}. ONNX's defaults: rtol 1e-3, atol 1e-7.
 * Returns {pass, outputs: {name: stats}} (stats: dtype and shape match, max
 * abs and rel error, mismatches, cosine similarity, worst index).
 */
export async function compare(got, want, options) {
  const tol = options || {};
  const single = got instanceof Tensor || (got && 'dims' in got && 'data' in got);
  const g = single ? { output: got } : got || {};
  const w = single ? { output: want } : want || {};
  const outputs = {};
  let pass = true;
  for (const name of Object.keys(w)) {
    if (!(name in g)) {
      outputs[name] = { pass: false, missing: true };
      pass = false;
      continue;
    }
    const st = await tool('compareValues', wireOf(g[name], `got.${name}`), wireOf(w[name], `want.${name}`), tol);
    outputs[name] = st;
    if (!st.pass) pass = false;
  }
  return single ? outputs.output : { pass, outputs };
}

/**
 * Runs the model node by node and names the first node whose output
 * differs: against per-node reference values ({reference: {value: Tensor}})
 * or, with {unoptimized: true}, against the same model with the optimiser off.
 */
export async function diverge(model, feeds, options) {
  const o = options || {};
  const { bytes } = await loadArguments(model);
  const wf = feedsToWire(feeds);
  const opts = { unoptimized: !!o.unoptimized, rtol: o.rtol, atol: o.atol };
  if (o.reference) {
    opts.reference = {};
    for (const [k, v] of Object.entries(o.reference)) opts.reference[k] = wireOf(v, `reference.${k}`);
  }
  return tool('diverge', bytes, wf, opts);
}

/** Reads .npy (one Tensor) or .npz ({name: Tensor}) bytes. */
export async function readNpy(bytes) {
  const r = await tool('readNpy', await readSource(bytes, 'the .npy/.npz data'));
  if (r && r.kind === 'tensor') return wireToValue(r);
  return valuesOf(r);
}

/** Writes a Tensor as .npy, or {name: Tensor} as .npz. */
export async function writeNpy(value) {
  if (value instanceof Tensor || (value && 'dims' in value && 'data' in value)) return tool('writeNpy', wireOf(value, 'value'));
  const w = {};
  for (const [k, v] of Object.entries(value || {})) w[k] = wireOf(v, k);
  return tool('writeNpy', w);
}

