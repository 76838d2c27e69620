//go:build !(wasm && goexperiment.simd)

package kernels

import "unsafe"

// vecWindow reports that maxWindowS1 is vectorised (see pool_simd.go): not
// in this build, where a strided MaxPool scans each output's window.
const vecWindow = false

const maxVecStride = 0

func maxRows(dst, x []float32, off, step, nrows int) { maxRowsScalar(dst, x, off, step, nrows) }
func sumRows(dst, x []float32, off, step, nrows int) { sumRowsScalar(dst, x, off, step, nrows) }
func divAll(w []float32, d float32)                  { divAllScalar(w, d) }

// maxWindowS2Vec is the vectorised stride-2 window scan: none here.
func maxWindowS2Vec(y, x, first []float32, KW int) int { return 0 }

// vecPool3x3s2 reports that maxPool3x3s2 exists: not in this build.
const vecPool3x3s2 = false

func maxPool3x3s2(x unsafe.Pointer, ldx, sx uintptr, y unsafe.Pointer, ldy uintptr, rows, n int, col, lanes unsafe.Pointer) int {
	panic("kernels: maxPool3x3s2 is in the SIMD build only")
}

// GlobalAvgPool sets y[p] to the mean of x[p·is : (p+1)·is] for each of
// the planes (PlaneMeans).
func GlobalAvgPool(x, y []float32, planes, is int) { PlaneMeans(x, y, planes, is) }
