package kernels

import "math"

// 2-D float32 pooling over one plane, with the semantics of the generic N-D
// loop in ops/nn (which remains for other ranks, dtypes and MaxPool's
// Indices output) but without its per-tap index arithmetic.

// poolTaps returns, for output coordinate o along one dim, the range of
// kernel taps [lo, hi) that land inside the input (in) and the number of
// taps inside the input plus its explicit padding (padBegin, padEnd).
func poolTaps(o, in, s, d, k, padBegin, padEnd int) (lo, hi, withPad int) {
	start := o*s - padBegin
	lo, hi = k, 0
	for t := 0; t < k; t++ {
		c := start + t*d
		if c >= 0 && c < in {
			lo, hi = min(lo, t), t+1
		}
		if c >= -padBegin && c < in+padEnd {
			withPad++
		}
	}
	if lo > hi {
		lo = hi
	}
	return lo, hi, withPad
}

// MaxPool2D computes one plane of MaxPool: each output is the first valid
// tap of its window (in kh, kw order), replaced by every later tap greater
// than it, so a NaN propagates only from a window's first tap, as in the
// generic loop; a window with no valid tap gives -Inf.
func MaxPool2D(x, y []float32, g *ConvGeom) {
	H, W := g.In[0], g.In[1]
	OH, OW := g.Out[0], g.Out[1]
	KH, KW := g.Kernel[0], g.Kernel[1]
	sh, sw := g.Strides[0], g.Strides[1]
	dh, dw := g.Dilations[0], g.Dilations[1]
	ph, pw := g.PadsBegin[0], g.PadsBegin[1]
	// Output columns whose window lies inside the row.
	lo, _ := validRange(W, OW, sw, pw, 0)
	_, hi := validRange(W, OW, sw, pw, (KW-1)*dw)
	if hi < lo {
		hi = lo
	}
	for oh := 0; oh < OH; oh++ {
		khLo, khHi, _ := poolTaps(oh, H, sh, dh, KH, ph, 0)
		yrow := y[oh*OW : (oh+1)*OW]
		if khLo >= khHi {
			for i := range yrow {
				yrow[i] = float32(math.Inf(-1))
			}
			continue
		}
		ih0 := oh*sh - ph
		for ow := 0; ow < OW; ow++ {
			iw0 := ow*sw - pw
			if ow >= lo && ow < hi {
				// Interior: every kw tap is valid.
				best := x[(ih0+khLo*dh)*W+iw0]
				for kh := khLo; kh < khHi; kh++ {
					row := x[(ih0+kh*dh)*W+iw0:]
					kw := 0
					if kh == khLo {
						kw = 1
					}
					for ; kw < KW; kw++ {
						if v := row[kw*dw]; v > best {
							best = v
						}
					}
				}
				yrow[ow] = best
				continue
			}
			best, any := float32(math.Inf(-1)), false
			for kh := khLo; kh < khHi; kh++ {
				row := x[(ih0+kh*dh)*W:]
				for kw := 0; kw < KW; kw++ {
					iw := iw0 + kw*dw
					if iw < 0 || iw >= W {
						continue
					}
					if v := row[iw]; !any || v > best {
						best, any = v, true
					}
				}
			}
			yrow[ow] = best
		}
	}
}

// AvgPool2D computes one plane of AveragePool: the float64 sum of the valid
// taps (in kh, kw order) divided by their count, or with includePad by the
// number of taps inside the input and its explicit padding (padsEnd); a
// window with nothing to count gives 0.
func AvgPool2D(x, y []float32, g *ConvGeom, padsEnd []int, includePad bool) {
	H, W := g.In[0], g.In[1]
	OH, OW := g.Out[0], g.Out[1]
	KH, KW := g.Kernel[0], g.Kernel[1]
	sh, sw := g.Strides[0], g.Strides[1]
	dh, dw := g.Dilations[0], g.Dilations[1]
	ph, pw := g.PadsBegin[0], g.PadsBegin[1]
	type span struct{ lo, hi, withPad int }
	cols := make([]span, OW)
	for ow := range cols {
		l, h, p := poolTaps(ow, W, sw, dw, KW, pw, padsEnd[1])
		cols[ow] = span{l, h, p}
	}
	for oh := 0; oh < OH; oh++ {
		khLo, khHi, hPad := poolTaps(oh, H, sh, dh, KH, ph, padsEnd[0])
		yrow := y[oh*OW : (oh+1)*OW]
		ih0 := oh*sh - ph
		for ow, c := range cols {
			iw0 := ow*sw - pw
			var sum float64
			for kh := khLo; kh < khHi; kh++ {
				row := x[(ih0+kh*dh)*W : (ih0+kh*dh+1)*W]
				for kw := c.lo; kw < c.hi; kw++ {
					sum += float64(row[iw0+kw*dw])
				}
			}
			count := (khHi - khLo) * (c.hi - c.lo)
			if includePad {
				count = hPad * c.withPad
			}
			if count > 0 {
				yrow[ow] = float32(sum / float64(count))
			} else {
				yrow[ow] = 0
			}
		}
	}
}
