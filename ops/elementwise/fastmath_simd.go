//go:build wasm && goexperiment.simd

package elementwise

import (
	"math"

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

// erfF32 stores erf(src[i]) into dst[i] (dst may be src): whole vectors
// by erf4s, the rest with erf32.
func erfF32(dst, src []float32) {
	n := len(src)
	dst = dst[:n]
	n4 := n &^ 3
	if n4 > 0 {
		erf4s(unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src)), n4/4, unsafe.Pointer(&mathTable))
	}
	for i := n4; i < n; i++ {
		dst[i] = erf32(src[i])
	}
}

// erf4s stores erf32(s[i]) for the n vectors at s into d, four lanes at a
// time (both of erf32's branches evaluated, each lane taking its own), in
// WebAssembly (fastmath_wasm.s); table is mathTable.
//
//go:noescape
func erf4s(d, s unsafe.Pointer, n int, table unsafe.Pointer)

// maxF32 returns the largest element of s (NaN if any is NaN); s is not
// empty. Whole vectors by maxVec4 (f32x4.max, which propagates NaN as
// Go's max does), then the lanes and the rest.
func maxF32(s []float32) float32 {
	m := s[0]
	n4 := len(s) &^ 3
	if n4 > 0 {
		var v [4]float32
		maxVec4(unsafe.Pointer(unsafe.SliceData(s)), n4/4, unsafe.Pointer(&v))
		m = max(max(v[0], v[1]), max(v[2], v[3]))
	}
	for _, x := range s[n4:] {
		m = max(m, x)
	}
	return m
}

// maxVec4 stores into out the lane-wise maximum of the n ≥ 1 vectors at
// s, in WebAssembly (fastmath_wasm.s).
//
//go:noescape
func maxVec4(s unsafe.Pointer, n int, out unsafe.Pointer)

// expSubSumF32 stores e^(s[i]-m) into d[i] and returns their sum: whole
// vectors by expSubSum4, the lanes' sums added as
// (l0+l1) + (l2+l3), then the rest one at a time with exp32.
func expSubSumF32(d, s []float32, m float32) float32 {
	n := len(s)
	d = d[:n]
	n4 := n &^ 3
	var sum float32
	if n4 > 0 {
		var acc [4]float32
		expSubSum4(unsafe.Pointer(unsafe.SliceData(d)), unsafe.Pointer(unsafe.SliceData(s)), n4/4,
			uint64(math.Float32bits(m)), unsafe.Pointer(&mathTable), unsafe.Pointer(&acc))
		sum = (acc[0] + acc[1]) + (acc[2] + acc[3])
	}
	for i := n4; i < n; i++ {
		e := exp32(s[i] - m)
		d[i] = e
		sum += e
	}
	return sum
}

// expSubSum4 stores exp32(s[i] - m) for the n vectors at s into d and their
// lane sums into sums (four floats), in WebAssembly (fastmath_wasm.s);
// mbits is m's bits, table mathTable.
//
//go:noescape
func expSubSum4(d, s unsafe.Pointer, n int, mbits uint64, table, sums unsafe.Pointer)

// mathTable holds the constants of exp32 and erf32 for the assembly loops,
// each in four lanes: 0, expMin, log2 e, the rounding magic, ln 2 high and
// low, P0…P5, 1, (as int32) expMagicBits − 127; then erf's S0…S5, B0…B6,
// erfClamp, erfSplit and (as bits) the sign.
var mathTable = func() (t [30][4]uint32) {
	fs := []float32{0, expMin, expf.Log2e, expMagic, expf.Ln2Hi, expf.Ln2Lo, expf.P0, expf.P1, expf.P2, expf.P3, expf.P4, expf.P5, 1, 0,
		erfS0, erfS1, erfS2, erfS3, erfS4, erfS5, erfB0, erfB1, erfB2, erfB3, erfB4, erfB5, erfB6, erfClamp, erfSplit}
	for i, f := range fs {
		b := math.Float32bits(f)
		t[i] = [4]uint32{b, b, b, b}
	}
	t[13] = [4]uint32{expMagicBits - 127, expMagicBits - 127, expMagicBits - 127, expMagicBits - 127}
	t[29] = [4]uint32{1 << 31, 1 << 31, 1 << 31, 1 << 31}
	return t
}()

// scaleF32 multiplies every element of d by f: whole vectors by scale4.
func scaleF32(d []float32, f float32) {
	n4 := len(d) &^ 3
	if n4 > 0 {
		scale4(unsafe.Pointer(unsafe.SliceData(d)), n4/4, uint64(math.Float32bits(f)))
	}
	for i := n4; i < len(d); i++ {
		d[i] *= f
	}
}

// scale4 multiplies the n vectors at d by the float32 whose bits are
// fbits, in WebAssembly (fastmath_wasm.s).
//
//go:noescape
func scale4(d unsafe.Pointer, n int, fbits uint64)

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
