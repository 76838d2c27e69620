//go:build !(wasm && goexperiment.simd)

package nn

// scaleShiftRelu writes dst = max((src-sub)·mul + add, 0) as Relu does
// (NaN and −0 kept): kernels.ScaleShift then kernels.Activate(ActRelu) in
// one pass. bn_simd.go runs the same float32 operations four lanes at a time.
func scaleShiftRelu(dst, src []float32, sub, mul, add float32) {
	src = src[:len(dst)]
	for i, s := range src {
		v := (s-sub)*mul + add
		if v < 0 {
			v = 0
		}
		dst[i] = v
	}
}
