//go:build wasm && goexperiment.simd

package kernels

import (
	"unsafe"
)

// addRow sets x[i] = x[i] + cb[i] + r[i] (cb or r nil: that term absent),
// four lanes at a time through unsafe pointers after one bounds check per
// slice: the epilogue of a projection (column bias, residual, no row bias
// or activation), a pass of one load per term and one store per element
// where epilogueRow, which covers every combination, also tests each term
// and the activation per vector. IEEE additions in epilogueRowScalar's
// order, so the two agree bit for bit.
func addRow(x, cb, r []float32) {
	n := len(x)
	n4 := n &^ 3
	if n == 0 {
		return
	}
	px := unsafe.Pointer(unsafe.SliceData(x))
	switch {
	case cb != nil && r != nil:
		_, _ = cb[n-1], r[n-1]
		pc, pr := unsafe.Pointer(unsafe.SliceData(cb)), unsafe.Pointer(unsafe.SliceData(r))
		for i := 0; i < n4; i += 4 {
			st4(ld4(px, uintptr(4*i)).Add(ld4(pc, uintptr(4*i))).Add(ld4(pr, uintptr(4*i))), px, uintptr(4*i))
		}
	case cb != nil:
		_ = cb[n-1]
		pc := unsafe.Pointer(unsafe.SliceData(cb))
		for i := 0; i < n4; i += 4 {
			st4(ld4(px, uintptr(4*i)).Add(ld4(pc, uintptr(4*i))), px, uintptr(4*i))
		}
	case r != nil:
		_ = r[n-1]
		pr := unsafe.Pointer(unsafe.SliceData(r))
		for i := 0; i < n4; i += 4 {
			st4(ld4(px, uintptr(4*i)).Add(ld4(pr, uintptr(4*i))), px, uintptr(4*i))
		}
	}
	var cbt, rt []float32
	if cb != nil {
		cbt = cb[n4:n]
	}
	if r != nil {
		rt = r[n4:n]
	}
	epilogueRowScalar(x[n4:], false, 0, cbt, rt, ActNone, 0, 0)
}
