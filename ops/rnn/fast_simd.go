//go:build wasm && goexperiment.simd

package rnn

import (
	"simd/archsimd"
	"unsafe"
)

// WebAssembly SIMD128 loops of the float32 path (GOEXPERIMENT=simd). They
// compute what fast_scalar.go does, in the same order per element, four
// lanes at a time; wasm has no fused multiply-add, so every product is
// rounded before its sum there as well.

type f32x4 = archsimd.Float32x4

func ld4(p unsafe.Pointer, off uintptr) f32x4 {
	return archsimd.LoadFloat32x4Array((*[4]float32)(unsafe.Add(p, off)))
}

func st4(x f32x4, p unsafe.Pointer, off uintptr) {
	x.StoreArray((*[4]float32)(unsafe.Add(p, off)))
}

func load4(s []float32) f32x4 { return archsimd.LoadFloat32x4Array((*[4]float32)(s)) }

func bc(x float32) f32x4 { return archsimd.BroadcastFloat32x4(x) }

// gemvAcc adds v·M[:, c0:c0+len(out)] to out, M having rows of ld values
// (out[j] += Σₚ v[p]·M[p·ld + c0 + j], summed in order of p). Columns go 32
// at a time in eight accumulators (enough independent adds to hide their
// latency), then by four, then one by one. The extent of M is checked once;
// the loops use unsafe offsets inside it.
func gemvAcc(out, v, m []float32, ld, c0 int) {
	n, k := len(out), len(v)
	if n == 0 || k == 0 {
		return
	}
	_ = m[(k-1)*ld+c0+n-1]
	pm, pv, po := unsafe.Pointer(&m[c0]), unsafe.Pointer(&v[0]), unsafe.Pointer(&out[0])
	stride := uintptr(ld) * 4
	j := 0
	for ; j+32 <= n; j += 32 {
		o := uintptr(j) * 4
		a0, a1, a2, a3 := ld4(po, o), ld4(po, o+16), ld4(po, o+32), ld4(po, o+48)
		a4, a5, a6, a7 := ld4(po, o+64), ld4(po, o+80), ld4(po, o+96), ld4(po, o+112)
		mo := o
		for p := uintptr(0); p < uintptr(k)*4; p += 4 {
			s := archsimd.BroadcastFloat32x4(*(*float32)(unsafe.Add(pv, p)))
			a0 = a0.Add(s.Mul(ld4(pm, mo)))
			a1 = a1.Add(s.Mul(ld4(pm, mo+16)))
			a2 = a2.Add(s.Mul(ld4(pm, mo+32)))
			a3 = a3.Add(s.Mul(ld4(pm, mo+48)))
			a4 = a4.Add(s.Mul(ld4(pm, mo+64)))
			a5 = a5.Add(s.Mul(ld4(pm, mo+80)))
			a6 = a6.Add(s.Mul(ld4(pm, mo+96)))
			a7 = a7.Add(s.Mul(ld4(pm, mo+112)))
			mo += stride
		}
		st4(a0, po, o)
		st4(a1, po, o+16)
		st4(a2, po, o+32)
		st4(a3, po, o+48)
		st4(a4, po, o+64)
		st4(a5, po, o+80)
		st4(a6, po, o+96)
		st4(a7, po, o+112)
	}
	for ; j+4 <= n; j += 4 {
		o := uintptr(j) * 4
		a := ld4(po, o)
		mo := o
		for p := uintptr(0); p < uintptr(k)*4; p += 4 {
			a = a.Add(archsimd.BroadcastFloat32x4(*(*float32)(unsafe.Add(pv, p))).Mul(ld4(pm, mo)))
			mo += stride
		}
		st4(a, po, o)
	}
	for ; j < n; j++ {
		acc := out[j]
		for p, vp := range v {
			acc += vp * m[p*ld+c0+j]
		}
		out[j] = acc
	}
}

// tanh4 is tanh32 on four lanes.
func tanh4(x f32x4) f32x4 {
	x = x.Max(bc(-tanhClamp)).Min(bc(tanhClamp))
	x2 := x.Mul(x)
	p := x2.Mul(bc(tanhA13)).Add(bc(tanhA11))
	p = p.Mul(x2).Add(bc(tanhA9))
	p = p.Mul(x2).Add(bc(tanhA7))
	p = p.Mul(x2).Add(bc(tanhA5))
	p = p.Mul(x2).Add(bc(tanhA3))
	p = p.Mul(x2).Add(bc(tanhA1))
	q := x2.Mul(bc(tanhB6)).Add(bc(tanhB4))
	q = q.Mul(x2).Add(bc(tanhB2))
	q = q.Mul(x2).Add(bc(tanhB0))
	return x.Mul(p).Div(q)
}

// sigmoid4 is sigmoid32 on four lanes.
func sigmoid4(x f32x4) f32x4 {
	return bc(1).Div(bc(1).Add(exp4(x.Neg())))
}

// exp4 is exp32 on four lanes (Round is round-half-even, as RoundToEven).
func exp4(x f32x4) f32x4 {
	x = x.Max(bc(expLo)).Min(bc(expHi))
	n := x.Mul(bc(expLog2e)).Round()
	r := x.Sub(n.Mul(bc(expC1))).Sub(n.Mul(bc(expC2)))
	p := r.Mul(bc(expP0)).Add(bc(expP1))
	p = p.Mul(r).Add(bc(expP2))
	p = p.Mul(r).Add(bc(expP3))
	p = p.Mul(r).Add(bc(expP4))
	p = p.Mul(r).Add(bc(expP5))
	p = p.Mul(r.Mul(r)).Add(r).Add(bc(1))
	scale := n.ConvertToInt32().Add(archsimd.BroadcastInt32x4(127)).ShiftAllLeft(23).ToBits().BitsToFloat32()
	return p.Mul(scale)
}

// lstmGates finishes an LSTM step: g holds the pre-activations of the gates
// i, o, f, c (H values each, without peepholes), c and h the state, updated
// in place, p the peepholes i, o, f (zeros when absent).
func lstmGates(g, c, h, p []float32, inputForget bool) {
	H := len(h)
	j := 0
	for ; j+4 <= H; j += 4 {
		cj := load4(c[j : j+4])
		gi := load4(g[j : j+4]).Add(load4(p[j : j+4]).Mul(cj))
		it := sigmoid4(gi)
		var ft f32x4
		if inputForget {
			ft = sigmoid4(gi.Neg())
		} else {
			ft = sigmoid4(load4(g[2*H+j : 2*H+j+4]).Add(load4(p[2*H+j : 2*H+j+4]).Mul(cj)))
		}
		cj = ft.Mul(cj).Add(it.Mul(tanh4(load4(g[3*H+j : 3*H+j+4]))))
		ot := sigmoid4(load4(g[H+j : H+j+4]).Add(load4(p[H+j : H+j+4]).Mul(cj)))
		cj.StoreArray((*[4]float32)(c[j : j+4]))
		ot.Mul(tanh4(cj)).StoreArray((*[4]float32)(h[j : j+4]))
	}
	for ; j < H; j++ {
		c[j], h[j] = lstmUnit(g[j], g[H+j], g[2*H+j], g[3*H+j], c[j], p[j], p[H+j], p[2*H+j], inputForget)
	}
}

// tanhTo sets dst[i] = tanh32(src[i]).
func tanhTo(dst, src []float32) {
	src = src[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		tanh4(load4(src[i : i+4])).StoreArray((*[4]float32)(dst[i : i+4]))
	}
	for ; i < len(dst); i++ {
		dst[i] = tanh32(src[i])
	}
}

// sigmoidTo sets dst[i] = sigmoid32(src[i]).
func sigmoidTo(dst, src []float32) {
	src = src[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		sigmoid4(load4(src[i : i+4])).StoreArray((*[4]float32)(dst[i : i+4]))
	}
	for ; i < len(dst); i++ {
		dst[i] = sigmoid32(src[i])
	}
}
