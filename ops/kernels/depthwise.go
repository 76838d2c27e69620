package kernels

// depthwise2D computes one output plane of a convolution whose group has a
// single input channel: y (Out) = x (In) correlated with the taps w (Kernel),
// no bias. Each output sums its valid taps in (kh, kw) order from zero, on
// every path, so results do not depend on where a pixel sits.
func depthwise2D(x, w, y []float32, g *ConvGeom) {
	H, W := g.In[0], g.In[1]
	OH, OW := g.Out[0], g.Out[1]
	KH, KW := g.Kernel[0], g.Kernel[1]
	sh, sw := g.Strides[0], g.Strides[1]
	dh, dw := g.Dilations[0], g.Dilations[1]
	ph, pw := g.PadsBegin[0], g.PadsBegin[1]
	if Pointwise(g) {
		// A per-channel scale: the plane is one long row.
		_ = x[len(y)-1]
		dwRowS1(y, x, []int{0}, w[:1], 0)
		return
	}
	// Output columns where every kw tap is inside the row.
	lo, _ := validRange(W, OW, sw, pw, 0)
	_, hi := validRange(W, OW, sw, pw, (KW-1)*dw)
	if hi < lo {
		hi = lo
	}
	// Tap (kh, kw) of output (oh, ow) reads x[rowBase(oh) + taps[kh·KW+kw]
	// + ow·sw]; offsets grow with kh and, within a kernel row, with kw.
	var tapBuf [32]int
	taps := tapBuf[:0]
	for kh := 0; kh < KH; kh++ {
		for kw := 0; kw < KW; kw++ {
			taps = append(taps, kh*dh*W+kw*dw-pw)
		}
	}
	// Output rows where every kh tap is inside the plane: with a 3×3 kernel
	// at unit stride their interiors run as one batch, weights in registers.
	rlo, _ := validRange(H, OH, sh, ph, 0)
	_, rhi := validRange(H, OH, sh, ph, (KH-1)*dh)
	batched := sw == 1 && KH*KW == 9 && rlo < rhi && lo < hi
	if batched {
		base0, stride := (rlo*sh-ph)*W, sh*W
		_ = x[base0+taps[0]+lo]
		_ = x[base0+(rhi-1-rlo)*stride+taps[8]+hi-1]
		_ = y[rlo*OW : rhi*OW]
		dwPlane9S1(y, x, (*[9]int)(taps), (*[9]float32)(w[:9]), rlo, rhi, lo, hi, OW, base0, stride)
	}
	for oh := 0; oh < OH; oh++ {
		yrow := y[oh*OW : (oh+1)*OW]
		ih0 := oh*sh - ph
		khLo, khHi := KH, 0
		for kh := 0; kh < KH; kh++ {
			if ih := ih0 + kh*dh; ih >= 0 && ih < H {
				khLo, khHi = min(khLo, kh), kh+1
			}
		}
		if khLo >= khHi {
			clear(yrow)
			continue
		}
		rowBase := ih0 * W
		border := func(ow int) {
			var acc float32
			for kh := khLo; kh < khHi; kh++ {
				row := x[rowBase+kh*dh*W : rowBase+(kh*dh+1)*W]
				for kw := 0; kw < KW; kw++ {
					if iw := ow*sw - pw + kw*dw; iw >= 0 && iw < W {
						acc += w[kh*KW+kw] * row[iw]
					}
				}
			}
			yrow[ow] = acc
		}
		for ow := 0; ow < min(lo, OW); ow++ {
			border(ow)
		}
		for ow := max(hi, lo); ow < OW; ow++ {
			border(ow)
		}
		if lo >= hi || batched && oh >= rlo && oh < rhi {
			continue
		}
		offs, wt := taps[khLo*KW:khHi*KW], w[khLo*KW:khHi*KW]
		// The row kernels load without bounds checks: check the lowest and
		// highest addresses they touch once.
		_ = x[rowBase+offs[0]+lo*sw]
		_ = x[rowBase+offs[len(offs)-1]+(hi-1)*sw]
		interior := yrow[lo:hi]
		switch {
		case sw == 1 && len(offs) == 9:
			dwRow9S1(interior, x, (*[9]int)(offs), (*[9]float32)(wt), rowBase+lo)
		case sw == 1:
			dwRowS1(interior, x, offs, wt, rowBase+lo)
		default:
			dwRow(interior, x, offs, wt, rowBase, lo, sw)
		}
	}
}

// dwRow computes y[i] = Σ_t wt[t]·x[base + offs[t] + (o0+i)·sw] for every i.
func dwRow(y, x []float32, offs []int, wt []float32, base, o0, sw int) {
	for i := range y {
		base := base + (o0+i)*sw
		var acc float32
		for t, off := range offs {
			acc += wt[t] * x[off+base]
		}
		y[i] = acc
	}
}
