package kernels

import "sync"

// The generic blocked GEMM, used for float64 (Dgemm, the integer and
// quantised paths that compute exactly in float64). float32 has its own
// packed, SIMD-capable driver in sgemm.go.
//
// Blocking parameters. The packed B panel (kcBlock×nr) should sit in L1, the
// packed A block (mcBlock×kcBlock) in L2, and the packed B block
// (kcBlock×ncBlock) in L3. The micro-tile is mr×nr: 4×8 gives 32
// accumulators, which wasm engines keep in locals/registers and which on
// amd64 still beats smaller tiles because every loaded B value is reused 4×
// and every A value 8×.
const (
	mr      = 4
	nr      = 8
	kcBlock = 256
	mcBlock = 128
	ncBlock = 2048
)

// Dgemm is Sgemm for float64.
func Dgemm(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	Gemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

var packPool32 = sync.Pool{New: func() any { return &packBufs[float32]{} }}
var packPool64 = sync.Pool{New: func() any { return &packBufs[float64]{} }}

type packBufs[T Float] struct{ a, b []T }

func getBufs[T Float]() (*packBufs[T], func()) {
	var z T
	if _, ok := any(z).(float32); ok {
		p := packPool32.Get().(*packBufs[float32])
		return any(p).(*packBufs[T]), func() { packPool32.Put(p) }
	}
	p := packPool64.Get().(*packBufs[float64])
	return any(p).(*packBufs[T]), func() { packPool64.Put(p) }
}

// Gemm is the generic blocked matrix multiplication behind Sgemm and Dgemm.
func Gemm[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if m <= 0 || n <= 0 {
		return
	}
	// Scale C by beta once, up front, so the micro-kernel only accumulates.
	if beta != 1 {
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			if beta == 0 {
				clear(row)
			} else {
				for j := range row {
					row[j] *= beta
				}
			}
		}
	}
	if k <= 0 || alpha == 0 {
		return
	}
	bufs, put := getBufs[T]()
	defer put()
	kcMax := min(k, kcBlock)
	ncMax := min(roundUp(n, nr), ncBlock)
	mcMax := min(roundUp(m, mr), mcBlock)
	if cap(bufs.b) < kcMax*ncMax {
		bufs.b = make([]T, kcMax*ncMax)
	}
	if cap(bufs.a) < kcMax*mcMax {
		bufs.a = make([]T, kcMax*mcMax)
	}
	pb := bufs.b[:kcMax*ncMax]
	pa := bufs.a[:kcMax*mcMax]
	var tile [mr * nr]T
	for jc := 0; jc < n; jc += ncBlock {
		nb := min(ncBlock, n-jc)
		for pc := 0; pc < k; pc += kcBlock {
			kb := min(kcBlock, k-pc)
			packB(transB, b, ldb, pc, jc, kb, nb, pb)
			for ic := 0; ic < m; ic += mcBlock {
				mb := min(mcBlock, m-ic)
				packA(transA, a, lda, ic, pc, mb, kb, alpha, pa)
				for jr := 0; jr < nb; jr += nr {
					nn := min(nr, nb-jr)
					bp := pb[(jr/nr)*kb*nr : (jr/nr+1)*kb*nr]
					for ir := 0; ir < mb; ir += mr {
						mm := min(mr, mb-ir)
						ap := pa[(ir/mr)*kb*mr : (ir/mr+1)*kb*mr]
						co := (ic+ir)*ldc + jc + jr
						if mm == mr && nn == nr {
							micro4x8(ap, bp, c[co:], ldc)
							continue
						}
						clear(tile[:])
						micro4x8(ap, bp, tile[:], nr)
						for i := 0; i < mm; i++ {
							row := c[co+i*ldc : co+i*ldc+nn]
							for j := range row {
								row[j] += tile[i*nr+j]
							}
						}
					}
				}
			}
		}
	}
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }

// packA copies the mb×kb block of op(A) at (i0, p0), scaled by alpha, into
// panels of mr rows laid out k-major: panel[p*mr + r] = alpha·A(i0+r, p0+p).
// Rows past mb are zero so edge tiles can use the full micro-kernel.
func packA[T Float](trans bool, a []T, lda, i0, p0, mb, kb int, alpha T, dst []T) {
	for ir := 0; ir < mb; ir += mr {
		panel := dst[(ir/mr)*kb*mr : (ir/mr+1)*kb*mr]
		rows := min(mr, mb-ir)
		if !trans {
			for r := 0; r < mr; r++ {
				if r >= rows {
					for p := 0; p < kb; p++ {
						panel[p*mr+r] = 0
					}
					continue
				}
				src := a[(i0+ir+r)*lda+p0 : (i0+ir+r)*lda+p0+kb]
				for p, v := range src {
					panel[p*mr+r] = alpha * v
				}
			}
			continue
		}
		for p := 0; p < kb; p++ {
			src := a[(p0+p)*lda+i0+ir:]
			d := panel[p*mr : p*mr+mr]
			for r := 0; r < mr; r++ {
				if r < rows {
					d[r] = alpha * src[r]
				} else {
					d[r] = 0
				}
			}
		}
	}
}

// packB copies the kb×nb block of op(B) at (p0, j0) into panels of nr
// columns laid out k-major: panel[p*nr + c] = B(p0+p, j0+c), zero-padded.
func packB[T Float](trans bool, b []T, ldb, p0, j0, kb, nb int, dst []T) {
	for jr := 0; jr < nb; jr += nr {
		panel := dst[(jr/nr)*kb*nr : (jr/nr+1)*kb*nr]
		cols := min(nr, nb-jr)
		if !trans {
			for p := 0; p < kb; p++ {
				d := panel[p*nr : p*nr+nr]
				src := b[(p0+p)*ldb+j0+jr:]
				if cols == nr {
					copy(d, src[:nr])
					continue
				}
				copy(d, src[:cols])
				clear(d[cols:])
			}
			continue
		}
		for cc := 0; cc < nr; cc++ {
			if cc >= cols {
				for p := 0; p < kb; p++ {
					panel[p*nr+cc] = 0
				}
				continue
			}
			src := b[(j0+jr+cc)*ldb+p0 : (j0+jr+cc)*ldb+p0+kb]
			for p, v := range src {
				panel[p*nr+cc] = v
			}
		}
	}
}

// micro4x8 adds the product of a packed A panel (k×4) and a packed B panel
// (k×8) to the 4×8 tile of c at ldc. The 32 accumulators are plain locals so
// the compiler can keep them in registers; the loop re-slices a and b so the
// bounds checks are hoisted.
func micro4x8[T Float](a, b []T, c []T, ldc int) {
	var c00, c01, c02, c03, c04, c05, c06, c07 T
	var c10, c11, c12, c13, c14, c15, c16, c17 T
	var c20, c21, c22, c23, c24, c25, c26, c27 T
	var c30, c31, c32, c33, c34, c35, c36, c37 T
	for len(a) >= 4 && len(b) >= 8 {
		a0, a1, a2, a3 := a[0], a[1], a[2], a[3]
		b0, b1, b2, b3, b4, b5, b6, b7 := b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c04 += a0 * b4
		c05 += a0 * b5
		c06 += a0 * b6
		c07 += a0 * b7
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		c14 += a1 * b4
		c15 += a1 * b5
		c16 += a1 * b6
		c17 += a1 * b7
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		c24 += a2 * b4
		c25 += a2 * b5
		c26 += a2 * b6
		c27 += a2 * b7
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
		c34 += a3 * b4
		c35 += a3 * b5
		c36 += a3 * b6
		c37 += a3 * b7
		a = a[4:]
		b = b[8:]
	}
	r := c[0:8:8]
	r[0] += c00
	r[1] += c01
	r[2] += c02
	r[3] += c03
	r[4] += c04
	r[5] += c05
	r[6] += c06
	r[7] += c07
	r = c[ldc : ldc+8 : ldc+8]
	r[0] += c10
	r[1] += c11
	r[2] += c12
	r[3] += c13
	r[4] += c14
	r[5] += c15
	r[6] += c16
	r[7] += c17
	r = c[2*ldc : 2*ldc+8 : 2*ldc+8]
	r[0] += c20
	r[1] += c21
	r[2] += c22
	r[3] += c23
	r[4] += c24
	r[5] += c25
	r[6] += c26
	r[7] += c27
	r = c[3*ldc : 3*ldc+8 : 3*ldc+8]
	r[0] += c30
	r[1] += c31
	r[2] += c32
	r[3] += c33
	r[4] += c34
	r[5] += c35
	r[6] += c36
	r[7] += c37
}
