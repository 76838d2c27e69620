// Package kernels holds gort's pure numeric loops: matrix multiplication,
// im2col/col2im and friends. They take slices and sizes, never tensors or
// graph nodes, so they can be tested and benchmarked in isolation and later
// swapped for SIMD variants behind a build tag without touching operators.
package kernels

// Float is the set of element types the floating-point kernels are generic
// over. Each instantiation is compiled separately (float32 and float64 have
// different GC shapes), so the generic code runs at native speed.
type Float interface{ ~float32 | ~float64 }
