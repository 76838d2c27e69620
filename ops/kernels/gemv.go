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
