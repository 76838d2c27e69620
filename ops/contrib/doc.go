// Package contrib implements operators of onnxruntime's com.microsoft
// domain (onnxruntime's docs/ContribOperators.md), the ones exported
// transformers use: the GELU family (Gelu, FastGelu, BiasGelu, QuickGelu),
// BiasAdd, the fused layer norms (SkipLayerNormalization,
// SkipSimplifiedLayerNormalization, SimplifiedLayerNormalization) and BERT's
// EmbedLayerNormalization, the attention ops (Attention, MultiHeadAttention,
// GroupQueryAttention, RotaryEmbedding), and the quantized weights' MatMulNBits and
// GatherBlockQuantized.
//
// The attention ops gather keys and values into (B, N, T, H) buffers (the
// present outputs) and run one fused kernel per (batch, head),
// kernels.Attend: Q·Kᵀ for a block of query rows, softcap, the row's masks
// and biases, a float64-summed softmax and P·V, never holding more than a
// row block of scores. Attention and MultiHeadAttention add
// mask_filter_value to masked keys as onnxruntime does (a row with every key
// masked still softmaxes its scores); GroupQueryAttention excludes keys
// outside the causal, window and padding limits outright.
//
// The semantics are those of onnxruntime's documentation, then of its CPU
// kernels where the documentation is silent; docs/contrib.md lists each op,
// its inputs and attributes, and where the two disagree. The formulas are
// not written here a second time: the activations are rows of
// ops/kernels' table, the normalisation is ops/nn's NormRow.
//
// com.microsoft is not part of the ONNX spec, so the loader resolves these
// ops by the registry alone (op.Registry.Resolve at the model's
// com.microsoft opset) and shape inference runs their rules with the
// registry's version; each rule also sets the element types, for which
// there is no schema.
package contrib

// Domain is onnxruntime's contrib domain.
const Domain = "com.microsoft"
