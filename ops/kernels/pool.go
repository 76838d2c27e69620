package kernels

import (
	"math"
	"unsafe"
)

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

// interiorCols returns the output columns [lo, hi) whose pooling window
// lies inside a row of W inputs (hi ≥ lo).
func interiorCols(W, OW, KW, sw, dw, pw int) (lo, hi int) {
	lo, _ = validRange(W, OW, sw, pw, 0)
	_, hi = validRange(W, OW, sw, pw, (KW-1)*dw)
	return lo, max(hi, lo)
}

// poolRows returns the pooling scratch rows: col, the column maxima or sums
// of a row of W inputs, and win, the strided window scan (each W floats).
func (sc *convScratch) poolRows(W int) (col, win []float32) {
	sc.col = grow(sc.col, 2*W)
	return sc.col[:W], sc.col[W : 2*W]
}

// MaxPool2D computes MaxPool over planes consecutive planes (one call per
// node, so that its scratch and set-up are had once). Each output is, as in the
// generic loop (which scans the window taking the first valid tap and
// replacing it by every later tap greater than it): NaN if the window's
// first valid tap is NaN, otherwise the largest of its other taps, NaNs
// ignored; a window with no valid tap gives -Inf. The scan is separable: per
// output row, first down the kernel rows (vectorised, NaNs skipped), then
// across the kernel columns. That visits the taps column by column instead
// of row by row, which changes nothing but, in a window whose maximum is
// zero, which of +0 and -0 is kept.
func MaxPool2D(x, y []float32, planes int, g *ConvGeom) {
	H, W := g.In[0], g.In[1]
	OH, OW := g.Out[0], g.Out[1]
	KH, KW := g.Kernel[0], g.Kernel[1]
	sh, sw := g.Strides[0], g.Strides[1]
	dh, dw := g.Dilations[0], g.Dilations[1]
	ph, pw := g.PadsBegin[0], g.PadsBegin[1]
	lo, hi := interiorCols(W, OW, KW, sw, dw, pw)
	// The rows whose window lies inside the plane, where all KH taps count.
	rlo, rhi := interiorCols(H, OH, KH, sh, dh, ph)
	sc := convPool.Get().(*convScratch)
	defer convPool.Put(sc)
	col, win := sc.poolRows(W)
	spans := sc.borderSpans(OW, lo, hi, W, KW, sw, dw, pw, 0)
	defer func() { sc.poolSpans = spans[:0] }()
	mp := maxPlane{g: g, col: col, win: win, spans: spans, lo: lo, hi: hi, rlo: rlo, rhi: rhi}
	// The 3×3 stride-2 window (most CNNs' MaxPool) has a kernel of its own
	// for the rows and columns inside the plane.
	fast := vecPool3x3s2 && KH == 3 && KW == 3 && sw == 2 && dh == 1 && dw == 1 && hi-lo >= 4 && rlo < rhi
	is, os := H*W, OH*OW
	for pl := 0; pl < planes; pl++ {
		x, y := x[pl*is:(pl+1)*is], y[pl*os:(pl+1)*os]
		for oh := 0; oh < OH; {
			if fast && oh >= rlo && oh < rhi {
				done := mp.interior3x3s2(x, y, oh)
				oh += done
				if oh == rhi || done > 0 {
					continue
				}
				// A NaN in the row's first kernel row: the exact scan below.
			}
			mp.row(x, y, oh)
			oh++
		}
	}
}

// maxPlane is MaxPool2D's per-call state: the geometry, the scratch rows
// and the interior (columns [lo, hi), rows [rlo, rhi)) and border columns.
type maxPlane struct {
	g                *ConvGeom
	col, win         []float32
	spans            []poolSpan
	lo, hi, rlo, rhi int
}

// row computes output row oh of one plane.
func (mp *maxPlane) row(x, y []float32, oh int) {
	g := mp.g
	H, W := g.In[0], g.In[1]
	OW := g.Out[1]
	KH, KW := g.Kernel[0], g.Kernel[1]
	sh, sw := g.Strides[0], g.Strides[1]
	dh, dw := g.Dilations[0], g.Dilations[1]
	ph, pw := g.PadsBegin[0], g.PadsBegin[1]
	lo, hi, col, win := mp.lo, mp.hi, mp.col, mp.win
	khLo, khHi := 0, KH
	if oh < mp.rlo || oh >= mp.rhi {
		khLo, khHi, _ = poolTaps(oh, H, sh, dh, KH, ph, 0)
	}
	yrow := y[oh*OW : (oh+1)*OW]
	if khLo >= khHi {
		for i := range yrow {
			yrow[i] = float32(math.Inf(-1))
		}
		return
	}
	// Down the kernel rows: col[iw] = the largest of x[ih][iw] over the
	// valid kh, NaNs skipped (NaN only if all are).
	ih0 := oh*sh - ph
	r0 := (ih0 + khLo*dh) * W
	first := x[r0 : r0+W]
	maxRows(col, x, r0, dh*W, khHi-khLo)
	// Across the kernel columns, then a NaN first tap wins.
	switch {
	case lo >= hi:
	case sw == 1:
		maxWindowS1(yrow[lo:hi], col[lo-pw:], first[lo-pw:], KW, dw)
	case vecWindow && sw == 2 && dw == 1 && KW <= 4:
		// Four outputs per vector trip, the rest scalar.
		iw0 := lo*sw - pw
		j := lo + maxWindowS2Vec(yrow[lo:hi], col[iw0:], first[iw0:], KW)
		maxWindowStrided(yrow[j:hi], col[j*sw-pw:], first[j*sw-pw:], KW, sw, dw)
	case vecWindow && sw <= maxVecStride:
		// The window at every column from the first interior one to the
		// last, vectorised, then every sw-th: cheaper than a scalar scan
		// per output while the stride is small.
		iw0 := lo*sw - pw
		w := win[:(hi-1-lo)*sw+1]
		maxWindowS1(w, col[iw0:], first[iw0:], KW, dw)
		pick(yrow[lo:hi], w, sw)
	default:
		maxWindowStrided(yrow[lo:hi], col[lo*sw-pw:], first[lo*sw-pw:], KW, sw, dw)
	}
	// The border columns: their valid taps [c.lo, c.hi), the first
	// of them winning when NaN.
	for _, c := range mp.spans {
		best := float32(math.Inf(-1))
		if c.lo < c.hi {
			iw0 := c.ow*sw - pw
			best = col[iw0+c.lo*dw]
			if f := first[iw0+c.lo*dw]; f != f {
				best = f
			} else {
				for kw := c.lo + 1; kw < c.hi; kw++ {
					if v := col[iw0+kw*dw]; v > best {
						best = v
					}
				}
			}
		}
		yrow[c.ow] = best
	}
}

// interior3x3s2 computes the output rows from oh (inside [rlo, rhi)) of one
// plane of a 3×3, stride-2, unit-dilation MaxPool with maxPool3x3s2, the
// interior columns by the kernel and the border ones by a scan of their
// valid taps row by row (the generic loop's order). It stops before a
// row whose first kernel row holds a NaN and returns the rows it did.
func (mp *maxPlane) interior3x3s2(x, y []float32, oh int) int {
	g := mp.g
	W, OW := g.In[1], g.Out[1]
	sh, ph, pw := g.Strides[0], g.PadsBegin[0], g.PadsBegin[1]
	rows, n := mp.rhi-oh, mp.hi-mp.lo
	ih0, iw0 := oh*sh-ph, mp.lo*2-pw
	// The kernel reads input rows ih0 … ih0+(rows-1)·sh+2, columns
	// [iw0, iw0+2n+1), and writes y's rows from oh, columns [lo, hi), and
	// col[:2n+1] (reading up to col[2n+1], inside the scratch's 2W).
	_ = x[(ih0+(rows-1)*sh+2)*W+iw0+2*n]
	_ = y[(oh+rows-1)*OW+mp.hi-1]
	_ = mp.col[:cap(mp.col)][2*n+1]
	done := maxPool3x3s2(unsafe.Pointer(&x[ih0*W+iw0]), uintptr(W)*4, uintptr(sh*W)*4,
		unsafe.Pointer(&y[oh*OW+mp.lo]), uintptr(OW)*4, rows, n,
		unsafe.Pointer(unsafe.SliceData(mp.col)), unsafe.Pointer(&evenOddLanes))
	for _, c := range mp.spans {
		for r := oh; r < oh+done; r++ {
			best := float32(math.Inf(-1))
			if c.lo < c.hi {
				ih, iw := r*sh-ph, c.ow*2-pw
				best = x[ih*W+iw+c.lo]
				for kh := range 3 {
					row := x[(ih+kh)*W+iw:]
					for kw := c.lo; kw < c.hi; kw++ {
						if v := row[kw]; v > best {
							best = v
						}
					}
				}
			}
			y[r*OW+c.ow] = best
		}
	}
	return done
}

// evenOddLanes are i8x16.swizzle indices (0x80: a zero byte) that split
// two vectors' lanes into even and odd ones: lanes 0 and 2 of the first
// into lanes 0 and 1, of the second into 2 and 3; then lanes 1 and 3
// likewise (maxPool3x3s2 uses the even half; deinterleave4, winoColsRun).
var evenOddLanes = [64]byte{
	0, 1, 2, 3, 8, 9, 10, 11, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 1, 2, 3, 8, 9, 10, 11,
	4, 5, 6, 7, 12, 13, 14, 15, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 4, 5, 6, 7, 12, 13, 14, 15,
}

// maxWindowStrided sets y[i] to the scan of x[i·sw + kw·dw] over kw < KW
// (every tap valid), or to first[i·sw] when that is NaN.
func maxWindowStrided(y, x, first []float32, KW, sw, dw int) {
	for i := range y {
		iw0 := i * sw
		best := x[iw0]
		for kw := 1; kw < KW; kw++ {
			if v := x[iw0+kw*dw]; v > best {
				best = v
			}
		}
		if f := first[iw0]; f != f {
			best = f
		}
		y[i] = best
	}
}

// pick sets y[i] = w[i·sw]; w is exactly (len(y)−1)·sw+1 long. The loads
// go through an unsafe pointer, checked once: a bounds check per element
// doubled the cost of this loop in wasm.
func pick(y, w []float32, sw int) {
	if len(y) == 0 {
		return
	}
	_ = w[(len(y)-1)*sw]
	p, st := unsafe.Pointer(unsafe.SliceData(w)), uintptr(sw)*4
	for i := range y {
		y[i] = *(*float32)(unsafe.Add(p, uintptr(i)*st))
	}
}

// maxWindowS1 sets y[i] to the scan of x[i + kw·dw] over kw < KW (unit
// stride, every tap valid), or to first[i] when that is NaN.
func maxWindowS1(y, x, first []float32, KW, dw int) {
	_ = x[len(y)-1+(KW-1)*dw]
	_ = first[len(y)-1]
	i := maxWindowS1Vec(y, x, first, KW, dw)
	maxWindowStrided(y[i:], x[i:], first[i:], KW, 1, dw)
}

// AvgPool2D computes AveragePool over planes consecutive planes in float32, as ONNX Runtime
// does: the sum of the valid taps divided by their count, or with
// includePad by the number of taps inside the input and its explicit
// padding (padsEnd); a window with nothing to count gives 0. The sum is
// separable, as in MaxPool2D: per output row, first down the kernel rows
// (col[iw], vectorised), then across the kernel columns in ascending order,
// vectorised at every column where the window lies inside the row.
func AvgPool2D(x, y []float32, planes int, g *ConvGeom, padsEnd []int, includePad bool) {
	H, W := g.In[0], g.In[1]
	OH, OW := g.Out[0], g.Out[1]
	KH, KW := g.Kernel[0], g.Kernel[1]
	sh, sw := g.Strides[0], g.Strides[1]
	dh, dw := g.Dilations[0], g.Dilations[1]
	ph, pw := g.PadsBegin[0], g.PadsBegin[1]
	// In the interior columns every tap is valid and counted, KW of them.
	lo, hi := interiorCols(W, OW, KW, sw, dw, pw)
	rlo, rhi := interiorCols(H, OH, KH, sh, dh, ph) // as in MaxPool2D
	sc := convPool.Get().(*convScratch)
	defer convPool.Put(sc)
	col, win := sc.poolRows(W)
	spans := sc.borderSpans(OW, lo, hi, W, KW, sw, dw, pw, padsEnd[1])
	defer func() { sc.poolSpans = spans[:0] }()
	is, os := H*W, OH*OW
	for pl := 0; pl < planes; pl++ {
		x, y := x[pl*is:(pl+1)*is], y[pl*os:(pl+1)*os]
		for oh := 0; oh < OH; oh++ {
			khLo, khHi, hPad := 0, KH, KH
			if oh < rlo || oh >= rhi {
				khLo, khHi, hPad = poolTaps(oh, H, sh, dh, KH, ph, padsEnd[0])
			}
			yrow := y[oh*OW : (oh+1)*OW]
			if khLo >= khHi {
				clear(yrow) // no valid tap: 0, counted or not
				continue
			}
			ih0 := oh*sh - ph
			sumRows(col, x, (ih0+khLo*dh)*W, dh*W, khHi-khLo)
			if lo < hi {
				count := (khHi - khLo) * KW
				if includePad {
					count = hPad * KW
				}
				iw0 := lo*sw - pw
				switch {
				case sw == 1:
					w := yrow[lo:hi]
					sumRows(w, col[iw0:], 0, dw, KW) // window sums: the KW taps as rows dw apart
					divAll(w, float32(count))
				case !vecWindow || sw > maxVecStride:
					for ow := lo; ow < hi; ow++ {
						sumRowsScalar(yrow[ow:ow+1], col, ow*sw-pw, dw, KW)
						yrow[ow] /= float32(count)
					}
				default:
					// Every column from the first interior window to the last,
					// vectorised, then every sw-th, as in MaxPool2D.
					w := win[:(hi-1-lo)*sw+1]
					sumRows(w, col[iw0:], 0, dw, KW) // window sums: the KW taps as rows dw apart
					pick(yrow[lo:hi], w, sw)
					divAll(yrow[lo:hi], float32(count))
				}
			}
			for _, c := range spans {
				var sum float32
				for kw := c.lo; kw < c.hi; kw++ {
					sum += col[c.ow*sw-pw+kw*dw]
				}
				count := (khHi - khLo) * (c.hi - c.lo)
				if includePad {
					count = hPad * c.withPad
				}
				if count > 0 {
					yrow[c.ow] = sum / float32(count)
				} else {
					yrow[c.ow] = 0
				}
			}
		}
	}
}

// PlaneMeans sets y[p] to the mean of x[p·is : (p+1)·is] for each of the
// planes: four float64 partial sums (a loop trip per element cost more
// than the additions in wasm), then one division. It is GlobalAveragePool
// for float64, and for float32 where no vector form exists (the SIMD build
// sums float32 lanes: GlobalAvgPool).
func PlaneMeans[T Float](x, y []T, planes, is int) {
	for pl := 0; pl < planes; pl++ {
		xp := x[pl*is : (pl+1)*is]
		var s0, s1, s2, s3 float64
		i := 0
		for ; i+4 <= len(xp); i += 4 {
			q := xp[i : i+4 : i+4]
			s0 += float64(q[0])
			s1 += float64(q[1])
			s2 += float64(q[2])
			s3 += float64(q[3])
		}
		for ; i < len(xp); i++ {
			s0 += float64(xp[i])
		}
		y[pl] = T((s0 + s1 + s2 + s3) / float64(is))
	}
}

// poolSpan is a border output column of a pooling window: its valid taps
// [lo, hi) and the number inside the input and its explicit padding.
type poolSpan struct{ ow, lo, hi, withPad int }

// borderSpans returns, in sc.poolSpans' storage, the taps of the windows of
// the output columns outside [lo, hi), worked out once per call (padEnd
// counts towards withPad only).
func (sc *convScratch) borderSpans(OW, lo, hi, W, KW, sw, dw, pw, padEnd int) []poolSpan {
	spans := sc.poolSpans[:0]
	for ow := range OW {
		if ow < lo || ow >= hi {
			l, h, p := poolTaps(ow, W, sw, dw, KW, pw, padEnd)
			spans = append(spans, poolSpan{ow, l, h, p})
		}
	}
	return spans
}

// maxRowsScalar sets dst[i] to the running maximum of the nrows rows
// x[off + j·step + i], NaNs skipped (NaN only if all are): t is replaced
// by v where !(t >= v || v is NaN).
func maxRowsScalar(dst, x []float32, off, step, nrows int) {
	for i := range dst {
		t := x[off+i]
		for j := 1; j < nrows; j++ {
			if v := x[off+j*step+i]; !(t >= v || v != v) {
				t = v
			}
		}
		dst[i] = t
	}
}

// sumRowsScalar sets dst[i] to the sum of the nrows rows x[off + j·step + i],
// added in order.
func sumRowsScalar(dst, x []float32, off, step, nrows int) {
	for i := range dst {
		t := x[off+i]
		for j := 1; j < nrows; j++ {
			t += x[off+j*step+i]
		}
		dst[i] = t
	}
}

// divAllScalar divides every element of w by d.
func divAllScalar(w []float32, d float32) {
	for i := range w {
		w[i] /= d
	}
}
