//go:build wasm && goexperiment.simd

package kernels

import (
	"simd/archsimd"
	"unsafe"
)

var laneIdx = [2][4]int32{{0, 1, 2, 3}, {4, 5, 6, 7}}

// gatherPanel2 is gatherPanel for a panel whose NR pixels wrap from one
// output row to the next: per im2col row (offset off), lanes [0, n1) are
// src[off+a+l] and lanes [n1, NR) are src[off+b+l−n1]. Two loads per half
// and a lane select, where the element-by-element loop it replaces cost
// about as much as all the other panels of a 55-wide output; the caller
// has checked that src holds maxOff+max(a, b−n1)+NR floats.
func gatherPanel2(panel, src []float32, offs []int, a, b, n1, maxOff int) {
	if len(offs) == 0 {
		return
	}
	_, _ = panel[len(offs)*NR-1], src[maxOff+max(a, b-n1)+NR-1]
	vn := archsimd.BroadcastInt32x4(int32(n1))
	m0 := archsimd.LoadInt32x4Array(&laneIdx[0]).Less(vn)
	m1 := archsimd.LoadInt32x4Array(&laneIdx[1]).Less(vn)
	ps, pd := unsafe.Pointer(unsafe.SliceData(src)), unsafe.Pointer(unsafe.SliceData(panel))
	oa, ob := uintptr(a)*4, uintptr(b-n1)*4
	for _, off := range offs {
		p := unsafe.Add(ps, off*4)
		st4(ld4(p, oa).IfElse(m0, ld4(p, ob)), pd, 0)
		st4(ld4(p, oa+16).IfElse(m1, ld4(p, ob+16)), pd, 16)
		pd = unsafe.Add(pd, NR*4)
	}
}
