package kernels

// ConvGeom is the geometry of one N-D convolution or pooling window sweep
// over the spatial dims of a single image. All slices have one entry per
// spatial dim; PadsBegin may be negative only if callers want cropping
// (ONNX never produces that).
type ConvGeom struct {
	In, Out, Kernel, Strides, Dilations, PadsBegin []int
}

// KernelSize is the number of taps in the kernel window.
func (g *ConvGeom) KernelSize() int { return prod(g.Kernel) }

// OutSize is the number of output positions.
func (g *ConvGeom) OutSize() int { return prod(g.Out) }

// InSize is the number of input positions.
func (g *ConvGeom) InSize() int { return prod(g.In) }

func prod(s []int) int {
	p := 1
	for _, d := range s {
		p *= d
	}
	return p
}

// validRange returns the output positions [lo, hi) along one dim whose input
// coordinate o*s - pad + off lands inside [0, in).
func validRange(in, out, s, pad, off int) (int, int) {
	// o*s >= pad - off  →  o >= ceil((pad-off)/s)
	lo := 0
	if t := pad - off; t > 0 {
		lo = (t + s - 1) / s
	}
	// o*s <= in-1 + pad - off  →  o <= floor((in-1+pad-off)/s)
	t := in - 1 + pad - off
	hi := 0
	if t >= 0 {
		hi = t/s + 1
	}
	if hi > out {
		hi = out
	}
	if lo > hi {
		lo = hi
	}
	return lo, hi
}

// Im2col unrolls x (channels × In...) into col, a (channels·KernelSize) ×
// OutSize row-major matrix: row (c, tap) holds, for every output position,
// the input value that tap sees (0 in the padding). Convolution then becomes
// one GEMM of the weights (M × channels·KernelSize) with col.
func Im2col[T Float](x []T, channels int, g *ConvGeom, col []T) {
	if len(g.In) == 2 {
		im2col2D(x, channels, g, col)
		return
	}
	nd := len(g.In)
	ks, os, is := g.KernelSize(), g.OutSize(), g.InSize()
	kidx := make([]int, nd)
	oidx := make([]int, nd)
	for c := 0; c < channels; c++ {
		xc := x[c*is : (c+1)*is]
		for t := 0; t < ks; t++ {
			unravel(t, g.Kernel, kidx)
			row := col[(c*ks+t)*os : (c*ks+t+1)*os]
			clear(oidx)
			for o := 0; o < os; o++ {
				off, ok := g.inputOffset(oidx, kidx)
				if ok {
					row[o] = xc[off]
				} else {
					row[o] = 0
				}
				increment(oidx, g.Out)
			}
		}
	}
}

func im2col2D[T Float](x []T, channels int, g *ConvGeom, col []T) {
	H, W := g.In[0], g.In[1]
	OH, OW := g.Out[0], g.Out[1]
	KH, KW := g.Kernel[0], g.Kernel[1]
	sh, sw := g.Strides[0], g.Strides[1]
	dh, dw := g.Dilations[0], g.Dilations[1]
	ph, pw := g.PadsBegin[0], g.PadsBegin[1]
	os := OH * OW
	r := 0
	for c := 0; c < channels; c++ {
		xc := x[c*H*W : (c+1)*H*W]
		for kh := 0; kh < KH; kh++ {
			hlo, hhi := validRange(H, OH, sh, ph, kh*dh)
			for kw := 0; kw < KW; kw++ {
				wlo, whi := validRange(W, OW, sw, pw, kw*dw)
				row := col[r*os : (r+1)*os]
				r++
				clear(row[:hlo*OW])
				clear(row[hhi*OW:])
				for oh := hlo; oh < hhi; oh++ {
					dst := row[oh*OW : (oh+1)*OW]
					ih := oh*sh - ph + kh*dh
					src := xc[ih*W : (ih+1)*W]
					clear(dst[:wlo])
					clear(dst[whi:])
					if wlo >= whi {
						continue
					}
					iw0 := wlo*sw - pw + kw*dw
					if sw == 1 {
						copy(dst[wlo:whi], src[iw0:iw0+whi-wlo])
						continue
					}
					for ow, iw := wlo, iw0; ow < whi; ow, iw = ow+1, iw+sw {
						dst[ow] = src[iw]
					}
				}
			}
		}
	}
}

// Col2im is the adjoint of Im2col: it adds every entry of col back onto the
// input position it was read from (padding entries are dropped). x must be
// zeroed (or hold a bias) beforehand. ConvTranspose is a GEMM followed by
// Col2im.
func Col2im[T Float](col []T, channels int, g *ConvGeom, x []T) {
	nd := len(g.In)
	ks, os, is := g.KernelSize(), g.OutSize(), g.InSize()
	if nd == 2 {
		H, W := g.In[0], g.In[1]
		OH, OW := g.Out[0], g.Out[1]
		r := 0
		for c := 0; c < channels; c++ {
			xc := x[c*is : (c+1)*is]
			for kh := 0; kh < g.Kernel[0]; kh++ {
				hlo, hhi := validRange(H, OH, g.Strides[0], g.PadsBegin[0], kh*g.Dilations[0])
				for kw := 0; kw < g.Kernel[1]; kw++ {
					wlo, whi := validRange(W, OW, g.Strides[1], g.PadsBegin[1], kw*g.Dilations[1])
					row := col[r*os : (r+1)*os]
					r++
					for oh := hlo; oh < hhi; oh++ {
						ih := oh*g.Strides[0] - g.PadsBegin[0] + kh*g.Dilations[0]
						iw := wlo*g.Strides[1] - g.PadsBegin[1] + kw*g.Dilations[1]
						for ow := wlo; ow < whi; ow++ {
							xc[ih*W+iw] += row[oh*OW+ow]
							iw += g.Strides[1]
						}
					}
				}
			}
		}
		return
	}
	kidx := make([]int, nd)
	oidx := make([]int, nd)
	for c := 0; c < channels; c++ {
		xc := x[c*is : (c+1)*is]
		for t := 0; t < ks; t++ {
			unravel(t, g.Kernel, kidx)
			row := col[(c*ks+t)*os : (c*ks+t+1)*os]
			clear(oidx)
			for o := 0; o < os; o++ {
				off, ok := g.inputOffset(oidx, kidx)
				if ok {
					xc[off] += row[o]
				}
				increment(oidx, g.Out)
			}
		}
	}
}

// unravel writes the row-major multi-index of flat index i in dims into idx.
func unravel(i int, dims, idx []int) {
	for d := len(dims) - 1; d >= 0; d-- {
		idx[d] = i % dims[d]
		i /= dims[d]
	}
}

// increment advances a row-major multi-index by one (odometer style).
func increment(idx, dims []int) {
	for d := len(dims) - 1; d >= 0; d-- {
		idx[d]++
		if idx[d] < dims[d] {
			return
		}
		idx[d] = 0
	}
}

// inputOffset is the flat offset in one input channel read by output
// position oidx through kernel tap kidx, or false where the tap falls in the
// padding (the N-D paths of Im2col and Col2im share it).
func (g *ConvGeom) inputOffset(oidx, kidx []int) (int, bool) {
	off := 0
	for d := range oidx {
		p := oidx[d]*g.Strides[d] - g.PadsBegin[d] + kidx[d]*g.Dilations[d]
		if p < 0 || p >= g.In[d] {
			return 0, false
		}
		off = off*g.In[d] + p
	}
	return off, true
}
