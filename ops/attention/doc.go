// Package attention implements the transformer-era operators of the default
// ONNX domain (Attention, RotaryEmbedding, LinearAttention, SwiGLU,
// CausalConvWithState) and ai.onnx.preview FlexAttention.
//
// Kernels read float32/float16/bfloat16 tensors straight from their []float32
// storage and float64 tensors from []float64 (no widening copies of the large
// Q/K/V inputs), and accumulate dot products and softmax sums in float64 so
// that float16 models lose precision only where the executor rounds outputs.
package attention
