//go:build !(wasm && goexperiment.simd)

package kernels

// dwRows9 is dwRows for a 3×3 kernel.
func dwRows9(y, buf []float32, OH, OW, rowStep int, offs *[9]int, wt *[9]float32, bias float32) {
	dwRowsRef(y, buf, OH, OW, rowStep, offs[:], wt[:], bias)
}

// dwRows computes the depthwise output plane y (OH×OW) from the padded plane
// buf (see dwRowsRef).
func dwRows(y, buf []float32, OH, OW, rowStep int, offs []int, wt []float32, bias float32) {
	dwRowsRef(y, buf, OH, OW, rowStep, offs, wt, bias)
}
