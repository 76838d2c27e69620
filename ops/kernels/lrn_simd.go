//go:build wasm && goexperiment.simd

package kernels

import (
	"simd/archsimd"
	"unsafe"
)

// lrnPlane is lrnPlaneScalar four lanes at a time, each lane computed as
// the scalar loop computes it. The planes are checked once, then read
// through unsafe pointers.
func lrnPlane(y, x []float32, planes [][]float32, bias, k float32) {
	n := len(y) &^ 3
	x = x[:len(y)]
	var ptr [16]unsafe.Pointer
	ps := ptr[:0]
	for _, p := range planes {
		_ = p[:len(y)]
		ps = append(ps, unsafe.Pointer(unsafe.SliceData(p)))
	}
	py, px := unsafe.Pointer(unsafe.SliceData(y)), unsafe.Pointer(unsafe.SliceData(x))
	vb, vk := archsimd.BroadcastFloat32x4(bias), archsimd.BroadcastFloat32x4(k)
	for i := 0; i < n; i += 4 {
		off := uintptr(i) * 4
		v := ld4(ps[0], off)
		s := v.Mul(v)
		for _, p := range ps[1:] {
			v = ld4(p, off)
			s = s.Add(v.Mul(v))
		}
		r := vb.Add(vk.Mul(s)).Sqrt()
		st4(ld4(px, off).Div(r.Mul(r.Sqrt())), py, off)
	}
	if n < len(y) {
		tail := make([][]float32, 0, 16)
		for _, p := range planes {
			tail = append(tail, p[n:])
		}
		lrnPlaneScalar(y[n:], x[n:], tail, bias, k)
	}
}
