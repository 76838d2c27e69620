//go:build wasm && goexperiment.simd

package kernels

import (
	"simd/archsimd"
	"unsafe"
)

// vecWindow reports that maxWindowS1 is vectorised, so that a strided
// MaxPool can compute the window at every column and keep every sw-th.
const vecWindow = true

// maxVecStride is the largest stride for which that pays: per output it
// costs sw/4 vector scans against one scalar scan.
const maxVecStride = 4

// vecPool3x3s2 reports that maxPool3x3s2 exists.
const vecPool3x3s2 = true

// maxPool3x3s2 computes rows output rows of n outputs each, in WebAssembly
// (pool_wasm.s), of a 3×3, stride-2, unit-dilation MaxPool whose windows
// all lie inside the input: output row r, column j is the maximum of the
// nine taps x + r·sx + kh·ldx + (2j+kw)·4 (strides in bytes), written at
// y + r·ldy + 4j. col is scratch of 2n+2 floats, lanes evenOddLanes. It stops
// before a row whose first kernel row holds a NaN (there the column-first
// scan would drop the taps below it) and returns the rows it did.
//
//go:noescape
func maxPool3x3s2(x unsafe.Pointer, ldx, sx uintptr, y unsafe.Pointer, ldy uintptr, rows, n int, col, lanes unsafe.Pointer) int

// avgPlanes sets y[p] to the mean of the p-th plane of is floats at x, for
// planes planes, in float32 (pool_wasm.s); lanes is sumLanes.
//
//go:noescape
func avgPlanes(x, y unsafe.Pointer, planes, is int, lanes unsafe.Pointer)

// sumLanes are avgPlanes' i8x16.swizzle indices: lanes 2 and 3 to 0 and 1,
// then lane 1 to 0 (0x80: a zero byte).
var sumLanes = [32]byte{
	8, 9, 10, 11, 12, 13, 14, 15, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	4, 5, 6, 7, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
}

// GlobalAvgPool sets y[p] to the mean of x[p·is : (p+1)·is] for each of
// the planes, summed in float32 lanes.
func GlobalAvgPool(x, y []float32, planes, is int) {
	if planes <= 0 {
		return
	}
	_, _ = x[:planes*is], y[planes-1]
	avgPlanes(unsafe.Pointer(unsafe.SliceData(x)), unsafe.Pointer(&y[0]), planes, is, unsafe.Pointer(&sumLanes))
}

// maxRows sets dst[i] to the running maximum, NaNs skipped as in maxRowsScalar,
// of the nrows rows x[off + j·step + i]: the column maxima of a MaxPool
// window in one pass over its rows, instead of a copy and one
// read-modify-write pass of dst per further row. Eight lanes per
// iteration, and three rows unrolled: Go's wasm branches go through a
// dispatch table, so loop trips cost more than the vector operations
// (SqueezeNet's first MaxPool 1.2 → 0.5 ms with maxWindowS1Vec's unrolling).
func maxRows(dst, x []float32, off, step, nrows int) {
	n := len(dst)
	_ = x[off : off+(nrows-1)*step+n]
	pd, px := unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(&x[off])
	st := uintptr(step) * 4
	i := 0
	if nrows == 3 {
		for ; i+8 <= n; i += 8 {
			o := uintptr(i) * 4
			t0, t1 := ld4(px, o), ld4(px, o+16)
			t0, t1 = maxNaNSkip(t0, ld4(px, o+st)), maxNaNSkip(t1, ld4(px, o+st+16))
			t0, t1 = maxNaNSkip(t0, ld4(px, o+2*st)), maxNaNSkip(t1, ld4(px, o+2*st+16))
			st4(t0, pd, o)
			st4(t1, pd, o+16)
		}
	}
	for ; i+8 <= n; i += 8 {
		o := uintptr(i) * 4
		t0, t1 := ld4(px, o), ld4(px, o+16)
		for j := 1; j < nrows; j++ {
			o += st
			t0, t1 = maxNaNSkip(t0, ld4(px, o)), maxNaNSkip(t1, ld4(px, o+16))
		}
		st4(t0, pd, uintptr(i)*4)
		st4(t1, pd, uintptr(i)*4+16)
	}
	if n < 4 {
		maxRowsScalar(dst, x, off, step, nrows)
		return
	}
	// The rest four at a time, the last four overlapping those before them
	// (a scalar tail per row cost as much as the vectors).
	for i < n {
		i = min(i, n-4)
		o := uintptr(i) * 4
		t := ld4(px, o)
		for j := 1; j < nrows; j++ {
			o += st
			t = maxNaNSkip(t, ld4(px, o))
		}
		st4(t, pd, uintptr(i)*4)
		i += 4
	}
}

// maxNaNSkip is maxRowsScalar's step per lane: t replaced by v where
// !(t >= v || v is NaN).
func maxNaNSkip(t, v f32x4) f32x4 {
	return t.IfElse(t.GreaterEqual(v).Or(v.NotEqual(v)), v)
}

// sumRows is sumRowsScalar four lanes at a time (the same additions in the
// same order per lane), two vectors per trip and the last four overlapping,
// as in maxRows.
func sumRows(dst, x []float32, off, step, nrows int) {
	n := len(dst)
	if n < 4 {
		sumRowsScalar(dst, x, off, step, nrows)
		return
	}
	_ = x[off : off+(nrows-1)*step+n]
	pd, px := unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(&x[off])
	st := uintptr(step) * 4
	i := 0
	for ; i+8 <= n; i += 8 {
		o := uintptr(i) * 4
		t0, t1 := ld4(px, o), ld4(px, o+16)
		for j := 1; j < nrows; j++ {
			o += st
			t0, t1 = t0.Add(ld4(px, o)), t1.Add(ld4(px, o+16))
		}
		st4(t0, pd, uintptr(i)*4)
		st4(t1, pd, uintptr(i)*4+16)
	}
	for i < n {
		i = min(i, n-4)
		o := uintptr(i) * 4
		t := ld4(px, o)
		for j := 1; j < nrows; j++ {
			o += st
			t = t.Add(ld4(px, o))
		}
		st4(t, pd, uintptr(i)*4)
		i += 4
	}
}

// divAll is divAllScalar four lanes at a time.
func divAll(w []float32, d float32) {
	vd := archsimd.BroadcastFloat32x4(d)
	i := 0
	for ; i+4 <= len(w); i += 4 {
		archsimd.LoadFloat32x4(w[i : i+4]).Div(vd).Store(w[i : i+4])
	}
	divAllScalar(w[i:], d)
}

// maxWindowS2Vec is the MaxPool window scan of maxWindowS1 at every second
// column (stride 2, unit dilation; KW ≤ 4): y[j] is the window at x[2j],
// or first[2j] when that is NaN. Four outputs per trip: the windows at
// eight consecutive columns, two vectors, of which the even lanes are kept
// by lane moves. Computing every column's window and then picking every
// second one (pick, a scalar loop) made SqueezeNet's first MaxPool 0.70 ms
// instead of 0.60. It returns how many outputs it did; the rest take the
// scalar scan.
func maxWindowS2Vec(y, x, first []float32, KW int) int {
	if KW > 4 {
		return 0
	}
	px, pf := unsafe.Pointer(unsafe.SliceData(x)), unsafe.Pointer(unsafe.SliceData(first))
	py := unsafe.Pointer(unsafe.SliceData(y))
	j := 0
	// A trip reads x[2j : 2j+7+KW] and first[2j : 2j+8].
	for ; j+4 <= len(y) && 2*j+7+KW <= len(x) && 2*j+8 <= len(first); j += 4 {
		o := uintptr(2*j) * 4
		b0, b1 := ld4(px, o), ld4(px, o+16)
		for kw := 1; kw < KW; kw++ {
			k := o + uintptr(kw)*4
			b0, b1 = maxGreater(b0, ld4(px, k)), maxGreater(b1, ld4(px, k+16))
		}
		b0, b1 = nanFirst(b0, ld4(pf, o)), nanFirst(b1, ld4(pf, o+16))
		st4(b0.SetElem(1, b0.GetElem(2)).SetElem(2, b1.GetElem(0)).SetElem(3, b1.GetElem(2)), py, uintptr(j)*4)
	}
	return j
}
