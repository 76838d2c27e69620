package kernels

// Products with a pre-packed B and few rows of A: a fully connected layer at
// batch 1 (AlexNet's 9216→4096 Gemm) or a MatMul over a handful of tokens.
// Such a product does 2 flops per weight loaded, so it is bound by reading
// B, and the blocked driver's kc×NC blocking (built for reuse of B across
// many rows of A) only gets in the way: it visits each NR-column panel in
// kc-deep pieces, jumping between panels, and adds partial tiles into C once
// per piece. PackedB already stores each panel contiguously over the full
// depth, so here every panel is read once, front to back, and its NR sums
// are finished in registers before they are written.

// smallM is the largest m taken by sgemmSmallM: one MR-row panel of A.
const smallM = MR

// sgemmSmallM computes C = alpha·op(A)·B + beta·C for m ≤ smallM, then
// applies ep, reading the packed B once. beta is 0 (C is not read) or any
// other value (C is scaled by it), as in sgemm.
func sgemmSmallM(transA bool, m int, alpha float32, a []float32, lda int, pb *PackedB, beta float32, c []float32, ldc int, ep *Epilogue) {
	n, k := pb.N, pb.K
	if m <= 0 || n <= 0 {
		return
	}
	if k <= 0 {
		// Nothing to stream: the general driver handles the degenerate case.
		sgemm(m, n, k, &aOperand{trans: transA, a: a, lda: lda, alpha: alpha}, &bOperand{packed: pb}, beta, c, ldc, ep)
		return
	}
	_ = c[(m-1)*ldc+n-1]
	s := sgemmPool.Get().(*sgemmScratch)
	defer sgemmPool.Put(s)
	var tile [MR * NR]float32
	var sa []float32
	if m == 1 {
		// x = alpha·op(A), contiguous, so the kernel walks it with the panel.
		sa, _ = s.bufs(k, 0)
		for p := range sa {
			if transA {
				sa[p] = alpha * a[p*lda]
			} else {
				sa[p] = alpha * a[p]
			}
		}
	} else {
		sa, _ = s.bufs(MR*k, 0)
		packAPanel(transA, a, lda, 0, m, 0, k, alpha, sa)
	}
	for j := 0; j < n; j += NR {
		nn := min(NR, n-j)
		bp := pb.data[j*k : j*k+NR*k]
		if m == 1 {
			gemvPanel(sa, bp, tile[:NR])
		} else {
			kernel4x8(sa, bp, k, tile[:], NR, false)
		}
		for i := 0; i < m; i++ {
			row := c[i*ldc+j : i*ldc+j+nn]
			t := tile[i*NR : i*NR+nn]
			if beta == 0 {
				copy(row, t)
				continue
			}
			for q := range row {
				row[q] = beta*row[q] + t[q]
			}
		}
	}
	if ep.active() {
		ep.apply(c, ldc, 0, m, 0, n)
	}
}

// gemvPanelScalar stores into y[:NR] the product of x (length k) with the
// k×NR packed panel b. It is the reference for gemvPanel's order of
// summation: even and odd depths in separate sums, added at the end.
func gemvPanelScalar(x, b, y []float32) {
	k := len(x)
	b = b[:NR*k]
	var e, o [NR]float32
	p := 0
	for ; p+2 <= k; p += 2 {
		x0, x1 := x[p], x[p+1]
		r0, r1 := b[p*NR:p*NR+NR], b[p*NR+NR:p*NR+2*NR]
		for c := range e {
			e[c] += x0 * r0[c]
			o[c] += x1 * r1[c]
		}
	}
	if p < k {
		x0, r0 := x[p], b[p*NR:p*NR+NR]
		for c := range e {
			e[c] += x0 * r0[c]
		}
	}
	y = y[:NR]
	for c := range y {
		y[c] = e[c] + o[c]
	}
}

// Products with few rows of A and a B read where it lies: a constant B
// (a fully connected layer's weights) that is never packed, so that the
// session holds those weights once, as the model stores them (read in place
// from the file's bytes), instead of adding a packed copy of the same size.
// At batch 1 the product is bound by reading B, and reading it unpacked
// costs nothing: each pass streams contiguous rows of B.
//
//   - transB (B is n×k, ONNX Gemm's usual layout): each output is the dot
//     product of a row of A with a row of B; dot4 takes four rows of B at a
//     time against one row of A, SIMD over k.
//   - !transB (B is k×n, MatMul's layout): each row of C gathers
//     Σ_p a[p]·B[p,:]; axpy8 adds eight rows of B at a time, SIMD over n.
//     Columns are taken gemvNB at a time so that the rows of C being summed
//     and the eight rows of B stay in L1 while every row of A visits them.

// GemvMaxM is the largest m for which SgemvB is used on a constant B
// instead of packing it. Measured in the WebAssembly SIMD build on
// AlexNet's fc6 (k 9216, n 4096, BenchmarkGemvUnpacked, quiet machine,
// medians of 5): packed 6.35 ms; in place with B n×k 7.05 ms (+11 %), B
// k×n 8.35 ms (+31 %), both bound by memory. At m = 4 each row of A
// re-reads B from L2 and the product takes about twice the packed one
// (which loads each B value once for MR rows), so only batch 1 reads in
// place: it trades that much of the layer's time for not holding a packed
// copy of the weights (half the load peak of an FC-heavy model).
const GemvMaxM = 1

// gemvNB is the column block of the !transB form.
const gemvNB = 1024

// SgemvB computes C = alpha·op(A)·op(B) + beta·C for few rows of op(A)
// (m×k), op(B) k×n (B is n×k with leading dimension ldb when transB), then
// applies ep. B is read in place, never packed or copied. beta is 0
// (C is not read, it may hold NaN) or any other value, as in Sgemm. Larger
// m is correct but slower than a packed product (GemvMaxM).
func SgemvB(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, ep *Epilogue) {
	if m <= 0 || n <= 0 {
		return
	}
	_ = c[(m-1)*ldc+n-1]
	if k > 0 {
		if transB {
			_ = b[(n-1)*ldb+k-1]
		} else {
			_ = b[(k-1)*ldb+n-1]
		}
	}
	s := sgemmPool.Get().(*sgemmScratch)
	defer sgemmPool.Put(s)
	// x holds alpha·op(A), row by row, contiguous.
	x, _ := s.bufs(m*k, 0)
	for i := 0; i < m; i++ {
		xi := x[i*k : i*k+k]
		if transA {
			for p := range xi {
				xi[p] = alpha * a[p*lda+i]
			}
		} else {
			for p, v := range a[i*lda : i*lda+k] {
				xi[p] = alpha * v
			}
		}
	}
	if transB {
		gemvNK(m, n, k, x, b, ldb, beta, c, ldc)
	} else {
		gemvKN(m, n, k, x, b, ldb, beta, c, ldc)
	}
	if ep.active() {
		ep.apply(c, ldc, 0, m, 0, n)
	}
}

// gemvNK is SgemvB for B n×k: C[i,j] = x_i·B[j,:] + beta·C[i,j].
func gemvNK(m, n, k int, x, b []float32, ldb int, beta float32, c []float32, ldc int) {
	for j := 0; j < n; j += 4 {
		// Past the last row of B, repeat it (its sums are not stored).
		var rows [4][]float32
		for r := range rows {
			jr := min(j+r, n-1)
			rows[r] = b[jr*ldb : jr*ldb+k]
		}
		nn := min(4, n-j)
		for i := 0; i < m; i++ {
			s := dot4(x[i*k:i*k+k], rows[0], rows[1], rows[2], rows[3])
			out := c[i*ldc+j : i*ldc+j+nn]
			for q := range out {
				if beta == 0 {
					out[q] = s[q]
				} else {
					out[q] = s[q] + beta*out[q]
				}
			}
		}
	}
}

// gemvKN is SgemvB for B k×n: C[i,:] = Σ_p x_i[p]·B[p,:] + beta·C[i,:].
func gemvKN(m, n, k int, x, b []float32, ldb int, beta float32, c []float32, ldc int) {
	for j0 := 0; j0 < n; j0 += gemvNB {
		nb := min(gemvNB, n-j0)
		for i := 0; i < m; i++ {
			y := c[i*ldc+j0 : i*ldc+j0+nb]
			if beta == 0 {
				clear(y)
			} else if beta != 1 {
				for q := range y {
					y[q] *= beta
				}
			}
		}
		row := func(p int) []float32 { return b[p*ldb+j0 : p*ldb+j0+nb] }
		p := 0
		for ; p+8 <= k; p += 8 {
			bs := [8][]float32{row(p), row(p + 1), row(p + 2), row(p + 3), row(p + 4), row(p + 5), row(p + 6), row(p + 7)}
			for i := 0; i < m; i++ {
				axpy8(c[i*ldc+j0:i*ldc+j0+nb], &bs, (*[8]float32)(x[i*k+p:i*k+p+8]))
			}
		}
		for ; p < k; p++ {
			b0 := row(p)
			for i := 0; i < m; i++ {
				axpy1(c[i*ldc+j0:i*ldc+j0+nb], b0, x[i*k+p])
			}
		}
	}
}

// dot4Scalar returns the dot products of x with b0…b3 (each at least
// len(x) long). It is the reference for dot4's order of summation: eight
// lanes, lane l < 4 summing the depths p ≡ l (mod 8) and lane 4+l the
// depths p ≡ 4+l (mod 8) below len(x)&^3, lane 4+l added into lane l, the
// four added as (l0+l1)+(l2+l3), then the last len(x)%4 depths in order.
func dot4Scalar(x, b0, b1, b2, b3 []float32) [4]float32 {
	k := len(x)
	rows := [4][]float32{b0[:k], b1[:k], b2[:k], b3[:k]}
	var s [4]float32
	for r, br := range rows {
		var l, h [4]float32
		p := 0
		for ; p+8 <= k; p += 8 {
			for q := range l {
				l[q] += x[p+q] * br[p+q]
				h[q] += x[p+4+q] * br[p+4+q]
			}
		}
		if p+4 <= k {
			for q := range l {
				l[q] += x[p+q] * br[p+q]
			}
			p += 4
		}
		for q := range l {
			l[q] += h[q]
		}
		t := (l[0] + l[1]) + (l[2] + l[3])
		for ; p < k; p++ {
			t += x[p] * br[p]
		}
		s[r] = t
	}
	return s
}

// axpy1Scalar adds x0·b0 to y: the reference for axpy1.
func axpy1Scalar(y, b0 []float32, x0 float32) {
	b0 = b0[:len(y)]
	for j := range y {
		y[j] += x0 * b0[j]
	}
}

// axpy8Scalar adds Σ_r xs[r]·bs[r] to y (each bs[r] at least len(y) long),
// as y[j] + (((x0·b0 + x1·b1) + (x2·b2 + x3·b3)) + ((x4·b4 + x5·b5) +
// (x6·b6 + x7·b7))): the reference for axpy8.
func axpy8Scalar(y []float32, bs *[8][]float32, xs *[8]float32) {
	n := len(y)
	b0, b1, b2, b3 := bs[0][:n], bs[1][:n], bs[2][:n], bs[3][:n]
	b4, b5, b6, b7 := bs[4][:n], bs[5][:n], bs[6][:n], bs[7][:n]
	x0, x1, x2, x3, x4, x5, x6, x7 := xs[0], xs[1], xs[2], xs[3], xs[4], xs[5], xs[6], xs[7]
	for j := range y {
		y[j] += ((x0*b0[j] + x1*b1[j]) + (x2*b2[j] + x3*b3[j])) + ((x4*b4[j] + x5*b5[j]) + (x6*b6[j] + x7*b7[j]))
	}
}
