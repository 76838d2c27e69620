//go:build wasm && goexperiment.simd

package nn

import (
	"simd/archsimd"
	"unsafe"
)

// affineRowF32 writes y = ((x-hi)-lo)·inv·scale + bias for one float32 row
// (bias may be nil), four lanes at a time: the same float32 operations in
// the same order as norm_scalar.go, so both builds agree bit for bit.
func affineRowF32(y, x []float32, hi, lo, inv float32, scale, bias []float32) {
	n := len(x)
	y, scale = y[:n], scale[:n]
	if bias != nil {
		bias = bias[:n]
	}
	n4 := n &^ 3
	if n4 > 0 {
		px, py, ps := unsafe.Pointer(unsafe.SliceData(x)), unsafe.Pointer(unsafe.SliceData(y)), unsafe.Pointer(unsafe.SliceData(scale))
		ld := func(p unsafe.Pointer, i int) archsimd.Float32x4 {
			return archsimd.LoadFloat32x4Array((*[4]float32)(unsafe.Add(p, 4*i)))
		}
		vh, vl, vi := archsimd.BroadcastFloat32x4(hi), archsimd.BroadcastFloat32x4(lo), archsimd.BroadcastFloat32x4(inv)
		if bias == nil {
			for i := 0; i < n4; i += 4 {
				v := ld(px, i).Sub(vh).Sub(vl).Mul(vi).Mul(ld(ps, i))
				v.StoreArray((*[4]float32)(unsafe.Add(py, 4*i)))
			}
		} else {
			pb := unsafe.Pointer(unsafe.SliceData(bias))
			for i := 0; i < n4; i += 4 {
				v := ld(px, i).Sub(vh).Sub(vl).Mul(vi).Mul(ld(ps, i)).Add(ld(pb, i))
				v.StoreArray((*[4]float32)(unsafe.Add(py, 4*i)))
			}
		}
	}
	for j := n4; j < n; j++ {
		v := ((x[j] - hi) - lo) * inv * scale[j]
		if bias != nil {
			v += bias[j]
		}
		y[j] = v
	}
}
