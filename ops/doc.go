// Package ops registers every operator gort implements in op.Default.
//
// Operators are grouped in subpackages by kind (elementwise math, neural-net
// layers, tensor manipulation, resampling, control flow). Every version of an
// op is registered in one file, so its differences between versions are read
// in one place; a file may register several related ops that share their
// code (ops/elementwise/activation.go registers 15 activations, binops.go the
// logical, bitwise and comparison ops). TestOpFiles in the module root's
// layout_test.go checks the rule.
//
// Importing this package registers them all. The runtime does not import
// it: programs do, directly or through the module root package gort
// (cmd/gort, wasm, the tools that run models), and so does
// runtime/conformance, the node-suite harness. Shared helpers live in
// ops/opsutil; numeric loops that know nothing about graphs live in
// ops/kernels.
package ops
