//go:build !(wasm && goexperiment.simd)

package kernels

// vecWindow reports that maxWindowS1 is vectorised (see pool_simd.go): not
// in this build, where a strided MaxPool scans each output's window.
const vecWindow = false

const maxVecStride = 0

// maxRows sets dst[i] to the running maximum, NaNs skipped as in maxInto,
// of rows[0][i], rows[1][i], ...; every row is at least len(dst) long.
func maxRows(dst []float32, rows [][]float32) {
	copy(dst, rows[0][:len(dst)])
	for _, r := range rows[1:] {
		maxInto(dst, r)
	}
}

func sumRows(dst []float32, rows [][]float32) { sumRowsScalar(dst, rows) }
func sumWindow(w, x []float32, KW, dw int)    { sumWindowScalar(w, x, KW, dw) }
func divAll(w []float32, d float32)           { divAllScalar(w, d) }
