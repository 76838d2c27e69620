// Package numeric implements ONNX operators that compute on values without
// moving them between layouts: Lp normalisation, Shrink, determinants (Det),
// dynamic uint8 quantisation (DynamicQuantizeLinear) and bit-level
// reinterpretation (BitCast). CumProd lives beside CumSum in ops/tensorops,
// which share one scan.
package numeric
