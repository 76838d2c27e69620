//go:build wasm && goexperiment.simd

package kernels

import (
	"simd/archsimd"
	"unsafe"
)

// gemvPanel stores into y[:NR] the product of x (length k) with the k×NR
// packed panel b, with gemvPanelAsm: even and odd depths into separate
// accumulators (the loop is bound by add latency with a single pair),
// summed at the end, as gemvPanelScalar does.
func gemvPanel(x, b, y []float32) {
	k := len(x)
	_, _ = b[:NR*k], y[NR-1]
	gemvPanelAsm(unsafe.Pointer(unsafe.SliceData(x)), unsafe.Pointer(unsafe.SliceData(b)), k, unsafe.Pointer(&y[0]))
}

// gemvPanelAsm is gemvPanel's loop, in WebAssembly (gemv_wasm.s).
//
//go:noescape
func gemvPanelAsm(x, b unsafe.Pointer, k int, y unsafe.Pointer)

// dot4 returns the dot products of x with b0…b3, in dot4Scalar's order:
// the whole vectors by dot4Asm (eight accumulators, even and odd vectors
// apart, so the adds do not wait on each other; the loop reads five
// vectors per step and is bound by memory at batch 1), then each row's
// lanes summed and the rest added.
func dot4(x, b0, b1, b2, b3 []float32) [4]float32 {
	k := len(x)
	k4 := k &^ 3
	var acc [16]float32
	if k4 > 0 {
		_, _, _, _ = b0[k-1], b1[k-1], b2[k-1], b3[k-1]
		dot4Asm(unsafe.Pointer(&x[0]), unsafe.Pointer(&b0[0]), unsafe.Pointer(&b1[0]), unsafe.Pointer(&b2[0]), unsafe.Pointer(&b3[0]), k4, unsafe.Pointer(&acc))
	}
	var s [4]float32
	for r := range s {
		l := acc[4*r : 4*r+4]
		s[r] = (l[0] + l[1]) + (l[2] + l[3])
	}
	if k4 < k {
		rows := [4][]float32{b0[:k], b1[:k], b2[:k], b3[:k]}
		for r, br := range rows {
			for p := k4; p < k; p++ {
				s[r] += x[p] * br[p]
			}
		}
	}
	return s
}

// dot4Asm stores into out the four rows' lane sums of x·b over k4 floats
// (a multiple of four), in WebAssembly (gemv_wasm.s).
//
//go:noescape
func dot4Asm(x, b0, b1, b2, b3 unsafe.Pointer, k4 int, out unsafe.Pointer)

// axpy1 adds x0·b0 to y.
func axpy1(y, b0 []float32, x0 float32) {
	n := len(y)
	n4 := n &^ 3
	if n4 > 0 {
		_ = b0[n-1]
		py, p0 := unsafe.Pointer(unsafe.SliceData(y)), unsafe.Pointer(unsafe.SliceData(b0))
		v0 := archsimd.BroadcastFloat32x4(x0)
		end := uintptr(n4) * 4
		for o := uintptr(0); o < end; o += 16 {
			st4(ld4(py, o).Add(v0.Mul(ld4(p0, o))), py, o)
		}
	}
	if n4 < n {
		axpy1Scalar(y[n4:], b0[n4:], x0)
	}
}

// axpy8 adds Σ_r xs[r]·bs[r] to y, in axpy8Scalar's order. Eight rows of B
// per pass read and write y an eighth as often as axpy1 would.
func axpy8(y []float32, bs *[8][]float32, xs *[8]float32) {
	n := len(y)
	n4 := n &^ 3
	if n4 > 0 {
		var p [8]unsafe.Pointer
		var v [8]f32x4
		for r := range p {
			_ = bs[r][n-1]
			p[r] = unsafe.Pointer(unsafe.SliceData(bs[r]))
			v[r] = archsimd.BroadcastFloat32x4(xs[r])
		}
		py := unsafe.Pointer(unsafe.SliceData(y))
		p0, p1, p2, p3, p4, p5, p6, p7 := p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]
		v0, v1, v2, v3, v4, v5, v6, v7 := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
		end := uintptr(n4) * 4
		for o := uintptr(0); o < end; o += 16 {
			t := v0.Mul(ld4(p0, o)).Add(v1.Mul(ld4(p1, o)))
			u := v2.Mul(ld4(p2, o)).Add(v3.Mul(ld4(p3, o)))
			t2 := v4.Mul(ld4(p4, o)).Add(v5.Mul(ld4(p5, o)))
			u2 := v6.Mul(ld4(p6, o)).Add(v7.Mul(ld4(p7, o)))
			st4(ld4(py, o).Add(t.Add(u).Add(t2.Add(u2))), py, o)
		}
	}
	if n4 < n {
		var tb [8][]float32
		for r := range tb {
			tb[r] = bs[r][n4:]
		}
		axpy8Scalar(y[n4:], &tb, xs)
	}
}
