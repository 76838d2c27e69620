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

// pad copies the H×W plane x into buf, a padded plane (l.size floats) in
// the phase-split layout, writing only the positions that hold input:
// the padding is the same for every plane, so buf is cleared once per
// convolution and its padding stays zero.
func (l *dwLayout) pad(x, buf []float32) {
	g := l.g
	H, W := g.In[0], g.In[1]
	ph, pw := g.PadsBegin[0], g.PadsBegin[1]
	sw := g.Strides[1]
	// The columns to copy: at stride 1 one run, at stride 2 the pairs of
	// inputs that split into both phases, and at other strides per phase.
	clo, chi := validRange(W, l.wq, 1, pw, 0)
	var pairs int
	if sw == 2 {
		// Input 2k goes to padded column 2k+pw: phase pw mod 2, index
		// k + pw/2, and input 2k+1 to the other phase at k + (pw+1)/2.
		pairs = max(0, min(W/2, l.wq-(pw+1)/2))
	}
	// Padded rows r = ih + ph of the input rows that some output reads.
	ihLo, ihHi := max(0, -ph), min(H, l.hp-ph)
	if sw == 1 && vecCopyRows && chi-clo >= 4 && ihLo < ihHi {
		// Every row's run at once: the rows' extents, checked.
		_ = x[(ihHi-1)*W+chi-1-pw]
		_ = buf[(ihHi-1+ph)*l.rowLen+chi-1]
		copyRows(unsafe.Pointer(&buf[(ihLo+ph)*l.rowLen+clo]), unsafe.Pointer(&x[ihLo*W+clo-pw]), ihHi-ihLo, chi-clo,
			uintptr(l.rowLen)*4, uintptr(W)*4)
		return
	}
	for ih := ihLo; ih < ihHi; ih++ {
		src := x[ih*W : (ih+1)*W]
		dst := buf[(ih+ph)*l.rowLen : (ih+ph+1)*l.rowLen]
		switch {
		case sw == 1:
			if clo < chi {
				copyRow(dst[clo:chi], src[clo-pw:])
			}
		case sw == 2:
			e, o := dst[:l.wq], dst[l.wq:2*l.wq]
			if pw%2 == 0 {
				deinterleave2(e[pw/2:pw/2+pairs], o[pw/2:], src)
			} else {
				deinterleave2(o[pw/2:pw/2+pairs], e[pw/2+1:], src)
			}
			// An odd last input, or inputs past the pairs that some
			// output still reads.
			for i := 2 * pairs; i < W && i+pw < 2*l.wq; i++ {
				c := i + pw
				dst[c%2*l.wq+c/2] = src[i]
			}
		default:
			for p := 0; p < sw; p++ {
				// Phase p holds padded columns j·sw + p: input j·sw + p - pw.
				d := dst[p*l.wq : (p+1)*l.wq]
				if jlo, jhi := validRange(W, l.wq, sw, pw, p); jlo < jhi {
					gather(d[jlo:jhi], src[jlo*sw+p-pw:], sw)
				}
			}
		}
	}
}

// gather sets d[j] = s[j·stride].
func gather(d, s []float32, stride int) {
	_ = s[(len(d)-1)*stride]
	// Unsafe loads: the bounds checks would cost as much as the copy.
	pd, ps := unsafe.Pointer(unsafe.SliceData(d)), unsafe.Pointer(unsafe.SliceData(s))
	step := uintptr(stride) * 4
	for j, o := uintptr(0), uintptr(0); j < uintptr(len(d))*4; j, o = j+4, o+step {
		*(*float32)(unsafe.Add(pd, j)) = *(*float32)(unsafe.Add(ps, o))
	}
}

// conv computes one output plane y (Out) of a convolution whose group has a
// single input channel: x (In) correlated with the taps w (Kernel), plus
// bias. buf holds x padded (l.size floats; filled when fill is set, since a
// group with several output channels pads once). With relu set, a row
// kernel may apply Relu too; conv reports whether it did.
func (l *dwLayout) conv(x, w, y, buf []float32, fill bool, bias float32, relu bool) bool {
	g := l.g
	if Pointwise(g) {
		// A per-channel scale: the plane is one long row.
		_ = x[len(y)-1]
		dwRowS1(y, x, []int{0}, w[:1], 0)
		for i := range y {
			y[i] += bias
		}
		return false
	}
	if fill {
		l.pad(x, buf)
	}
	OH, OW := g.Out[0], g.Out[1]
	// The kernels load without bounds checks: check the highest address.
	_ = buf[l.size-1]
	_ = y[OH*OW-1]
	_ = w[len(l.offs)-1]
	switch {
	case len(l.offs) == 9:
		return dwRows9(y, buf, OH, OW, l.rowStep, (*[9]int)(l.offs), (*[9]float32)(w), bias, relu)
	case len(l.offs) == 25 && g.Kernel[1] == 5:
		dwRows25(y, buf, OH, OW, l.rowStep, (*[25]int)(l.offs), (*[25]float32)(w), bias)
	default:
		dwRows(y, buf, OH, OW, l.rowStep, l.offs, w[:len(l.offs)], bias)
	}
	return false
}

// dwRowsRef is the scalar definition of the row kernels: output (oh, ow) is
// Σ_t wt[t]·buf[oh·rowStep + offs[t] + ow] + bias, the taps summed in order.
func dwRowsRef(y, buf []float32, OH, OW, rowStep int, offs []int, wt []float32, bias float32) {
	for oh := 0; oh < OH; oh++ {
		row := y[oh*OW : (oh+1)*OW]
		base := oh * rowStep
		for i := range row {
			acc := wt[0] * buf[base+offs[0]+i]
			for t := 1; t < len(offs); t++ {
				acc += wt[t] * buf[base+offs[t]+i]
			}
			row[i] = acc + bias
		}
	}
}

// convDepthwise is Conv for 2-D groups of one input channel, for output
// channels [lo, hi): per plane the padded copy and the row kernel (which
// adds the bias), then the residual and activation over each image's
// channels in one pass. Channels are independent, so a range computes
// exactly the whole run's planes.
func convDepthwise(cw *ConvWeights, a *ConvArgs, lo, hi int) error {
	g := a.Geom
	mg := cw.M / cw.Group
	is, os, ks := g.InSize(), g.OutSize(), g.KernelSize()
	sc := convPool.Get().(*convScratch)
	defer convPool.Put(sc)
	l := newDWLayout(g, sc.taps)
	sc.taps = l.offs
	sc.col = grow(sc.col, l.size)
	buf := sc.col
	clear(buf)
	// A checkpoint every few million multiply-adds.
	every := max(1, (1<<22)/max(mg*os*ks, 1))
	ep := Epilogue{Act: a.Act, Alpha: a.Alpha, Beta: a.Beta, LdR: cw.M * os}
	// Relu without a residual may be applied by the row kernel (dwRows9);
	// the pass over the output then takes it out, once every plane had it.
	relu := a.Act == ActRelu && a.Residual == nil
	for n := 0; n < a.N; n++ {
		applied := relu
		for oc := lo; oc < hi; oc++ {
			gi, m := oc/mg, oc%mg
			// The group's input is padded at its first channel in the range.
			first := m == 0 || oc == lo
			if a.Checkpoint != nil && first && (gi-lo/mg)%every == 0 {
				if err := a.Checkpoint(); err != nil {
					return err
				}
			}
			x := a.X[(n*a.C+gi)*is : (n*a.C+gi+1)*is]
			var bias float32
			if a.Bias != nil {
				bias = a.Bias[oc]
			}
			y := a.Y[(n*cw.M+oc)*os : (n*cw.M+oc+1)*os]
			if !l.conv(x, cw.W[oc*ks:(oc+1)*ks], y, buf, first, bias, relu) {
				applied = false
			}
		}
		y0, y1 := (n*cw.M+lo)*os, (n*cw.M+hi)*os
		if a.Residual != nil {
			ep.Residual = a.Residual[y0:y1]
		}
		e := ep
		if applied {
			e.Act = ActNone
		}
		if e.active() {
			e.apply(a.Y[y0:y1], y1-y0, 0, 1, 0, y1-y0)
		}
	}
	return nil
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
