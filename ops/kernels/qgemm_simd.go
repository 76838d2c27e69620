//go:build wasm && goexperiment.simd

package kernels

import "simd/archsimd"

// gemmI16 is GemmI16 in WebAssembly SIMD128: 4×8 tiles of C held in eight
// i32x4 accumulators over the whole depth, each step one load of eight B
// values and, per row of A, a broadcast and two widening multiplies
// (i32x4.extmul_low/high_i16x8_s) added in. WebAssembly SIMD has a dot
// product of i16 pairs too, but archsimd does not expose it for wasm; the
// widening multiplies cost one instruction more per eight products.
// Edges (fewer than four rows or eight columns) take the scalar loop.
func gemmI16(m, n, k int, a []int16, lda int, b []int16, ldb int, c []int32, ldc int) {
	n8 := n &^ 7
	i := 0
	for ; i+4 <= m; i += 4 {
		for j := 0; j < n8; j += 8 {
			tileI16x4x8(k, a[i*lda:], lda, b[j:], ldb, c[i*ldc+j:], ldc)
		}
		if n8 < n {
			gemmI16Scalar(4, n-n8, k, a[i*lda:], lda, b[n8:], ldb, c[i*ldc+n8:], ldc)
		}
	}
	for ; i < m; i++ {
		for j := 0; j < n8; j += 8 {
			rowI16x8(k, a[i*lda:i*lda+k], b[j:], ldb, c[i*ldc+j:i*ldc+j+8])
		}
		if n8 < n {
			gemmI16Scalar(1, n-n8, k, a[i*lda:], lda, b[n8:], ldb, c[i*ldc+n8:], ldc)
		}
	}
}

// tileI16x4x8 adds A (4×k, lda) · B (k×8, ldb) to the 4×8 tile of C at c.
func tileI16x4x8(k int, a []int16, lda int, b []int16, ldb int, c []int32, ldc int) {
	a0, a1, a2, a3 := a[:k], a[lda:lda+k], a[2*lda:2*lda+k], a[3*lda:3*lda+k]
	c0, c1, c2, c3 := c[:8], c[ldc:ldc+8], c[2*ldc:2*ldc+8], c[3*ldc:3*ldc+8]
	s0l, s0h := archsimd.LoadInt32x4(c0), archsimd.LoadInt32x4(c0[4:])
	s1l, s1h := archsimd.LoadInt32x4(c1), archsimd.LoadInt32x4(c1[4:])
	s2l, s2h := archsimd.LoadInt32x4(c2), archsimd.LoadInt32x4(c2[4:])
	s3l, s3h := archsimd.LoadInt32x4(c3), archsimd.LoadInt32x4(c3[4:])
	for p := range k {
		bv := archsimd.LoadInt16x8(b[p*ldb : p*ldb+8])
		v := archsimd.BroadcastInt16x8(a0[p])
		s0l, s0h = s0l.Add(v.MulWidenLo(bv)), s0h.Add(v.MulWidenHi(bv))
		v = archsimd.BroadcastInt16x8(a1[p])
		s1l, s1h = s1l.Add(v.MulWidenLo(bv)), s1h.Add(v.MulWidenHi(bv))
		v = archsimd.BroadcastInt16x8(a2[p])
		s2l, s2h = s2l.Add(v.MulWidenLo(bv)), s2h.Add(v.MulWidenHi(bv))
		v = archsimd.BroadcastInt16x8(a3[p])
		s3l, s3h = s3l.Add(v.MulWidenLo(bv)), s3h.Add(v.MulWidenHi(bv))
	}
	s0l.Store(c0)
	s0h.Store(c0[4:])
	s1l.Store(c1)
	s1h.Store(c1[4:])
	s2l.Store(c2)
	s2h.Store(c2[4:])
	s3l.Store(c3)
	s3h.Store(c3[4:])
}

// rowI16x8 adds a (one row of A, k values) · B (k×8, ldb) to c (8 values).
func rowI16x8(k int, a []int16, b []int16, ldb int, c []int32) {
	sl, sh := archsimd.LoadInt32x4(c), archsimd.LoadInt32x4(c[4:])
	for p, av := range a[:k] {
		bv := archsimd.LoadInt16x8(b[p*ldb : p*ldb+8])
		v := archsimd.BroadcastInt16x8(av)
		sl, sh = sl.Add(v.MulWidenLo(bv)), sh.Add(v.MulWidenHi(bv))
	}
	sl.Store(c)
	sh.Store(c[4:])
}
