package kernels

import "unsafe"

// Depthwise convolution (one input channel per group): each output plane is
// its input plane correlated with the group's taps. The input plane is first
// copied into a zero-padded scratch plane, so that the row kernels run the
// same vector loop over every output, borders included, with no per-pixel
// bounds checks. With a stride s > 1 along W each padded row is stored as s
// phases (columns p, p+s, p+2s, ... for p < s): output column ow, tap kw then
// reads phase (kw·dw) mod s at ow + (kw·dw)/s, so consecutive outputs read
// consecutive inputs at every stride (WebAssembly SIMD has no deinterleaving
// load to do it in the kernel).
//
// Each output sums all its taps in (kh, kw) order, padding included: a
// padded tap adds w·0, which leaves the sum unchanged (it can only differ
// from skipping the tap when the weight is infinite or NaN). The sum starts
// from the first product, not from +0, so an all-zero window may give -0.

// dwLayout is the padded-plane geometry of one depthwise convolution, the
// same for all of its channels.
type dwLayout struct {
	g       *ConvGeom
	hp, wq  int   // padded rows; floats per phase of a padded row
	rowLen  int   // floats per padded row (stride·wq)
	rowStep int   // floats between the first inputs of consecutive output rows
	offs    []int // per tap (kh, kw): offset from an output row's base
	size    int   // floats of the padded plane, including the kernels' overrun
}

// newDWLayout computes the layout of g (2-D), reusing offs' storage.
func newDWLayout(g *ConvGeom, offs []int) dwLayout {
	OH, OW := g.Out[0], g.Out[1]
	KH, KW := g.Kernel[0], g.Kernel[1]
	sh, sw := g.Strides[0], g.Strides[1]
	dh, dw := g.Dilations[0], g.Dilations[1]
	// Padded rows and columns that some output reads.
	hp := (OH-1)*sh + (KH-1)*dh + 1
	wp := (OW-1)*sw + (KW-1)*dw + 1
	l := dwLayout{g: g, hp: hp, wq: (wp + sw - 1) / sw}
	l.rowLen = sw * l.wq
	l.rowStep = sh * l.rowLen
	offs = offs[:0]
	maxOff := 0
	for kh := 0; kh < KH; kh++ {
		for kw := 0; kw < KW; kw++ {
			c := kw * dw
			o := kh*dh*l.rowLen + c%sw*l.wq + c/sw
			offs = append(offs, o)
			maxOff = max(maxOff, o)
		}
	}
	l.offs = offs
	// The kernels compute whole vectors of four outputs, reading up to three
	// floats past the last output's taps.
	l.size = max(hp*l.rowLen, (OH-1)*l.rowStep+maxOff+roundUp(OW, 4))
	return l
}

// scratch is the floats of scratch conv needs: the plane and one row.
func (l *dwLayout) scratch() int { return l.size + l.rowLen }

// pad copies the H×W plane x into buf (l.size floats) in the padded,
// phase-split layout; row is scratch for one padded row (l.rowLen floats)
// when the stride along W is above 1.
func (l *dwLayout) pad(x, buf, row []float32) {
	g := l.g
	H, W := g.In[0], g.In[1]
	ph, pw := g.PadsBegin[0], g.PadsBegin[1]
	sw := g.Strides[1]
	for r := 0; r < l.hp; r++ {
		dst := buf[r*l.rowLen : (r+1)*l.rowLen]
		ih := r - ph
		if ih < 0 || ih >= H {
			clear(dst)
			continue
		}
		src := x[ih*W : (ih+1)*W]
		if sw == 1 {
			padRow(dst, src, pw)
			continue
		}
		// Padded, then split: phase p gets padded columns p, p+sw, ...
		padRow(row, src, pw)
		if sw == 2 {
			deinterleave2(dst[:l.wq], dst[l.wq:], row)
			continue
		}
		for p := 0; p < sw; p++ {
			d := dst[p*l.wq : (p+1)*l.wq]
			for j := range d {
				d[j] = row[j*sw+p]
			}
		}
	}
	clear(buf[l.hp*l.rowLen : l.size])
}

// padRow sets dst to src shifted right by pad columns, zeros around it.
func padRow(dst, src []float32, pad int) {
	pad = min(pad, len(dst))
	clear(dst[:pad])
	n := copy(dst[pad:], src)
	clear(dst[pad+n:])
}

// deinterleave2 splits s into its even (e) and odd (o) elements;
// len(s) = 2·len(e) = 2·len(o).
func deinterleave2(e, o, s []float32) {
	n := len(e)
	_, _ = o[n-1], s[2*n-1]
	// Unsafe loads: the bounds checks would cost as much as the copy.
	pe, po, ps := unsafe.Pointer(unsafe.SliceData(e)), unsafe.Pointer(unsafe.SliceData(o)), unsafe.Pointer(unsafe.SliceData(s))
	for j := uintptr(0); j < uintptr(n)*4; j += 4 {
		*(*float32)(unsafe.Add(pe, j)) = *(*float32)(unsafe.Add(ps, 2*j))
		*(*float32)(unsafe.Add(po, j)) = *(*float32)(unsafe.Add(ps, 2*j+4))
	}
}

// conv computes one output plane y (Out) of a convolution whose
// group has a single input channel: x (In) correlated with the taps w
// (Kernel), no bias. buf is l.scratch() floats holding x padded (filled
// when fill is set; a group with several output channels pads once).
func (l *dwLayout) conv(x, w, y, buf []float32, fill bool) {
	g := l.g
	if Pointwise(g) {
		// A per-channel scale: the plane is one long row.
		_ = x[len(y)-1]
		dwRowS1(y, x, []int{0}, w[:1], 0)
		return
	}
	if fill {
		l.pad(x, buf[:l.size], buf[l.size:])
	}
	OH, OW := g.Out[0], g.Out[1]
	// The kernels load without bounds checks: check the highest address.
	_ = buf[l.size-1]
	_ = y[OH*OW-1]
	_ = w[len(l.offs)-1]
	if len(l.offs) == 9 {
		dwRows9(y, buf, OH, OW, l.rowStep, (*[9]int)(l.offs), (*[9]float32)(w))
		return
	}
	dwRows(y, buf, OH, OW, l.rowStep, l.offs, w[:len(l.offs)])
}

// dwRowsRef is the scalar definition of the row kernels: output (oh, ow) is
// Σ_t wt[t]·buf[oh·rowStep + offs[t] + ow], the taps summed in order.
func dwRowsRef(y, buf []float32, OH, OW, rowStep int, offs []int, wt []float32) {
	for oh := 0; oh < OH; oh++ {
		row := y[oh*OW : (oh+1)*OW]
		base := oh * rowStep
		for i := range row {
			acc := wt[0] * buf[base+offs[0]+i]
			for t := 1; t < len(offs); t++ {
				acc += wt[t] * buf[base+offs[t]+i]
			}
			row[i] = acc
		}
	}
}

// dwRow computes y[i] = Σ_t wt[t]·x[base + offs[t] + (o0+i)·sw] for every i
// (the scalar tail of dwRowS1).
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
