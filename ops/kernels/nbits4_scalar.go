//go:build !(wasm && goexperiment.simd)

package kernels

// nbits4Cols4 writes into out the sums of four adjacent columns
// (nbits4Cols4Scalar).
func nbits4Cols4(xp []float32, w []uint8, colBytes int, sc []float32, cpb int, out *[4]float32) {
	nbits4Cols4Scalar(xp, w, colBytes, sc, cpb, out)
}

// nbits4Col is the sum of one column (nbits4ColScalar).
func nbits4Col(xp []float32, w []uint8, sc []float32, cpb int) float32 {
	return nbits4ColScalar(xp, w, sc, cpb)
}
