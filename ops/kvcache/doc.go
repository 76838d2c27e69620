// Package kvcache implements TensorScatter, the ONNX operator that writes a
// step's keys or values into a fixed-size attention cache, so decoder loops
// keep a constant cache shape instead of concatenating.
package kvcache
