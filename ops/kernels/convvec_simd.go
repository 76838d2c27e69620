//go:build wasm && goexperiment.simd

package kernels

import "unsafe"

// dot is Σ a[i]·b[i]: two vectors of partial sums (two dependency chains),
// added lane by lane, the lanes folded as (s0+s1)+(s2+s3), then the tail;
// the scalar build sums in this order. Loads go through unsafe pointers
// (the slices' lengths are checked on entry).
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	pa, pb := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b))
	var s0, s1 f32x4
	i := 0
	for ; i+8 <= len(a); i += 8 {
		o := uintptr(i) * 4
		s0 = s0.Add(ld4(pa, o).Mul(ld4(pb, o)))
		s1 = s1.Add(ld4(pa, o+16).Mul(ld4(pb, o+16)))
	}
	if i+4 <= len(a) {
		o := uintptr(i) * 4
		s0 = s0.Add(ld4(pa, o).Mul(ld4(pb, o)))
		i += 4
	}
	s := s0.Add(s1)
	sum := (s.GetElem(0) + s.GetElem(1)) + (s.GetElem(2) + s.GetElem(3))
	for ; i < len(a); i++ {
		sum += a[i] * b[i]
	}
	return sum
}
