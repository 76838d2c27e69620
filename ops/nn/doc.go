// Package nn implements ONNX operators for neural-network layers: Conv, ConvTranspose, pooling, normalisation, Gemm, MatMul.
package nn
