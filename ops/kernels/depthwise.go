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
	// Output columns where every kw tap is inside the row.
	lo, _ := validRange(W, OW, sw, pw, 0)
	_, hi := validRange(W, OW, sw, pw, (KW-1)*dw)
	if hi < lo {
		hi = lo
	}
	var offBuf [32]int
	var wBuf [32]float32
	offs, wt := offBuf[:0], wBuf[:0]
	for oh := 0; oh < OH; oh++ {
		yrow := y[oh*OW : (oh+1)*OW]
		// The taps of this row: valid kh × every kw, as offsets into x of
		// output column 0 (which may be negative: only the interior
		// columns use them).
		offs, wt = offs[:0], wt[:0]
		for kh := 0; kh < KH; kh++ {
			ih := oh*sh - ph + kh*dh
			if ih < 0 || ih >= H {
				continue
			}
			for kw := 0; kw < KW; kw++ {
				offs = append(offs, ih*W+kw*dw-pw)
				wt = append(wt, w[kh*KW+kw])
			}
		}
		if len(offs) == 0 {
			clear(yrow)
			continue
		}
		// Borders: tap by tap with the column checks.
		for ow := 0; ow < OW; ow++ {
			if ow == lo && lo < hi {
				ow = hi - 1
				continue
			}
			var acc float32
			for t, off := range offs {
				kw := t % KW
				c := ow*sw - pw + kw*dw
				if c < 0 || c >= W {
					continue
				}
				acc += wt[t] * x[off+ow*sw]
			}
			yrow[ow] = acc
		}
		if lo < hi {
			if sw == 1 {
				dwRowS1(yrow[lo:hi], x, offs, wt, lo)
			} else {
				dwRow(yrow[lo:hi], x, offs, wt, lo, sw)
			}
		}
	}
}

// dwRow computes y[i] = Σ_t wt[t]·x[offs[t] + (o0+i)·sw] for every i.
func dwRow(y, x []float32, offs []int, wt []float32, o0, sw int) {
	for i := range y {
		base := (o0 + i) * sw
		var acc float32
		for t, off := range offs {
			acc += wt[t] * x[off+base]
		}
		y[i] = acc
	}
}
