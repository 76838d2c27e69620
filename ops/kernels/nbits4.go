package kernels

// One row of A times a 4-bit weight (MatMulNBits at M ≤ 2, the decoding of
// a token), the dot-product path of rowTimes for Bits 4 and BlockSize ≥ 32.
//
// Per column n and block b, Σ_k (code − zp)·x_k·scale is computed as
// scale·(Σ_k code·x_k − zp·Σ_k x_k): the block sums of x are taken once per
// row, so the inner loop has no zero point and no table, and zp may be of
// any kind. The inner loop reads the codes 32 at a time, as four 32-bit
// words (little-endian: word i holds elements 8i…8i+7 of the chunk, element
// 8i+j in bits 4j…4j+3). Nibble j of a word is taken by masking it in
// place, w & (15<<4j), whose integer value is code·16^j; x is copied once
// per row into xp, permuted so that the four words' nibble j meet
// x_{8i+j} in one vector, and scaled by 16^−j (exact, powers of two), so
// that (code·16^j)·(x·16^−j) is code·x. Nibble 7 is shifted down instead
// (w >> 28: the mask would reach the sign bit) and meets x unscaled. So
// decoding is one AND and one int→float conversion per code, the same in
// the SIMD128 kernel (nbits4_simd.go) and its scalar twin below, which
// accumulate in the same order: lane i of a block's accumulator sums
// nibbles j = 0…7 of word i, chunk after chunk; the block's sum times the
// scale goes into the column's four lane totals, summed (t0+t1)+(t2+t3)
// at the end. The two agree bit for bit (TestNBits4Twin).
//
// The scaling by 16^−j (at most 2^−24) makes x values below about 2^−102
// subnormal in xp and rounds them; such x contribute nothing measurable.

// nbits4Tab[p][v] holds the two nibbles of byte p of a word as the kernels
// decode them: (v&15)·16^(2p) and (v>>4)·16^(2p+1), the last (nibble 7)
// unscaled. The scalar twin looks them up, a load instead of a mask and a
// conversion; the values are the SIMD kernel's, so the products are too.
var nbits4Tab = func() (t [4][256][2]float32) {
	for p := range 4 {
		for v := range 256 {
			t[p][v][0] = float32(v&15) * float32(int32(1)<<(8*p))
			hi := float32(v >> 4)
			if p < 3 {
				hi *= float32(int32(1) << (8*p + 4))
			}
			t[p][v][1] = hi
		}
	}
	return
}()

// nbits4Min is the smallest block size rowTimes4 takes (one chunk).
const nbits4Min = 32

// permuteNBits4 writes into xp (KBlocks·BlockSize floats, a multiple of 32)
// the chunks of x permuted and scaled for the kernels, zeros past len(x).
func permuteNBits4(x, xp []float32) {
	for c := 0; c < len(xp); c += 32 {
		dst := xp[c : c+32 : c+32]
		for j := range 8 {
			s := float32(1)
			if j < 7 {
				s = 1 / float32(int32(1)<<(4*j))
			}
			for i := range 4 {
				k := c + 8*i + j
				v := float32(0)
				if k < len(x) {
					v = x[k] * s
				}
				dst[4*j+i] = v
			}
		}
	}
}

// rowTimes4 writes y = x·B (+ bias) for 4-bit B with BlockSize ≥ 32 and no
// g_idx.
func (q *NBits) rowTimes4(x, bias, y []float32) {
	bs, kb := q.BlockSize, q.KBlocks
	xp := make([]float32, kb*bs+kb)
	xsum := xp[kb*bs:]
	xp = xp[:kb*bs]
	permuteNBits4(x, xp)
	for b := range xsum {
		var s float64
		for _, v := range x[b*bs : min(b*bs+bs, len(x))] {
			s += float64(v)
		}
		xsum[b] = float32(s)
	}
	szp := q.scaledZeros()
	colBytes := kb * q.BlobSize
	var tot [4]float32
	n := 0
	for ; n+4 <= q.N; n += 4 {
		nbits4Cols4(xp, q.Data[n*colBytes:(n+4)*colBytes], colBytes, q.Scales[n*kb:(n+4)*kb], bs/32, &tot)
		z := szp[n*kb : (n+4)*kb]
		corr := dot4(xsum, z[:kb], z[kb:2*kb], z[2*kb:3*kb], z[3*kb:])
		for c := range 4 {
			v := tot[c] - corr[c]
			if bias != nil {
				v += bias[n+c]
			}
			y[n+c] = v
		}
	}
	for ; n < q.N; n++ {
		s := nbits4Col(xp, q.Data[n*colBytes:(n+1)*colBytes], q.Scales[n*kb:(n+1)*kb], bs/32)
		y[n] = finishCol(n, s, szp[n*kb:], xsum, bias)
	}
}

// scaledZeros returns scale·zp per column and block, computed once.
func (q *NBits) scaledZeros() []float32 {
	q.szpOnce.Do(func() {
		kb := q.KBlocks
		q.szp = make([]float32, len(q.Scales))
		for n := range q.N {
			for b := range kb {
				q.szp[n*kb+b] = q.Scales[n*kb+b] * q.zero(n, b)
			}
		}
	})
	return q.szp
}

// finishCol returns column n's sum s = Σ_b scale·Σ code·x less
// Σ_b scale·zp·xsum_b (szp the column's scale·zp), plus the bias.
func finishCol(n int, s float32, szp, xsum, bias []float32) float32 {
	var c0, c1 float32
	szp = szp[:len(xsum)]
	b := 0
	for ; b+1 < len(xsum); b += 2 {
		c0 += szp[b] * xsum[b]
		c1 += szp[b+1] * xsum[b+1]
	}
	if b < len(xsum) {
		c0 += szp[b] * xsum[b]
	}
	s -= c0 + c1
	if bias != nil {
		s += bias[n]
	}
	return s
}

// nbits4ColScalar returns Σ_b scale_b·Σ code·xp over one column's codes w
// (cpb chunks of 16 bytes per block, len(sc) blocks), in the order the
// file's comment gives.
func nbits4ColScalar(xp []float32, w []uint8, sc []float32, cpb int) float32 {
	var t0, t1, t2, t3 float32
	w = w[:len(sc)*cpb*16]
	xp = xp[:len(sc)*cpb*32]
	for b, s := range sc {
		var a0, a1, a2, a3 float32
		for ch := b * cpb; ch < (b+1)*cpb; ch++ {
			wb := w[ch*16 : ch*16+16 : ch*16+16]
			xc := xp[ch*32 : ch*32+32 : ch*32+32]
			a0 += nbits4Tab[0][wb[0]][0] * xc[0]
			a1 += nbits4Tab[0][wb[4]][0] * xc[1]
			a2 += nbits4Tab[0][wb[8]][0] * xc[2]
			a3 += nbits4Tab[0][wb[12]][0] * xc[3]
			a0 += nbits4Tab[0][wb[0]][1] * xc[4]
			a1 += nbits4Tab[0][wb[4]][1] * xc[5]
			a2 += nbits4Tab[0][wb[8]][1] * xc[6]
			a3 += nbits4Tab[0][wb[12]][1] * xc[7]
			a0 += nbits4Tab[1][wb[1]][0] * xc[8]
			a1 += nbits4Tab[1][wb[5]][0] * xc[9]
			a2 += nbits4Tab[1][wb[9]][0] * xc[10]
			a3 += nbits4Tab[1][wb[13]][0] * xc[11]
			a0 += nbits4Tab[1][wb[1]][1] * xc[12]
			a1 += nbits4Tab[1][wb[5]][1] * xc[13]
			a2 += nbits4Tab[1][wb[9]][1] * xc[14]
			a3 += nbits4Tab[1][wb[13]][1] * xc[15]
			a0 += nbits4Tab[2][wb[2]][0] * xc[16]
			a1 += nbits4Tab[2][wb[6]][0] * xc[17]
			a2 += nbits4Tab[2][wb[10]][0] * xc[18]
			a3 += nbits4Tab[2][wb[14]][0] * xc[19]
			a0 += nbits4Tab[2][wb[2]][1] * xc[20]
			a1 += nbits4Tab[2][wb[6]][1] * xc[21]
			a2 += nbits4Tab[2][wb[10]][1] * xc[22]
			a3 += nbits4Tab[2][wb[14]][1] * xc[23]
			a0 += nbits4Tab[3][wb[3]][0] * xc[24]
			a1 += nbits4Tab[3][wb[7]][0] * xc[25]
			a2 += nbits4Tab[3][wb[11]][0] * xc[26]
			a3 += nbits4Tab[3][wb[15]][0] * xc[27]
			a0 += nbits4Tab[3][wb[3]][1] * xc[28]
			a1 += nbits4Tab[3][wb[7]][1] * xc[29]
			a2 += nbits4Tab[3][wb[11]][1] * xc[30]
			a3 += nbits4Tab[3][wb[15]][1] * xc[31]
		}
		t0 += a0 * s
		t1 += a1 * s
		t2 += a2 * s
		t3 += a3 * s
	}
	return (t0 + t1) + (t2 + t3)
}

// nbits4Cols4Scalar is nbits4ColScalar for four adjacent columns (colBytes
// bytes of codes and len(sc)/4 scales each).
func nbits4Cols4Scalar(xp []float32, w []uint8, colBytes int, sc []float32, cpb int, out *[4]float32) {
	kb := len(sc) / 4
	for c := 0; c < 4; c += 2 {
		out[c], out[c+1] = nbits4Cols2Scalar(xp, w[c*colBytes:(c+1)*colBytes], w[(c+1)*colBytes:(c+2)*colBytes],
			sc[c*kb:(c+1)*kb], sc[(c+1)*kb:(c+2)*kb], cpb)
	}
}

// nbits4Cols2Scalar is nbits4ColScalar for two columns wA and wB (scales
// scA and scB) at once, each x read once for both: the same sums.
func nbits4Cols2Scalar(xp []float32, wA, wB []uint8, scA, scB []float32, cpb int) (float32, float32) {
	var t0, t1, t2, t3, u0, u1, u2, u3 float32
	kb := len(scA)
	wA, wB, scB = wA[:kb*cpb*16], wB[:kb*cpb*16], scB[:kb]
	xp = xp[:kb*cpb*32]
	for b, s := range scA {
		var a0, a1, a2, a3, b0, b1, b2, b3 float32
		for ch := b * cpb; ch < (b+1)*cpb; ch++ {
			wa := wA[ch*16 : ch*16+16 : ch*16+16]
			wb := wB[ch*16 : ch*16+16 : ch*16+16]
			xc := xp[ch*32 : ch*32+32 : ch*32+32]
			x00 := xc[0]
			a0 += nbits4Tab[0][wa[0]][0] * x00
			b0 += nbits4Tab[0][wb[0]][0] * x00
			x01 := xc[1]
			a1 += nbits4Tab[0][wa[4]][0] * x01
			b1 += nbits4Tab[0][wb[4]][0] * x01
			x02 := xc[2]
			a2 += nbits4Tab[0][wa[8]][0] * x02
			b2 += nbits4Tab[0][wb[8]][0] * x02
			x03 := xc[3]
			a3 += nbits4Tab[0][wa[12]][0] * x03
			b3 += nbits4Tab[0][wb[12]][0] * x03
			x10 := xc[4]
			a0 += nbits4Tab[0][wa[0]][1] * x10
			b0 += nbits4Tab[0][wb[0]][1] * x10
			x11 := xc[5]
			a1 += nbits4Tab[0][wa[4]][1] * x11
			b1 += nbits4Tab[0][wb[4]][1] * x11
			x12 := xc[6]
			a2 += nbits4Tab[0][wa[8]][1] * x12
			b2 += nbits4Tab[0][wb[8]][1] * x12
			x13 := xc[7]
			a3 += nbits4Tab[0][wa[12]][1] * x13
			b3 += nbits4Tab[0][wb[12]][1] * x13
			x20 := xc[8]
			a0 += nbits4Tab[1][wa[1]][0] * x20
			b0 += nbits4Tab[1][wb[1]][0] * x20
			x21 := xc[9]
			a1 += nbits4Tab[1][wa[5]][0] * x21
			b1 += nbits4Tab[1][wb[5]][0] * x21
			x22 := xc[10]
			a2 += nbits4Tab[1][wa[9]][0] * x22
			b2 += nbits4Tab[1][wb[9]][0] * x22
			x23 := xc[11]
			a3 += nbits4Tab[1][wa[13]][0] * x23
			b3 += nbits4Tab[1][wb[13]][0] * x23
			x30 := xc[12]
			a0 += nbits4Tab[1][wa[1]][1] * x30
			b0 += nbits4Tab[1][wb[1]][1] * x30
			x31 := xc[13]
			a1 += nbits4Tab[1][wa[5]][1] * x31
			b1 += nbits4Tab[1][wb[5]][1] * x31
			x32 := xc[14]
			a2 += nbits4Tab[1][wa[9]][1] * x32
			b2 += nbits4Tab[1][wb[9]][1] * x32
			x33 := xc[15]
			a3 += nbits4Tab[1][wa[13]][1] * x33
			b3 += nbits4Tab[1][wb[13]][1] * x33
			x40 := xc[16]
			a0 += nbits4Tab[2][wa[2]][0] * x40
			b0 += nbits4Tab[2][wb[2]][0] * x40
			x41 := xc[17]
			a1 += nbits4Tab[2][wa[6]][0] * x41
			b1 += nbits4Tab[2][wb[6]][0] * x41
			x42 := xc[18]
			a2 += nbits4Tab[2][wa[10]][0] * x42
			b2 += nbits4Tab[2][wb[10]][0] * x42
			x43 := xc[19]
			a3 += nbits4Tab[2][wa[14]][0] * x43
			b3 += nbits4Tab[2][wb[14]][0] * x43
			x50 := xc[20]
			a0 += nbits4Tab[2][wa[2]][1] * x50
			b0 += nbits4Tab[2][wb[2]][1] * x50
			x51 := xc[21]
			a1 += nbits4Tab[2][wa[6]][1] * x51
			b1 += nbits4Tab[2][wb[6]][1] * x51
			x52 := xc[22]
			a2 += nbits4Tab[2][wa[10]][1] * x52
			b2 += nbits4Tab[2][wb[10]][1] * x52
			x53 := xc[23]
			a3 += nbits4Tab[2][wa[14]][1] * x53
			b3 += nbits4Tab[2][wb[14]][1] * x53
			x60 := xc[24]
			a0 += nbits4Tab[3][wa[3]][0] * x60
			b0 += nbits4Tab[3][wb[3]][0] * x60
			x61 := xc[25]
			a1 += nbits4Tab[3][wa[7]][0] * x61
			b1 += nbits4Tab[3][wb[7]][0] * x61
			x62 := xc[26]
			a2 += nbits4Tab[3][wa[11]][0] * x62
			b2 += nbits4Tab[3][wb[11]][0] * x62
			x63 := xc[27]
			a3 += nbits4Tab[3][wa[15]][0] * x63
			b3 += nbits4Tab[3][wb[15]][0] * x63
			x70 := xc[28]
			a0 += nbits4Tab[3][wa[3]][1] * x70
			b0 += nbits4Tab[3][wb[3]][1] * x70
			x71 := xc[29]
			a1 += nbits4Tab[3][wa[7]][1] * x71
			b1 += nbits4Tab[3][wb[7]][1] * x71
			x72 := xc[30]
			a2 += nbits4Tab[3][wa[11]][1] * x72
			b2 += nbits4Tab[3][wb[11]][1] * x72
			x73 := xc[31]
			a3 += nbits4Tab[3][wa[15]][1] * x73
			b3 += nbits4Tab[3][wb[15]][1] * x73
		}
		t0 += a0 * s
		t1 += a1 * s
		t2 += a2 * s
		t3 += a3 * s
		sb := scB[b]
		u0 += b0 * sb
		u1 += b1 * sb
		u2 += b2 * sb
		u3 += b3 * sb
	}
	return (t0 + t1) + (t2 + t3), (u0 + u1) + (u2 + u3)
}
