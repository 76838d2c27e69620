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
// the planes: four float64 partial sums (a loop trip per element cost more
// than the additions in wasm), then one division.
func GlobalAvgPool(x, y []float32, planes, is int) {
	for pl := 0; pl < planes; pl++ {
		xp := x[pl*is : (pl+1)*is]
		var s0, s1, s2, s3 float64
		i := 0
		for ; i+4 <= len(xp); i += 4 {
			q := xp[i : i+4 : i+4]
			s0 += float64(q[0])
			s1 += float64(q[1])
			s2 += float64(q[2])
			s3 += float64(q[3])
		}
		for ; i < len(xp); i++ {
			s0 += float64(xp[i])
		}
		y[pl] = float32((s0 + s1 + s2 + s3) / float64(is))
	}
}
