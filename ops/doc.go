// Package ops registers every operator gort implements in op.Default.
//
// Operators are grouped in subpackages by kind (elementwise math, neural-net
// layers, tensor manipulation, resampling, control flow); each keeps one file
// per ONNX op with all its versions. Importing this package (the runtime does)
// registers them all. Shared helpers live in ops/opsutil; numeric loops that
// know nothing about graphs live in ops/kernels.
package ops
