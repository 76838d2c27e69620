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
// one Float32x4 accumulator per row of B, whose lanes are dot4Scalar's.
// Four independent accumulators keep the adds from waiting on each other;
// the loop reads five vectors per step and is bound by memory at batch 1.
func dot4(x, b0, b1, b2, b3 []float32) [4]float32 {
	k := len(x)
	k4 := k &^ 3
	var a0, a1, a2, a3 f32x4
	if k4 > 0 {
		_, _, _, _ = b0[k-1], b1[k-1], b2[k-1], b3[k-1]
		px := unsafe.Pointer(unsafe.SliceData(x))
		p0, p1 := unsafe.Pointer(unsafe.SliceData(b0)), unsafe.Pointer(unsafe.SliceData(b1))
		p2, p3 := unsafe.Pointer(unsafe.SliceData(b2)), unsafe.Pointer(unsafe.SliceData(b3))
		end := uintptr(k4) * 4
		var e0, e1, e2, e3 f32x4
		o := uintptr(0)
		for ; o+32 <= end; o += 32 {
			xv := ld4(px, o)
			a0 = a0.Add(xv.Mul(ld4(p0, o)))
			a1 = a1.Add(xv.Mul(ld4(p1, o)))
			a2 = a2.Add(xv.Mul(ld4(p2, o)))
			a3 = a3.Add(xv.Mul(ld4(p3, o)))
			xv = ld4(px, o+16)
			e0 = e0.Add(xv.Mul(ld4(p0, o+16)))
			e1 = e1.Add(xv.Mul(ld4(p1, o+16)))
			e2 = e2.Add(xv.Mul(ld4(p2, o+16)))
			e3 = e3.Add(xv.Mul(ld4(p3, o+16)))
		}
		if o < end {
			xv := ld4(px, o)
			a0 = a0.Add(xv.Mul(ld4(p0, o)))
			a1 = a1.Add(xv.Mul(ld4(p1, o)))
			a2 = a2.Add(xv.Mul(ld4(p2, o)))
			a3 = a3.Add(xv.Mul(ld4(p3, o)))
		}
		a0, a1, a2, a3 = a0.Add(e0), a1.Add(e1), a2.Add(e2), a3.Add(e3)
	}
	s := [4]float32{hsum(a0), hsum(a1), hsum(a2), hsum(a3)}
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

// hsum adds the lanes of v as (v0+v1)+(v2+v3).
func hsum(v f32x4) float32 {
	return (v.GetElem(0) + v.GetElem(1)) + (v.GetElem(2) + v.GetElem(3))
}

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
