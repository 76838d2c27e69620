//go:build !(wasm && goexperiment.simd)

package kernels

import "unsafe"

// Scalar micro-kernels, for every build but WebAssembly with GOEXPERIMENT=simd
// (sgemm_simd.go). The 32 accumulators are plain locals so the compiler can
// keep them in registers; re-slicing a and b hoists the bounds checks.

// kernel4x8 computes the MR×NR tile a·b (a: k×MR packed, b: k×NR packed)
// and stores it into c (leading dimension ldc), or adds it to c when acc.
// The scalar loop is gemm.go's micro4x8, which adds; a store clears first.
func kernel4x8(a, b []float32, k int, c []float32, ldc int, acc bool) {
	if !acc {
		for i := 0; i < MR; i++ {
			clear(c[i*ldc : i*ldc+NR])
		}
	}
	micro4x8(a[:MR*k], b[:NR*k], c, ldc)
}

// kernel4x8e is kernel4x8, then e (see Epilogue.fusable) applied to the
// tile, whose first element is C's (row, col).
func kernel4x8e(a, b []float32, k int, c []float32, ldc int, acc bool, e *Epilogue, row, col int) {
	kernel4x8(a, b, k, c, ldc, acc)
	epilogue4x8(c, ldc, e, row, col)
}

// kernel4x8s is kernel4x8 reading B rows ldb floats apart. The GEMM passes
// this build packed panels only (directB), but any stride gives the same
// sums, in the same order.
func kernel4x8s(a, b []float32, k, ldb int, c []float32, ldc int, acc bool, e *Epilogue, row, col int) {
	if !acc {
		for i := 0; i < MR; i++ {
			clear(c[i*ldc : i*ldc+NR])
		}
	}
	var t [MR * NR]float32
	for p := 0; p < k; p++ {
		bp := b[p*ldb : p*ldb+NR]
		for i := 0; i < MR; i++ {
			ai := a[p*MR+i]
			for j, v := range bp {
				t[i*NR+j] += ai * v
			}
		}
	}
	for i := 0; i < MR; i++ {
		row := c[i*ldc : i*ldc+NR]
		for j := range row {
			row[j] += t[i*NR+j]
		}
	}
	if e != nil {
		epilogue4x8(c, ldc, e, row, col)
	}
}

// epilogue4x8 applies e to the 4×8 tile of C at c, whose first element is
// C's (row, col).
func epilogue4x8(c []float32, ldc int, e *Epilogue, row, col int) {
	for i := 0; i < MR; i++ {
		var bias float32
		if e.RowBias != nil {
			bias = e.RowBias[row+i]
		}
		var res []float32
		if e.Residual != nil {
			o := (row+i)*e.LdR + col
			res = e.Residual[o : o+NR]
		}
		epilogueRowScalar(c[i*ldc:i*ldc+NR], e.RowBias != nil, bias, nil, res, e.Act, 0, 0)
	}
}

// directB is false: this build's GEMM packs every B panel (see sgemm_simd.go).
const directB = false

// kernel1x8 stores into c[:NR] the product of row 0 of the packed A panel a
// (stride MR) with the B panel b (rows ldb apart, as in kernel4x8).
func kernel1x8(a, b []float32, k, ldb int, c []float32) {
	var c0, c1, c2, c3, c4, c5, c6, c7 float32
	a = a[:4*k]
	for p := 0; p < k; p++ {
		a0 := a[4*p]
		bp := b[p*ldb : p*ldb+8 : p*ldb+8]
		c0 += a0 * bp[0]
		c1 += a0 * bp[1]
		c2 += a0 * bp[2]
		c3 += a0 * bp[3]
		c4 += a0 * bp[4]
		c5 += a0 * bp[5]
		c6 += a0 * bp[6]
		c7 += a0 * bp[7]
	}
	c = c[:8:8]
	c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7] = c0, c1, c2, c3, c4, c5, c6, c7
}

// epilogueRow applies one row of an Epilogue (see epilogueRowScalar).
func epilogueRow(x []float32, hasBias bool, bias float32, colBias, res []float32, act Act, al, be float32) {
	epilogueRowScalar(x, hasBias, bias, colBias, res, act, al, be)
}

func activateSimple(x []float32, act Act, alpha, beta float32) { activateScalar(x, act, alpha, beta) }

func dwRowS1(y, x []float32, offs []int, wt []float32, o0 int) { dwRow(y, x, offs, wt, 0, o0, 1) }

// copy8 and zero8 move one panel row; spelled out, as Go compiles an array
// assignment of this size to a memmove call.
func copy8(d, s *[8]float32) {
	d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7] = s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
}

func zero8(d *[8]float32) {
	d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7] = 0, 0, 0, 0, 0, 0, 0, 0
}

// ScaleShift sets dst[i] = (src[i] - sub)·mul + add (an inference-mode
// BatchNormalization channel).
func ScaleShift(dst, src []float32, sub, mul, add float32) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = (v-sub)*mul + add
	}
}

// maxWindowS1Vec is the vectorised part of maxWindowS1: none here.
func maxWindowS1Vec(y, x, first []float32, KW, dw int) int { return 0 }

// kernel4xn writes into t (rows NR apart) the first n < NR columns of the
// MR×NR tile a·b (B rows ldb apart): an edge panel's few columns without
// the work of the full tile (see sgemm_simd.go); the same sums, in order.
func kernel4xn(a, b []float32, k, ldb, n int, t []float32) {
	for j := 0; j < n; j++ {
		var c0, c1, c2, c3 float32
		for p := 0; p < k; p++ {
			bv := b[p*ldb+j]
			ap := a[p*MR : p*MR+MR : p*MR+MR]
			c0 += ap[0] * bv
			c1 += ap[1] * bv
			c2 += ap[2] * bv
			c3 += ap[3] * bv
		}
		t[j], t[NR+j], t[2*NR+j], t[3*NR+j] = c0, c1, c2, c3
	}
}

// kernelColumn computes the nq full tiles of one column of C: tile q is the
// A panel a[q·as:] times the B panel b (rows ldb apart), stored into C from
// row q·MR, with the fused epilogue e (nil for none). In this build it is a
// loop over the tile kernels.
func kernelColumn(a []float32, as int, b []float32, k, ldb int, c []float32, ldc int, acc bool, e *Epilogue, row, col, nq int) {
	for q := 0; q < nq; q++ {
		aq, cq := a[q*as:], c[q*MR*ldc:]
		switch {
		case ldb != NR:
			kernel4x8s(aq, b, k, ldb, cq, ldc, acc, e, row+q*MR, col)
		case e != nil:
			kernel4x8e(aq, b, k, cq, ldc, acc, e, row+q*MR, col)
		default:
			kernel4x8(aq, b, k, cq, ldc, acc)
		}
	}
}

// kernelEdgeColumn writes into t (rows NR apart) the first n ≤ 2 columns of
// nq stacked MR×NR tiles, tile q from the A panel a[q·as:] (see
// sgemm_simd.go): here kernel4xn per tile.
func kernelEdgeColumn(a []float32, as int, b []float32, k, ldb, n, nq int, t []float32) {
	for q := 0; q < nq; q++ {
		kernel4xn(a[q*as:], b, k, ldb, n, t[q*MR*NR:])
	}
}

// kernelRow stores into t (rows ldt floats apart) the np tiles of one row
// panel of A times the B panels b[q·bs:] (rows ldb apart; see
// sgemm_simd.go): here kernel4x8s per tile.
func kernelRow(a, b []float32, k, ldb, bs, np int, t []float32, ldt int) {
	for q := 0; q < np; q++ {
		kernel4x8s(a, b[q*bs:], k, ldb, t[q*NR:], ldt, false, nil, 0, 0)
	}
}

// vecPackA reports that packA4 exists: not in this build.
const vecPackA = false

func packA4(dst, a unsafe.Pointer, lda uintptr, kb int, alphabits uint64) {
	panic("kernels: packA4 is in the SIMD build only")
}
