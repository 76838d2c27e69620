package kernels

import (
	"math"
	"sync"
	"unsafe"
)

// The float32 GEMM. Operands are packed into panels (A in MR-row panels, B
// in NR-column panels, both k-major) and multiplied MR×NR tile by tile by a
// register-blocked micro-kernel: Float32x4 SIMD in the WebAssembly SIMD build
// (sgemm_simd.go), plain scalar code elsewhere (sgemm_scalar.go). Constant
// operands (a convolution's weights, a MatMul's or Gemm's B) are packed once
// with PackA / PackB and reused on every run.
//
// Blocking (GotoBLAS order): the kc×NR micro-panel of B stays in L1 while the
// micro-kernel sweeps the MC×kc block of A (L2); the kc×NC block of B is
// packed once per (kc, NC) block.
const (
	MR = 4 // rows of the micro-tile
	NR = 8 // columns of the micro-tile
)

// Block sizes (variables so that a benchmark can sweep them).
var (
	sgemmKC = 256  // depth of a block
	sgemmMC = 128  // rows of an A block (multiple of MR)
	sgemmNC = 2048 // columns of a B block (multiple of NR)
)

// PackedA is an m×k matrix op(A) packed for Sgemm: panels of MR rows over
// the full depth, panel q holding rows [q·MR, q·MR+MR) k-major
// (data[q·MR·k + p·MR + r]); rows past M are zero. It is read-only once
// built and may be shared by concurrent runs.
type PackedA struct {
	M, K int
	data []float32
}

// rows returns rows [lo, hi) of p, lo a multiple of MR: its panels from
// lo/MR on, sharing p's data.
func (p *PackedA) rows(lo, hi int) PackedA {
	return PackedA{M: hi - lo, K: p.K, data: p.data[lo*p.K : roundUp(hi, MR)*p.K]}
}

// PackedB is a k×n matrix op(B) packed for Sgemm: panels of NR columns over
// the full depth (data[q·NR·k + p·NR + c]); columns past N are zero.
type PackedB struct {
	K, N int
	data []float32
}

// PackA packs op(A) (m×k; A is k×m with leading dimension lda when trans),
// scaled by alpha.
func PackA(trans bool, m, k int, alpha float32, a []float32, lda int) *PackedA {
	p := &PackedA{M: m, K: k, data: make([]float32, roundUp(max(m, 0), MR)*max(k, 0))}
	for i := 0; i < m; i += MR {
		packAPanel(trans, a, lda, i, min(MR, m-i), 0, k, alpha, p.data[i*k:(i+MR)*k])
	}
	return p
}

// PackB packs op(B) (k×n; B is n×k with leading dimension ldb when trans).
func PackB(trans bool, k, n int, b []float32, ldb int) *PackedB {
	p := &PackedB{K: k, N: n, data: make([]float32, roundUp(max(n, 0), NR)*max(k, 0))}
	for j := 0; j < n; j += NR {
		packBPanel(trans, b, ldb, 0, k, j, min(NR, n-j), p.data[j*k:(j+NR)*k])
	}
	return p
}

// packAPanel writes rows [i0, i0+rows) × depth [p0, p0+kb) of op(A)·alpha
// as one k-major panel of MR rows (dst[p·MR + r]), zero-filling rows ≥ rows.
func packAPanel(trans bool, a []float32, lda, i0, rows, p0, kb int, alpha float32, dst []float32) {
	dst = dst[:kb*MR]
	if trans {
		for p := 0; p < kb; p++ {
			src := a[(p0+p)*lda+i0:]
			d := dst[p*MR : p*MR+MR : p*MR+MR]
			if rows == MR {
				src = src[:MR:MR]
				d[0], d[1], d[2], d[3] = alpha*src[0], alpha*src[1], alpha*src[2], alpha*src[3]
				continue
			}
			for r := 0; r < MR; r++ {
				if r < rows {
					d[r] = alpha * src[r]
				} else {
					d[r] = 0
				}
			}
		}
		return
	}
	if rows == MR && vecPackA {
		// The extents of the four rows, checked.
		_, _ = a[i0*lda+p0:(i0+MR-1)*lda+p0+kb], dst[:kb*MR]
		if kb > 0 {
			packA4(unsafe.Pointer(&dst[0]), unsafe.Pointer(&a[i0*lda+p0]), uintptr(lda)*4, kb, uint64(math.Float32bits(alpha)))
		}
		return
	}
	if rows == MR {
		s0 := a[i0*lda+p0 : i0*lda+p0+kb]
		s1 := a[(i0+1)*lda+p0 : (i0+1)*lda+p0+kb]
		s2 := a[(i0+2)*lda+p0 : (i0+2)*lda+p0+kb]
		s3 := a[(i0+3)*lda+p0 : (i0+3)*lda+p0+kb]
		for p := range s0 {
			d := dst[p*MR : p*MR+MR : p*MR+MR]
			d[0], d[1], d[2], d[3] = alpha*s0[p], alpha*s1[p], alpha*s2[p], alpha*s3[p]
		}
		return
	}
	for r := 0; r < MR; r++ {
		if r >= rows {
			for p := 0; p < kb; p++ {
				dst[p*MR+r] = 0
			}
			continue
		}
		src := a[(i0+r)*lda+p0 : (i0+r)*lda+p0+kb]
		for p, v := range src {
			dst[p*MR+r] = alpha * v
		}
	}
}

// packBPanel writes depth [p0, p0+kb) × columns [j0, j0+cols) of op(B) as
// one k-major panel of NR columns (dst[p·NR + c]), zero-filling columns ≥ cols.
func packBPanel(trans bool, b []float32, ldb, p0, kb, j0, cols int, dst []float32) {
	dst = dst[:kb*NR]
	if !trans {
		if cols == NR {
			for p := 0; p < kb; p++ {
				o := (p0+p)*ldb + j0
				copy8((*[NR]float32)(dst[p*NR:p*NR+NR]), (*[NR]float32)(b[o:o+NR]))
			}
			return
		}
		for p := 0; p < kb; p++ {
			d := dst[p*NR : p*NR+NR : p*NR+NR]
			src := b[(p0+p)*ldb+j0:]
			copy(d, src[:cols])
			clear(d[cols:])
		}
		return
	}
	for c := 0; c < NR; c++ {
		if c >= cols {
			for p := 0; p < kb; p++ {
				dst[p*NR+c] = 0
			}
			continue
		}
		src := b[(j0+c)*ldb+p0 : (j0+c)*ldb+p0+kb]
		for p, v := range src {
			dst[p*NR+c] = v
		}
	}
}

// aOperand is the left operand of sgemm: a pre-packed matrix, or op(A)·alpha
// packed block by block into scratch. block returns, for rows [i0, i0+mb)
// (i0 a multiple of MR) and depth [p0, p0+kb), a slice whose panel q (rows
// i0+q·MR...) starts at q·stride and is laid out as in PackedA.
type aOperand struct {
	packed *PackedA
	trans  bool
	a      []float32
	lda    int
	alpha  float32
}

func (o *aOperand) block(i0, mb, p0, kb int, scratch []float32) (data []float32, stride int) {
	if p := o.packed; p != nil {
		return p.data[i0*p.K+p0*MR:], MR * p.K
	}
	for i := 0; i < mb; i += MR {
		packAPanel(o.trans, o.a, o.lda, i0+i, min(MR, mb-i), p0, kb, o.alpha, scratch[i*kb:(i+MR)*kb])
	}
	return scratch, MR * kb
}

// bOperand is the right operand of sgemm: a pre-packed matrix, an im2col
// matrix packed on the fly, or op(B) packed block by block. block returns,
// for depth [p0, p0+kb) and columns [j0, j0+nb) (j0 a multiple of NR), a
// slice whose panel q starts at q·stride and is laid out as in PackedB.
type bOperand struct {
	packed *PackedB
	im2col *im2colB
	nbits  *NBits // a block-quantized weight, dequantized panel by panel
	trans  bool
	b      []float32
	ldb    int
}

func (o *bOperand) block(p0, kb, j0, nb int, scratch []float32) (data []float32, stride int) {
	if p := o.packed; p != nil {
		return p.data[j0*p.K+p0*NR:], NR * p.K
	}
	if o.im2col != nil {
		return o.im2col.block(p0, kb, j0, nb, scratch)
	}
	if o.nbits != nil {
		for j := 0; j < nb; j += NR {
			o.nbits.PackBPanel(p0, kb, j0+j, min(NR, nb-j), scratch[j*kb:(j+NR)*kb])
		}
		return scratch, NR * kb
	}
	for j := 0; j < nb; j += NR {
		packBPanel(o.trans, o.b, o.ldb, p0, kb, j0+j, min(NR, nb-j), scratch[j*kb:(j+NR)*kb])
	}
	return scratch, NR * kb
}

// sgemmScratch holds the per-call packing buffers; it comes from a pool so
// concurrent runs of one session each get their own.
type sgemmScratch struct{ a, b, col []float32 }

var sgemmPool = sync.Pool{New: func() any { return new(sgemmScratch) }}

func (s *sgemmScratch) bufs(na, nb int) ([]float32, []float32) {
	if cap(s.a) < na {
		s.a = make([]float32, na)
	}
	if cap(s.b) < nb {
		s.b = make([]float32, nb)
	}
	return s.a[:na], s.b[:nb]
}

// storeTiles stores (or, with acc, adds) the first cols columns of rows rows
// of t (rows ldt apart: tiles computed aside, at C's edges) into c (leading
// dimension ldc).
func storeTiles(c []float32, ldc int, t []float32, ldt, rows, cols int, acc bool) {
	for i := 0; i < rows; i++ {
		row, ti := c[i*ldc:i*ldc+cols], t[i*ldt:i*ldt+cols]
		if !acc {
			copy(row, ti)
			continue
		}
		for j := range row {
			row[j] += ti[j]
		}
	}
}

// column returns n floats of scratch for a column of tiles.
func (s *sgemmScratch) column(n int) []float32 {
	if cap(s.col) < n {
		s.col = make([]float32, n)
	}
	return s.col[:n]
}

// Sgemm computes C = alpha·op(A)·op(B) + beta·C for row-major float32
// matrices, where op(A) is m×k (A is k×m with leading dimension lda when
// transA) and op(B) is k×n. When beta is 0, C is overwritten without being
// read, so it may hold garbage (NaN) on entry, as in BLAS.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	SgemmEpi(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nil)
}

// SgemmEpi is Sgemm followed by the epilogue ep (nil for none), applied to
// each block of C as it is completed.
func SgemmEpi(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, ep *Epilogue) {
	sgemm(m, n, k, &aOperand{trans: transA, a: a, lda: lda, alpha: alpha}, &bOperand{trans: transB, b: b, ldb: ldb}, beta, c, ldc, ep)
}

// SgemmPackedA is SgemmEpi with a pre-packed left operand (its alpha
// applied at packing).
func SgemmPackedA(pa *PackedA, transB bool, n int, b []float32, ldb int, beta float32, c []float32, ldc int, ep *Epilogue) {
	sgemm(pa.M, n, pa.K, &aOperand{packed: pa}, &bOperand{trans: transB, b: b, ldb: ldb}, beta, c, ldc, ep)
}

// SgemmPackedB is SgemmEpi with a pre-packed right operand.
func SgemmPackedB(transA bool, m int, alpha float32, a []float32, lda int, pb *PackedB, beta float32, c []float32, ldc int, ep *Epilogue) {
	if m <= smallM { // a few rows: stream B once (gemv.go)
		sgemmSmallM(transA, m, alpha, a, lda, pb, beta, c, ldc, ep)
		return
	}
	sgemm(m, pb.N, pb.K, &aOperand{trans: transA, a: a, lda: lda, alpha: alpha}, &bOperand{packed: pb}, beta, c, ldc, ep)
}

// sgemmNBits computes C = A·B + beta·C with A m×k (leading dimension lda)
// and B the block-quantized k×n weight q, dequantized one panel at a time
// as the GEMM packs it (a concrete type, not an interface: escape analysis
// would otherwise move every operand of sgemm, im2col's included, to the
// heap).
func sgemmNBits(m int, a []float32, lda int, q *NBits, beta float32, c []float32, ldc int, ep *Epilogue) {
	sgemm(m, q.N, q.K, &aOperand{a: a, lda: lda, alpha: 1}, &bOperand{nbits: q}, beta, c, ldc, ep)
}

// sgemm computes C = A·B + beta·C (A m×k, B k×n), then applies the
// epilogue ep (nil for none) to C.
func sgemm(m, n, k int, A *aOperand, B *bOperand, beta float32, c []float32, ldc int, ep *Epilogue) {
	if m <= 0 || n <= 0 {
		return
	}
	if beta != 0 && beta != 1 {
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			for j := range row {
				row[j] *= beta
			}
		}
		beta = 1
	}
	if !ep.active() {
		ep = nil
	}
	if k <= 0 {
		if beta == 0 {
			for i := 0; i < m; i++ {
				clear(c[i*ldc : i*ldc+n])
			}
		}
		if ep != nil {
			ep.apply(c, ldc, 0, m, 0, n)
		}
		return
	}
	_ = c[(m-1)*ldc+n-1]
	s := sgemmPool.Get().(*sgemmScratch)
	defer sgemmPool.Put(s)
	kcMax := min(k, sgemmKC)
	sa, sb := s.bufs(kcMax*min(roundUp(m, MR), sgemmMC), kcMax*min(roundUp(n, NR), sgemmNC))
	var tile [MR * NR]float32
	fused := ep.fusable()
	// A plain B read in place (see directB), whatever the rows of A: the
	// column sweep reads a strided panel as fast as a packed one.
	direct := directB && B.packed == nil && B.im2col == nil && B.nbits == nil && !B.trans
	for jc := 0; jc < n; jc += sgemmNC {
		nb := min(sgemmNC, n-jc)
		for pc := 0; pc < k; pc += sgemmKC {
			kb := min(sgemmKC, k-pc)
			acc := pc > 0 || beta != 0
			last := pc+kb >= k
			var bd []float32
			var bs int
			if !direct {
				bd, bs = B.block(pc, kb, jc, nb, sb)
			} else if r := nb % NR; r != 0 {
				packBPanel(false, B.b, B.ldb, pc, kb, jc+nb-r, r, sb[:kb*NR])
			}
			for ic := 0; ic < m; ic += sgemmMC {
				mb := min(sgemmMC, m-ic)
				ad, as := A.block(ic, mb, pc, kb, sa)
				// The last two or three rows of the block, across its full
				// column panels, are swept as one row of tiles after them.
				rowEdge := mb%MR >= 2 && nb >= NR
				for jr := 0; jr < nb; jr += NR {
					nn := min(NR, nb-jr)
					var bp []float32
					ldb := NR
					switch {
					case !direct:
						bp = bd[(jr/NR)*bs : (jr/NR)*bs+kb*NR]
					case nn == NR:
						o := pc*B.ldb + jc + jr
						bp, ldb = B.b[o:o+(kb-1)*B.ldb+NR], B.ldb
					default:
						bp = sb[:kb*NR]
					}
					ir := 0
					if nn == NR {
						var te *Epilogue
						if last && fused {
							te = ep
						}
						if nq := mb / MR; nq > 0 {
							co := ic*ldc + jc + jr
							kernelColumn(ad[:(nq-1)*as+kb*MR], as, bp, kb, ldb, c[co:co+(nq*MR-1)*ldc+NR], ldc, acc, te, ic, jc+jr, nq)
							ir = nq * MR
						}
						if rowEdge {
							continue
						}
					}
					if nq := (mb - ir) / MR; nn <= 2 && nq > 0 {
						// One or two columns of every full row panel at once
						// (kernelEdgeColumn interleaves their sums), into a
						// column of tiles, then into C.
						t := s.column(nq * MR * NR)
						kernelEdgeColumn(ad[(ir/MR)*as:(ir/MR+nq-1)*as+kb*MR], as, bp, kb, ldb, nn, nq, t)
						storeTiles(c[(ic+ir)*ldc+jc+jr:], ldc, t, NR, nq*MR, nn, acc)
						if last && fused {
							ep.apply(c, ldc, ic+ir, nq*MR, jc+jr, nn)
						}
						ir += nq * MR
					}
					for ; ir < mb; ir += MR {
						mm := min(MR, mb-ir)
						ap := ad[(ir/MR)*as : (ir/MR)*as+kb*MR]
						co := (ic+ir)*ldc + jc + jr
						if mm == 1 {
							kernel1x8(ap, bp, kb, ldb, tile[:NR])
						} else if nn <= 2 {
							kernel4xn(ap, bp, kb, ldb, nn, tile[:])
						} else {
							kernel4x8s(ap, bp, kb, ldb, tile[:], NR, false, nil, 0, 0)
						}
						storeTiles(c[co:], ldc, tile[:], NR, mm, nn, acc)
						if last && fused {
							ep.apply(c, ldc, ic+ir, mm, jc+jr, nn)
						}
					}
				}
				if rowEdge {
					ir, np := mb/MR*MR, nb/NR
					var bp []float32
					ldb, bstride := NR, NR
					if direct {
						o := pc*B.ldb + jc
						bp, ldb = B.b[o:o+(kb-1)*B.ldb+np*NR], B.ldb
					} else {
						bp, bstride = bd, bs
					}
					t := s.column(MR * np * NR)
					kernelRow(ad[(ir/MR)*as:(ir/MR)*as+kb*MR], bp, kb, ldb, bstride, np, t, np*NR)
					storeTiles(c[(ic+ir)*ldc+jc:], ldc, t, np*NR, mb-ir, np*NR, acc)
					if last && fused {
						ep.apply(c, ldc, ic+ir, mb-ir, jc, np*NR)
					}
				}
				if last && ep != nil && !fused {
					ep.apply(c, ldc, ic, mb, jc, nb)
				}
			}
		}
	}
}
