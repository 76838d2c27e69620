// Package ops implements the ONNX operators. Each op lives in its own file
// with all its versions, registered in op.Default from an init function;
// the numeric loops that know nothing about graphs live in ops/kernels.
package ops
