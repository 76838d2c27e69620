// Package ops registers every operator gort implements in op.Default.
//
// Operators are grouped in subpackages by kind (elementwise math, neural-net
// layers, tensor manipulation, resampling, control flow). Every version of an
// op is registered in one file, so its differences between versions are read
// in one place; a file may register several related ops that share their
// code (ops/elementwise/activation.go registers 15 activations, binops.go the
// logical, bitwise and comparison ops). The same init binds the op's shape
// rule (shapes.Register; shapes.RegisterBody for the subgraph inputs of
// Loop and Scan, shapes.NoFold for the random ops inference must not
// compute ahead): a rule only one op uses is an unexported infer function
// beside the op's builder, rules several ops share (SameAsInput0,
// BroadcastAll, MatMul, Conv, Pool, Reduce, …) come from runtime/shapes,
// which is the inference engine and names no op. TestOpFiles in the
// module root's layout_test.go checks both rules.
//
// Importing this package registers them all. The runtime does not import
// it: programs do, directly or through the module root package gort
// (cmd/gort, wasm, the tools that run models), and so does
// runtime/conformance, the node-suite harness. Shared helpers live in
// ops/opsutil; numeric loops that know nothing about graphs live in
// ops/kernels.
package ops
