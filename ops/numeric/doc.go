// Package numeric implements ONNX operators that compute on values without
// moving them between layouts: running products (CumProd), Lp
// normalisation, Shrink, determinants (Det), dynamic uint8 quantisation
// (DynamicQuantizeLinear) and bit-level reinterpretation (BitCast).
package numeric
