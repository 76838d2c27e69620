// What only the entry file can know, filled in by each entry (see
// js/build.sh) before anything runs:
//   Go, installGoGlobals  Go's wasm_exec.js class and its globals (kept off globalThis)
//   version               the package version
//   wasmUrl()             the default URL of gort.wasm. The ES entry writes it as
//                         new URL('./gort.wasm', import.meta.url), the one form
//                         every bundler recognises and rewrites to the emitted asset.
//   newWorker()           starts the proxy worker; the ES entry writes
//                         new Worker(new URL('./gort.worker.mjs', import.meta.url), {type: 'module'})
//                         for the same reason. null where there is no worker file.
//   workerUrl()           the worker file's URL or path, for Node's worker_threads.
//   moduleUrl()           the URL of the running entry file, or undefined.
export const platform = {
  Go: null,
  installGoGlobals: () => () => {},
  version: '0.0.0',
  wasmUrl: () => undefined,
  newWorker: null,
  workerUrl: () => undefined,
  moduleUrl: () => undefined,
};

export const isNode = typeof process === 'object' && process !== null &&
  typeof process.versions === 'object' && process.versions !== null && !!process.versions.node;
