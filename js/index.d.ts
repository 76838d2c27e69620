// Type definitions for gort, hand-written to mirror onnxruntime-web's API
// (the common path: InferenceSession, Tensor, env).

/** Element types, spelled as onnxruntime-web spells them (plus gort's extras). */
export type TensorType =
  | 'float32' | 'float64' | 'float16' | 'bfloat16'
  | 'int8' | 'int16' | 'int32' | 'int64'
  | 'uint8' | 'uint16' | 'uint32' | 'uint64'
  | 'bool' | 'string'
  | 'int4' | 'uint4' | 'int2' | 'uint2'
  | 'float8e4m3fn' | 'float8e4m3fnuz' | 'float8e5m2' | 'float8e5m2fnuz' | 'float8e8m0' | 'float4e2m1'
  | 'complex64' | 'complex128';

/** The JS array type holding a tensor's data. */
export interface TensorDataTypeMap {
  float32: Float32Array; float64: Float64Array;
  /** IEEE half bit patterns (or a Float16Array where the platform has one, as input). */
  float16: Uint16Array; bfloat16: Uint16Array;
  int8: Int8Array; int16: Int16Array; int32: Int32Array; int64: BigInt64Array;
  uint8: Uint8Array; uint16: Uint16Array; uint32: Uint32Array; uint64: BigUint64Array;
  /** One byte per element, 0 or 1. */
  bool: Uint8Array;
  string: string[];
  /** Unpacked: one element per byte. */
  int4: Int8Array; uint4: Uint8Array; int2: Int8Array; uint2: Uint8Array;
  /** Raw 8-bit (or 4-bit) float codes, one per byte. */
  float8e4m3fn: Uint8Array; float8e4m3fnuz: Uint8Array; float8e5m2: Uint8Array;
  float8e5m2fnuz: Uint8Array; float8e8m0: Uint8Array; float4e2m1: Uint8Array;
  /** Interleaved (re, im) pairs: 2 × size values. */
  complex64: Float32Array; complex128: Float64Array;
}

export type TensorData = TensorDataTypeMap[TensorType];

/** A global WebGPU type when the program has one (@webgpu/types), else the fallback; as onnxruntime-common does. */
type TryGetGlobalType<Name extends string, Fallback = unknown> =
  typeof globalThis extends { [k in Name]: { prototype: infer T } } ? T : Fallback;
/** A GPUBuffer (from @webgpu/types when present). */
export type GpuBuffer = TryGetGlobalType<'GPUBuffer', { readonly size: number; readonly usage: number; destroy(): void }>;
/** A GPUDevice (from @webgpu/types when present). */
export type GpuDevice = TryGetGlobalType<'GPUDevice', { createBuffer(descriptor: { size: number; usage: number; mappedAtCreation?: boolean }): GpuBuffer; readonly queue: unknown }>;

export interface TensorFromGpuBufferOptions {
  /** gort keeps float32 tensors on the GPU only; another type is GORT_INVALID_ARGUMENT. */
  dataType?: 'float32';
  dims: readonly number[];
  /** Reads the data back for getData(); by default gort copies it through its device. */
  download?: () => Promise<Float32Array>;
  /** Called by dispose(); by default the caller's buffer is left alone. */
  dispose?: () => void;
}

export declare class Tensor<T extends TensorType = TensorType> {
  /** new Tensor(type, data, dims?) — dims default to [data.length]. Data is not copied. */
  constructor(type: T, data: TensorDataTypeMap[T] | readonly number[] | readonly bigint[] | readonly boolean[] | readonly string[], dims?: readonly number[]);
  /** new Tensor(typedArray, dims?) — the type follows from the array. */
  constructor(data: Float32Array | Float64Array | Int8Array | Int16Array | Int32Array | BigInt64Array |
    Uint8Array | Uint16Array | Uint32Array | BigUint64Array | string[], dims?: readonly number[]);
  readonly type: T;
  readonly dims: readonly number[];
  /** Number of elements (product of dims). */
  readonly size: number;
  data: TensorDataTypeMap[T];
  /** 'cpu', or 'gpu-buffer' when the data stays in a GPUBuffer ('none' once such a tensor is disposed). */
  readonly location: 'cpu' | 'gpu-buffer' | 'none';
  readonly cpuData: TensorDataTypeMap[T];
  /** The GPUBuffer of a 'gpu-buffer' tensor (it may hold more than size × 4 bytes); GORT_INVALID_ARGUMENT otherwise. */
  readonly gpuBuffer: GpuBuffer;
  /** The data; a GPU tensor's is downloaded, and releaseData then disposes of the GPU copy (the tensor becomes a CPU one). */
  getData(releaseData?: boolean): Promise<TensorDataTypeMap[T]>;
  reshape(dims: readonly number[]): Tensor<T>;
  /** Drops the data; a session's GPU output destroys its GPUBuffer, a fromGpuBuffer tensor calls options.dispose. */
  dispose(): void;
  /**
   * A float32 tensor whose data stays in a GPUBuffer made on gort's device (`await env.webgpu.device`) with usage
   * STORAGE | COPY_SRC. Fed to a session with executionProviders ['webgpu', ...], GPU steps read it in place.
   * Bad arguments are GORT_INVALID_ARGUMENT; a buffer of another device, or dims the model does not take, make run()
   * reject with GORT_INVALID_FEED.
   */
  static fromGpuBuffer(buffer: GpuBuffer, options: TensorFromGpuBufferOptions): Tensor<'float32'>;
}

/** A value a model takes or returns: a tensor, an ONNX sequence (array), or an empty ONNX optional (null). */
export type OnnxValue = Tensor | Tensor[] | null;

export interface ValueMetadata {
  name: string;
  /** True for tensor values; false for sequences, optionals, maps. */
  isTensor: boolean;
  kind: 'tensor' | 'sequence' | 'optional' | 'optional-sequence' | 'map' | 'sparse_tensor' | 'unknown';
  /** Element type (of the tensor, or of the tensors in a sequence/optional), when declared. */
  type?: TensorType;
  /** Declared dims: numbers (fixed), strings (symbolic names) or -1 (unknown); absent when the rank is unknown. */
  shape?: ReadonlyArray<number | string>;
  /** Set on graph inputs backed by an initializer (IR < 4 models): feeding them overrides the weight. Not in inputNames. */
  overridableInitializer?: boolean;
}

/** The stable error codes carried as `error.code`. */
export type ErrorCodeValue =
  | 'GORT_BAD_MODEL' | 'GORT_UNSUPPORTED_OP' | 'GORT_INVALID_FEED' | 'GORT_INVALID_ARGUMENT'
  | 'GORT_TOO_LARGE' | 'GORT_EXTERNAL_DATA' | 'GORT_RUNTIME' | 'GORT_ABORTED' | 'GORT_INTERNAL'
  | 'GORT_DEVICE_LOST' | 'GORT_WORKER_LOST' | 'GORT_WASM_FETCH';

export declare const ErrorCode: {
  readonly BAD_MODEL: 'GORT_BAD_MODEL';
  readonly UNSUPPORTED_OP: 'GORT_UNSUPPORTED_OP';
  readonly INVALID_FEED: 'GORT_INVALID_FEED';
  readonly INVALID_ARGUMENT: 'GORT_INVALID_ARGUMENT';
  readonly TOO_LARGE: 'GORT_TOO_LARGE';
  readonly EXTERNAL_DATA: 'GORT_EXTERNAL_DATA';
  readonly RUNTIME: 'GORT_RUNTIME';
  readonly ABORTED: 'GORT_ABORTED';
  readonly INTERNAL: 'GORT_INTERNAL';
  /** The WebGPU device was lost where no CPU fallback exists (otherwise the run starts over on the CPU). */
  readonly DEVICE_LOST: 'GORT_DEVICE_LOST';
  /** A worker thread failed while computing part of a step; the run computed that part itself (seen in logs). */
  readonly WORKER_LOST: 'GORT_WORKER_LOST';
  /** gort.wasm could not be fetched or is not WebAssembly; the message names each URL tried. */
  readonly WASM_FETCH: 'GORT_WASM_FETCH';
};

/** Every error gort rejects with is an Error with these extra fields. */
export interface GortError extends Error {
  code: ErrorCodeValue;
  /** The node the error is about, when there is one. */
  node?: string;
  /** The input, output or value the error is about, when there is one. */
  tensor?: string;
  /** GORT_WASM_FETCH: the URLs (or Node paths) gort.wasm was looked for at. */
  urls?: string[];
}

/**
 * What run() takes as a tensor: gort's Tensor or any object of that shape,
 * such as a tensor made by onnxruntime-common (data on the CPU).
 */
export interface TensorLike {
  readonly type: string;
  readonly dims: readonly number[];
  readonly data: unknown;
  readonly location?: string;
  /** For location 'gpu-buffer' (float32 only). */
  readonly gpuBuffer?: unknown;
}

export declare namespace InferenceSession {
  /**
   * gort provides 'webgpu' (nodes placed on the GPU where they qualify, the rest on the CPU, with reasons) and 'wasm'
   * (alias 'cpu'); onnxruntime's other names are accepted and skipped with a reason.
   */
  type ExecutionProvider = 'wasm' | 'cpu' | 'webgpu' | 'webgl' | 'webnn' | (string & {}) | { readonly name: string; readonly [key: string]: unknown };

  interface SessionOptions {
    /**
     * Tried in order: the first that can serve runs the session. When none can, create() rejects
     * with each one's reason (code GORT_INVALID_ARGUMENT, or the code of a backend that failed to
     * start, such as GORT_WASM_FETCH).
     */
    executionProviders?: readonly ExecutionProvider[];
    /** Fixes symbolic dims by name, e.g. {batch_size: 1}. */
    freeDimensionOverrides?: Readonly<Record<string, number>>;
    /** Data of tensors stored outside the model: path as named in the model, data as bytes or a URL/path to read. */
    externalData?: ReadonlyArray<{ path: string; data: Uint8Array | ArrayBuffer | string }>;
    /** 0 verbose, 1 info, 2 warning (default), 3 error, 4 fatal. */
    logSeverityLevel?: 0 | 1 | 2 | 3 | 4;
    /** Download progress when the model is given as a URL. */
    onProgress?: (loaded: number, total: number) => void;
    /** Which graph rewrites run at load, as onnxruntime's levels (default 'all'). Another value is GORT_INVALID_ARGUMENT. */
    graphOptimizationLevel?: 'disabled' | 'basic' | 'extended' | 'all';
    /**
     * 'gpu-buffer' leaves outputs that a WebGPU step produced in GPUBuffers (tensor.location 'gpu-buffer'), to feed
     * another session or read with getData(); outputs made on the CPU still come back on the CPU. Per output:
     * {name: 'gpu-buffer'}. Default 'cpu'. Ignored with env.wasm.proxy.
     */
    preferredOutputLocation?: 'cpu' | 'gpu-buffer' | Readonly<Record<string, 'cpu' | 'gpu-buffer'>>;
    /** WebGPU's cost rule: nodes whose inputs all have fewer elements stay on the CPU (default 4096; 0 disables it). */
    webgpuMinElements?: number;
    /**
     * Threads for this session's runs, its own included (default env.wasm.numThreads). Beyond one, the model is also
     * loaded in Workers, which compute parts of its convolutions; outputs are bit-identical to one thread's. 0 to 16.
     */
    intraOpNumThreads?: number;
    [key: string]: unknown;
  }

  interface RunOptions {
    /** Aborting rejects the run with code GORT_ABORTED (typically within a few ms, at most ~100 ms after the current node). */
    signal?: AbortSignal;
    [key: string]: unknown;
  }

  type FeedsType = Record<string, OnnxValue | TensorLike | readonly TensorLike[]>;
  type FetchesType = readonly string[] | Record<string, unknown>;
  type ReturnType = Record<string, OnnxValue>;
}

export declare class InferenceSession {
  private constructor();
  /** Loads a model from bytes, a URL (fetched) or a file path (Node). */
  static create(source: Uint8Array | ArrayBuffer | string | URL, options?: InferenceSession.SessionOptions): Promise<InferenceSession>;
  static create(buffer: ArrayBuffer, byteOffset: number, byteLength?: number, options?: InferenceSession.SessionOptions): Promise<InferenceSession>;
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  /** Metadata of inputNames (same order), followed by the overridable initializers. */
  readonly inputMetadata: readonly ValueMetadata[];
  readonly outputMetadata: readonly ValueMetadata[];
  run(feeds: InferenceSession.FeedsType, options?: InferenceSession.RunOptions): Promise<InferenceSession.ReturnType>;
  run(feeds: InferenceSession.FeedsType, fetches: InferenceSession.FetchesType, options?: InferenceSession.RunOptions): Promise<InferenceSession.ReturnType>;
  /** Frees the session's memory in the runtime; later runs reject. */
  release(): Promise<void>;
  /** The providers in use: ['webgpu', 'wasm'] when some nodes run on the GPU, else ['wasm'] (also after a lost device). */
  readonly executionProviders: readonly string[];
  /** Where each node runs, with the reason for every node that stays on the CPU. */
  readonly placements: ReadonlyArray<{
    readonly node: string; readonly op: string; readonly device: 'webgpu' | 'wasm'; readonly reason: string;
    /** With worker threads: how the last run ran this node ("2 parts by output pixels", or why whole). */
    readonly threads?: string;
  }>;
  /** The threads its runs use now, its own included (fewer than asked for if a worker was lost or the model has nothing to split). */
  readonly threads: number;
}

export interface Env {
  /** Where to fetch gort.wasm: a directory prefix ending in '/', or the file's URL. Default: next to the script. */
  wasmPaths?: string | URL | { wasm?: string };
  /** The bytes of gort.wasm, skipping the fetch. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  logLevel: 'verbose' | 'info' | 'warning' | 'error' | 'fatal';
  wasm: {
    /** Run sessions in a module Worker located next to the script (browsers; ignored in Node). */
    proxy: boolean;
    /** Threads per session (0, the default: as onnxruntime-web, min(4, ceil(cores / 2)) in Node and cross-origin isolated pages, else 1); see intraOpNumThreads. */
    numThreads: number;
    simd: boolean;
    wasmPaths?: string | URL | { wasm?: string };
    wasmBinary?: ArrayBuffer | Uint8Array;
    /** How often (ms) a run gives the event loop a turn (abort latency vs. overhead). Default 10. */
    yieldIntervalMs: number;
  };
  webgpu: {
    /**
     * The GPUDevice WebGPU sessions run on (opened on first use), as onnxruntime-web's: make the GPUBuffers given to
     * Tensor.fromGpuBuffer on it. Read-only: gort opens its own device.
     */
    readonly device: Promise<GpuDevice>;
  };
  readonly versions: { gort: string };
}

export declare const env: Env;

/** Model bytes, a URL (fetched) or a file path (Node). */
export type ModelSource = Uint8Array | ArrayBuffer | string | URL;

/** One checker finding; codes are stable. */
export interface Finding {
  severity: 'error' | 'warning';
  code: string;
  graph?: string;
  node?: string;
  /** -1 when the finding is not about a node. */
  nodeIndex: number;
  op?: string;
  tensor?: string;
  message: string;
}

export interface CheckReport {
  ok: boolean;
  errors: number;
  warnings: number;
  findings: Finding[];
}

/** A value with its inferred type: type is "float32[N,3,224,224]"-style text, "" when unknown. */
export interface ValueInfo {
  name: string;
  type: string;
  elem?: string;
  /** Numbers, symbolic names or null (unknown); null when the rank is unknown. */
  shape: Array<number | string | null> | null;
  why?: string;
}

export interface ShapeReport {
  values: Record<string, ValueInfo>;
  problems: Array<{ code: string; node: string; nodeIndex: number; op: string; tensor?: string; message: string }>;
}

export interface GraphDocument {
  name: string;
  inputs: ValueInfo[];
  initializers: ValueInfo[];
  nodes: Array<{ index: number; name: string; op: string; domain?: string; inputs: string[]; outputs: ValueInfo[];
    attrs?: Record<string, unknown>; subgraphs?: Record<string, GraphDocument>;
    /** With executionProviders: where the node runs ('' device: no step, folded or fused away), and why on the CPU. */
    placement?: { device: string; reason?: string; fusedInto?: string } }>;
  outputs: ValueInfo[];
}

export interface ModelDocument {
  irVersion: number;
  opsets: Record<string, number>;
  producer?: string;
  graph: GraphDocument;
  functions?: unknown[];
}

export interface CapabilityReport {
  nodes: number;
  supported: number;
  unsupported: Array<{ graph: string; node: string; nodeIndex: number; op: string; domain?: string; opset: number; reason: string }>;
  byOp: Record<string, number>;
  /** Nodes the optimiser replaced by constants, removed (dead or no-op), fused ("Conv_1+Relu_2 (fused into Conv)"). */
  folded: string[];
  removed: string[];
  fused: string[];
  /** Where each step of the compiled plan runs, with the reason for CPU steps when an accelerator was offered. */
  placements: Array<{ node: string; op: string; device: string; reason?: string }>;
  /** Set when the model does not load (the rest still describes it). */
  loadError?: string;
}

export interface TensorStats {
  dtypeMatch: boolean;
  shapeMatch: boolean;
  gotDtype: string;
  wantDtype: string;
  gotShape: number[];
  wantShape: number[];
  elements: number;
  maxAbs: number;
  maxRel: number;
  mismatches: number;
  cosine: number;
  worstIndex?: number[];
  worstGot?: number;
  worstWant?: number;
  pass: boolean;
}

export interface Tolerance { rtol?: number; atol?: number }

/**
 * Every finding at once, before anything runs. `externalData: null` leaves external data unchecked
 * (EXTERNAL_DATA_NOT_CHECKED warnings, as `gort check --no-external`); otherwise a file the model names
 * and `externalData` lacks is an error.
 */
export declare function check(model: ModelSource, options?: { externalData?: InferenceSession.SessionOptions['externalData'] | null }): Promise<CheckReport>;
/** Type and shape of every value, symbolic where symbolic. */
export declare function inferShapes(model: ModelSource): Promise<ShapeReport>;
/**
 * The graph as text, or as a document with {json: true}. With session options naming executionProviders
 * ['webgpu', ...], each node also shows where it runs and why it stays on the CPU; with webgpuDryRun, where a
 * WebGPU session would run it by WebGPU's rules and default cost threshold, decided without a device (as `gort print --webgpu`).
 */
export declare function printGraph(model: ModelSource, options?: { json?: false; webgpuDryRun?: boolean } & InferenceSession.SessionOptions): Promise<string>;
export declare function printGraph(model: ModelSource, options: { json: true; webgpuDryRun?: boolean } & InferenceSession.SessionOptions): Promise<ModelDocument>;
/** What gort can run and what the optimiser does, for these session options. */
export declare function capabilities(model: ModelSource, options?: InferenceSession.SessionOptions): Promise<CapabilityReport>;
/** Compares tensors (ONNX defaults rtol 1e-3, atol 1e-7). */
export declare function compare(got: TensorLike, want: TensorLike, options?: Tolerance): Promise<TensorStats>;
export declare function compare(got: Record<string, TensorLike>, want: Record<string, TensorLike>, options?: Tolerance): Promise<{ pass: boolean; outputs: Record<string, TensorStats | { pass: false; missing: true }> }>;
/** Names the first node whose output differs (from per-node references, or from the unoptimised model). */
export declare function diverge(model: ModelSource, feeds: Record<string, TensorLike>,
  options?: Tolerance & { unoptimized?: boolean; reference?: Record<string, TensorLike> }): Promise<{ diverged: boolean; divergence?: unknown; summary: unknown }>;
/** Reads .npy (a Tensor) or .npz ({name: Tensor}). */
export declare function readNpy(bytes: Uint8Array | ArrayBuffer | string | URL): Promise<Tensor | Record<string, Tensor>>;
/** Writes a Tensor as .npy, or {name: Tensor} as .npz. */
export declare function writeNpy(value: TensorLike | Record<string, TensorLike>): Promise<Uint8Array>;

declare const gort: {
  InferenceSession: typeof InferenceSession;
  Tensor: typeof Tensor;
  env: Env;
  ErrorCode: typeof ErrorCode;
  check: typeof check;
  inferShapes: typeof inferShapes;
  printGraph: typeof printGraph;
  capabilities: typeof capabilities;
  compare: typeof compare;
  diverge: typeof diverge;
  readNpy: typeof readNpy;
  writeNpy: typeof writeNpy;
};
export default gort;
