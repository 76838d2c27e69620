//go:build wasm && goexperiment.simd

package kernels

import "unsafe"

// gemvPanel stores into y[:NR] the product of x (length k) with the k×NR
// packed panel b. Even and odd depths go to separate accumulator pairs so
// that consecutive steps do not wait on each other's additions (the loop
// is bound by add latency, not by loads, with a single pair); the pairs are
// summed at the end, as gemvPanelScalar does.
func gemvPanel(x, b, y []float32) {
	k := len(x)
	var e0, e1, o0, o1 f32x4
	if k > 0 {
		_, _ = b[NR*k-1], y[NR-1]
		px, pb := unsafe.Pointer(unsafe.SliceData(x)), unsafe.Pointer(unsafe.SliceData(b))
		var xo, bo uintptr
		for ; k >= 2; k -= 2 {
			x0 := splat(px, xo)
			x1 := splat(px, xo+4)
			e0 = e0.Add(x0.Mul(ld4(pb, bo)))
			e1 = e1.Add(x0.Mul(ld4(pb, bo+16)))
			o0 = o0.Add(x1.Mul(ld4(pb, bo+32)))
			o1 = o1.Add(x1.Mul(ld4(pb, bo+48)))
			xo += 8
			bo += 64
		}
		if k > 0 {
			x0 := splat(px, xo)
			e0 = e0.Add(x0.Mul(ld4(pb, bo)))
			e1 = e1.Add(x0.Mul(ld4(pb, bo+16)))
		}
	}
	e0.Add(o0).Store(y[0:4])
	e1.Add(o1).Store(y[4:8])
}
