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

// maxRows sets dst[i] to the running maximum, NaNs skipped as in maxInto,
// of rows[0][i], rows[1][i], ...: the column maxima of a MaxPool window in
// one pass over the rows, instead of a copy and one read-modify-write pass
// of dst per further row. Every row is at least len(dst) long.
func maxRows(dst []float32, rows [][]float32) {
	n := len(dst)
	for _, r := range rows {
		_ = r[:n]
	}
	pd := unsafe.Pointer(unsafe.SliceData(dst))
	i := 0
	for ; i+4 <= n; i += 4 {
		off := uintptr(i) * 4
		t := ld4(unsafe.Pointer(unsafe.SliceData(rows[0])), off)
		for _, r := range rows[1:] {
			v := ld4(unsafe.Pointer(unsafe.SliceData(r)), off)
			t = t.IfElse(t.GreaterEqual(v).Or(v.NotEqual(v)), v)
		}
		st4(t, pd, off)
	}
	for ; i < n; i++ {
		t := rows[0][i]
		for _, r := range rows[1:] {
			if v := r[i]; !(t >= v || v != v) {
				t = v
			}
		}
		dst[i] = t
	}
}

// sumRows is sumRowsScalar four lanes at a time (the same additions in the
// same order per lane).
func sumRows(dst []float32, rows [][]float32) {
	n := len(dst)
	for _, r := range rows {
		_ = r[:n]
	}
	pd := unsafe.Pointer(unsafe.SliceData(dst))
	i := 0
	for ; i+4 <= n; i += 4 {
		off := uintptr(i) * 4
		t := ld4(unsafe.Pointer(unsafe.SliceData(rows[0])), off)
		for _, r := range rows[1:] {
			t = t.Add(ld4(unsafe.Pointer(unsafe.SliceData(r)), off))
		}
		st4(t, pd, off)
	}
	for ; i < n; i++ {
		t := rows[0][i]
		for _, r := range rows[1:] {
			t += r[i]
		}
		dst[i] = t
	}
}

// sumWindow is sumWindowScalar four outputs at a time.
func sumWindow(w, x []float32, KW, dw int) {
	_ = x[len(w)-1+(KW-1)*dw]
	px := unsafe.Pointer(unsafe.SliceData(x))
	n := len(w) &^ 3
	for i := 0; i < n; i += 4 {
		s := ld4(px, uintptr(i)*4)
		for kw := 1; kw < KW; kw++ {
			s = s.Add(ld4(px, uintptr(i+kw*dw)*4))
		}
		s.Store(w[i : i+4])
	}
	sumWindowScalar(w[n:], x[n:], KW, dw)
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
