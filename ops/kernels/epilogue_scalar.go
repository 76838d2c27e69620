//go:build !(wasm && goexperiment.simd)

package kernels

// addRow sets x[i] = x[i] + cb[i] + r[i] (cb or r nil: that term absent):
// epilogueRowScalar without a row bias or activation (epilogue_simd.go
// vectorises it).
func addRow(x, cb, r []float32) { epilogueRowScalar(x, false, 0, cb, r, ActNone, 0, 0) }
