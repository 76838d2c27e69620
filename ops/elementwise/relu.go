package elementwise

// reluF32Scalar is Relu's float32 loop (the SIMD build's tail and the
// scalar build's whole row): a negative value becomes 0, anything else
// (-0, NaN) is kept.
func reluF32Scalar(dst, src []float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		if v < 0 {
			v = 0
		}
		dst[i] = v
	}
}
