// Package kern holds the float32 step kernels of the recurrent ops
// (ops/rnn's fast path): h·Rᵀ over packed panels, the LSTM gates, tanh and
// sigmoid, in WebAssembly SIMD128 (GOEXPERIMENT=simd) and scalar forms. It
// is a package of its own so that the drivers in ops/rnn, which run once
// per node or per run, can be compiled without inlining for size while
// these loops keep theirs.
package kern
