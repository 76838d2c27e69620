//go:build !(wasm && goexperiment.simd)

package nn

// affineRowF32 writes y = ((x-hi)-lo)·inv·scale + bias for one float32 row
// (bias may be nil). The mean is passed as hi+lo, its float32 rounding and
// the remainder, so that x-mean stays accurate when |mean| ≫ the deviation
// (x-hi is exact for x near hi). norm_simd.go runs the same float32
// operations four lanes at a time.
func affineRowF32(y, x []float32, hi, lo, inv float32, scale, bias []float32) {
	y, scale = y[:len(x)], scale[:len(x)]
	if bias == nil {
		for j, v := range x {
			y[j] = ((v - hi) - lo) * inv * scale[j]
		}
		return
	}
	bias = bias[:len(x)]
	for j, v := range x {
		y[j] = float32(((v-hi)-lo)*inv*scale[j]) + bias[j]
	}
}
