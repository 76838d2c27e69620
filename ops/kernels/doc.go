// Package kernels holds gort's pure numeric loops: matrix multiplication,
// convolution, pooling and friends. They take slices and sizes, never tensors
// or graph nodes, so they can be tested and benchmarked in isolation.
//
// The float32 kernels are the hot ones:
//
//   - sgemm.go: a packed GEMM (GotoBLAS blocking, A in 4-row panels, B in
//     8-column panels, both k-major) with a fused epilogue (bias, residual,
//     activation; epilogue.go). Constant operands are packed once (PackA,
//     PackB) and shared read-only by concurrent runs; the per-call scratch
//     comes from pools, so steady-state calls do not allocate.
//   - conv.go: convolution as that GEMM, 1×1 convolutions reading the input
//     directly and the others through an im2col that is packed block by block
//     (never a full column matrix); winograd.go: 3×3 unit-stride layers as
//     Winograd F(2,3) (16 GEMMs on transformed tiles, 2.25× fewer
//     multiplies); depthwise.go: one input channel per group as a direct
//     convolution; convtranspose.go: GEMM plus a segmented col2im.
//   - pool.go: 2-D MaxPool and AveragePool planes.
//
// The register-level code comes in two builds: the *_simd.go files
// (WebAssembly with GOEXPERIMENT=simd: Float32x4 from simd/archsimd, unsafe
// loads checked once per call) with their hottest loops in the *_wasm.s
// files (Go's wasm assembler: the GEMM sweep and A packing, GEMV, the
// stride-2 3×3 MaxPool, GlobalAveragePool, the Winograd transforms' vector
// passes, the padded planes' row copies and stride-2 splits, the 3×3
// depthwise rows and im2col gathers; macros in
// ops/internal/wasmasm), and the *_scalar.go files (every other build).
// Both compute the same sums in the same order, and every activation
// reproduces the float32 semantics of the matching operator in
// ops/elementwise bit for bit, so a fused epilogue equals the separate ops. The float64 paths (Dgemm, Im2col,
// Col2im) serve double-precision models and the exact integer kernels.
package kernels

// Float is the set of element types the floating-point kernels are generic
// over. Each instantiation is compiled separately (float32 and float64 have
// different GC shapes), so the generic code runs at native speed.
type Float interface{ ~float32 | ~float64 }
