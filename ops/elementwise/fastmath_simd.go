//go:build wasm && goexperiment.simd

package elementwise

import (
	"github.com/gort-dev/gort/ops/internal/expf"
	"simd/archsimd"
	"unsafe"
)

// SIMD128 forms of the float32 row kernels: four lanes per step, the same
// float32 operations in the same order as exp32/erf32 and the scalar loops
// of fastmath_scalar.go, so the two builds agree bit for bit. Loads and
// stores go through unsafe pointers after one bounds check per slice.

type f32x4 = archsimd.Float32x4

func ld4(p unsafe.Pointer, i int) f32x4 {
	return archsimd.LoadFloat32x4Array((*[4]float32)(unsafe.Add(p, 4*i)))
}

func st4(x f32x4, p unsafe.Pointer, i int) {
	x.StoreArray((*[4]float32)(unsafe.Add(p, 4*i)))
}

func bc(x float32) f32x4 { return archsimd.BroadcastFloat32x4(x) }

// exp4 is exp32 on four lanes.
func exp4(x f32x4) f32x4 {
	x = x.Min(bc(0))
	under := x.Less(bc(expMin))
	t := x.Mul(bc(expf.Log2e)).Add(bc(expMagic))
	n := t.Sub(bc(expMagic))
	r := x.Sub(n.Mul(bc(expf.Ln2Hi)))
	r = r.Sub(n.Mul(bc(expf.Ln2Lo)))
	p := bc(expf.P0).Mul(r).Add(bc(expf.P1))
	p = p.Mul(r).Add(bc(expf.P2))
	p = p.Mul(r).Add(bc(expf.P3))
	p = p.Mul(r).Add(bc(expf.P4))
	p = p.Mul(r).Add(bc(expf.P5))
	p = p.Mul(r.Mul(r)).Add(r).Add(bc(1))
	e := t.ToBits().BitsToInt32().Sub(archsimd.BroadcastInt32x4(expMagicBits - 127)).ShiftAllLeft(23)
	p = p.Mul(e.ToBits().BitsToFloat32())
	// Lanes below expMin are 0 (NaN lanes compare false and stay NaN).
	return p.ToBits().AndNot(under.ToInt32x4().ToBits()).BitsToFloat32()
}

// erf4 is erf32 on four lanes: both branches are evaluated and each lane
// takes its own.
func erf4(x f32x4) f32x4 {
	a := x.Abs()
	s := x.Mul(x)
	r := bc(erfS0).Mul(s).Add(bc(erfS1))
	r = r.Mul(s).Add(bc(erfS2))
	r = r.Mul(s).Add(bc(erfS3))
	r = r.Mul(s).Add(bc(erfS4))
	r = r.Mul(s).Add(bc(erfS5))
	small := r.Mul(x).Add(x)

	t := a.Min(bc(erfClamp))
	q := bc(erfB0).Mul(t).Add(bc(erfB1))
	q = q.Mul(t).Add(bc(erfB2))
	q = q.Mul(t).Add(bc(erfB3))
	q = q.Mul(t).Add(bc(erfB4))
	q = q.Mul(t).Add(bc(erfB5))
	q = q.Mul(t).Add(bc(erfB6))
	q = q.Mul(t).Add(t)
	big := bc(1).Sub(exp4(q.Neg()))
	sign := archsimd.BroadcastUint32x4(1 << 31).And(x.ToBits())
	big = big.ToBits().Or(sign).BitsToFloat32()
	return small.IfElse(a.LessEqual(bc(erfSplit)), big)
}

// erfF32 stores erf(src[i]) into dst[i] (dst may be src).
func erfF32(dst, src []float32) {
	n := len(src)
	dst = dst[:n]
	n4 := n &^ 3
	if n4 > 0 {
		ps, pd := unsafe.Pointer(unsafe.SliceData(src)), unsafe.Pointer(unsafe.SliceData(dst))
		for i := 0; i < n4; i += 4 {
			st4(erf4(ld4(ps, i)), pd, i)
		}
	}
	for i := n4; i < n; i++ {
		dst[i] = erf32(src[i])
	}
}

// maxF32 returns the largest element of s (NaN if any is NaN); s is not empty.
func maxF32(s []float32) float32 {
	m := s[0]
	n4 := len(s) &^ 3
	if n4 > 0 {
		p := unsafe.Pointer(unsafe.SliceData(s))
		v := ld4(p, 0)
		for i := 4; i < n4; i += 4 {
			v = v.Max(ld4(p, i))
		}
		m = max(max(v.GetElem(0), v.GetElem(1)), max(v.GetElem(2), v.GetElem(3)))
	}
	for _, x := range s[n4:] {
		m = max(m, x)
	}
	return m
}

// expSubSumF32 stores e^(s[i]-m) into d[i] and returns their sum.
func expSubSumF32(d, s []float32, m float32) float32 {
	n := len(s)
	d = d[:n]
	n4 := n &^ 3
	var sum float32
	if n4 > 0 {
		ps, pd := unsafe.Pointer(unsafe.SliceData(s)), unsafe.Pointer(unsafe.SliceData(d))
		mv := bc(m)
		var acc f32x4
		for i := 0; i < n4; i += 4 {
			e := exp4(ld4(ps, i).Sub(mv))
			st4(e, pd, i)
			acc = acc.Add(e)
		}
		sum = (acc.GetElem(0) + acc.GetElem(1)) + (acc.GetElem(2) + acc.GetElem(3))
	}
	for i := n4; i < n; i++ {
		e := exp32(s[i] - m)
		d[i] = e
		sum += e
	}
	return sum
}

// scaleF32 multiplies every element of d by f.
func scaleF32(d []float32, f float32) {
	n4 := len(d) &^ 3
	if n4 > 0 {
		p := unsafe.Pointer(unsafe.SliceData(d))
		fv := bc(f)
		for i := 0; i < n4; i += 4 {
			st4(ld4(p, i).Mul(fv), p, i)
		}
	}
	for i := n4; i < len(d); i++ {
		d[i] *= f
	}
}

// arithRowF32 is arithRow for float32: Add, Sub, Mul and Div four lanes at
// a time (IEEE operations, so the results equal the scalar loop's), a
// broadcast operand splatted once per row; Max, Min and the tail go to
// arithRow.
func arithRowF32(k arithOp, d, a, b []float32) {
	n := len(d)
	n4 := n &^ 3
	va, vb := len(a) == n, len(b) == n
	if n4 == 0 || k > opDiv || !(va || vb) {
		arithRow(k, d, a, b)
		return
	}
	pd, pa, pb := unsafe.Pointer(unsafe.SliceData(d)), unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b))
	switch {
	case va && vb:
		_, _ = a[n-1], b[n-1]
		switch k {
		case opAdd:
			for i := 0; i < n4; i += 4 {
				st4(ld4(pa, i).Add(ld4(pb, i)), pd, i)
			}
		case opSub:
			for i := 0; i < n4; i += 4 {
				st4(ld4(pa, i).Sub(ld4(pb, i)), pd, i)
			}
		case opMul:
			for i := 0; i < n4; i += 4 {
				st4(ld4(pa, i).Mul(ld4(pb, i)), pd, i)
			}
		case opDiv:
			for i := 0; i < n4; i += 4 {
				st4(ld4(pa, i).Div(ld4(pb, i)), pd, i)
			}
		}
	case va:
		_ = a[n-1]
		y := bc(b[0])
		switch k {
		case opAdd:
			for i := 0; i < n4; i += 4 {
				st4(ld4(pa, i).Add(y), pd, i)
			}
		case opSub:
			for i := 0; i < n4; i += 4 {
				st4(ld4(pa, i).Sub(y), pd, i)
			}
		case opMul:
			for i := 0; i < n4; i += 4 {
				st4(ld4(pa, i).Mul(y), pd, i)
			}
		case opDiv:
			for i := 0; i < n4; i += 4 {
				st4(ld4(pa, i).Div(y), pd, i)
			}
		}
	default:
		_ = b[n-1]
		x := bc(a[0])
		switch k {
		case opAdd:
			for i := 0; i < n4; i += 4 {
				st4(x.Add(ld4(pb, i)), pd, i)
			}
		case opSub:
			for i := 0; i < n4; i += 4 {
				st4(x.Sub(ld4(pb, i)), pd, i)
			}
		case opMul:
			for i := 0; i < n4; i += 4 {
				st4(x.Mul(ld4(pb, i)), pd, i)
			}
		case opDiv:
			for i := 0; i < n4; i += 4 {
				st4(x.Div(ld4(pb, i)), pd, i)
			}
		}
	}
	if n4 < n {
		if va {
			a = a[n4:]
		}
		if vb {
			b = b[n4:]
		}
		arithRow(k, d[n4:], a, b)
	}
}
