//go:build !(wasm && goexperiment.simd)

package kernels

// vecWindow reports that maxWindowS1 is vectorised (see pool_simd.go): not
// in this build, where a strided MaxPool scans each output's window.
const vecWindow = false

const maxVecStride = 0

func maxRows(dst, x []float32, off, step, nrows int) { maxRowsScalar(dst, x, off, step, nrows) }
func sumRows(dst, x []float32, off, step, nrows int) { sumRowsScalar(dst, x, off, step, nrows) }
func divAll(w []float32, d float32)                  { divAllScalar(w, d) }

// maxWindowS2Vec is the vectorised stride-2 window scan: none here.
func maxWindowS2Vec(y, x, first []float32, KW int) int { return 0 }
