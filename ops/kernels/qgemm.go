package kernels

// The exact integer kernels of the quantized ops (ConvInteger,
// MatMulInteger, QLinearConv, QLinearMatMul). Operands are int16 values
// with their zero points already subtracted: a uint8 or int8 value minus a
// zero point of its type lies in [-255, 255], so every product fits in
// int32 and sums accumulate in int32 as the ONNX spec and onnxruntime do
// (wrapping on overflow, which takes more than 33,000 terms of the
// largest products). Unlike the float64 path they replace, they never
// convert a whole tensor: callers feed blocks, so memory stays bounded
// whatever the input size.

// Quant is an element type of the quantized ops' integer inputs.
type Quant interface{ ~int8 | ~uint8 }

// GemmI16 adds A·B to C: C (m×n, row stride ldc) += A (m×k, lda) ·
// B (k×n, ldb), in int32. The SIMD build (qgemm_simd.go) computes 4×8
// tiles with widening multiplies; both give gemmI16Scalar's bits, since
// integer sums do not depend on their order.
func GemmI16(m, n, k int, a []int16, lda int, b []int16, ldb int, c []int32, ldc int) {
	if m <= 0 || n <= 0 || k <= 0 {
		return
	}
	gemmI16(m, n, k, a, lda, b, ldb, c, ldc)
}

// gemmI16Scalar is GemmI16 one product at a time (the scalar build's,
// and the reference of the SIMD one's tests).
func gemmI16Scalar(m, n, k int, a []int16, lda int, b []int16, ldb int, c []int32, ldc int) {
	for i := range m {
		crow := c[i*ldc : i*ldc+n]
		arow := a[i*lda : i*lda+k]
		for p, av := range arow {
			if av == 0 {
				continue
			}
			w := int32(av)
			brow := b[p*ldb : p*ldb+n]
			for j, bv := range brow {
				crow[j] += w * int32(bv)
			}
		}
	}
}

// SubZeroPoint writes src minus zp into dst (len(src) values).
func SubZeroPoint[T Quant](dst []int16, src []T, zp int16) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = int16(v) - zp
	}
}

// Im2colQ unrolls the output positions [o0, o0+nb) of x (channels × In…,
// one image's quantized values) into col, a (channels·KernelSize) × nb
// row-major matrix of values minus zp: row (c, tap) holds, for each of
// those positions, the input value that tap sees. Padding is 0 after the
// subtraction, i.e. the padded value is the zero point (the real value 0),
// as the integer convolutions define it.
func Im2colQ[T Quant](x []T, zp int16, channels int, g *ConvGeom, o0, nb int, col []int16) {
	if len(g.In) == 2 {
		im2colQ2D(x, zp, channels, g, o0, nb, col)
		return
	}
	nd := len(g.In)
	ks, is := g.KernelSize(), g.InSize()
	kidx := make([]int, nd)
	start := make([]int, nd)
	oidx := make([]int, nd)
	unravel(o0, g.Out, start)
	for c := 0; c < channels; c++ {
		xc := x[c*is : (c+1)*is]
		for t := 0; t < ks; t++ {
			unravel(t, g.Kernel, kidx)
			row := col[(c*ks+t)*nb : (c*ks+t+1)*nb]
			copy(oidx, start)
			for o := range row {
				if off, ok := g.inputOffset(oidx, kidx); ok {
					row[o] = int16(xc[off]) - zp
				} else {
					row[o] = 0
				}
				increment(oidx, g.Out)
			}
		}
	}
}

// im2colQ2D is Im2colQ for two spatial dims: per channel and tap, the
// block's positions as runs along output rows, each reading one input
// row (or none, in the padding) with the stride, instead of an index
// computed per value.
func im2colQ2D[T Quant](x []T, zp int16, channels int, g *ConvGeom, o0, nb int, col []int16) {
	h, w, ow := g.In[0], g.In[1], g.Out[1]
	kh, kw := g.Kernel[0], g.Kernel[1]
	sh, sw, dh, dw := g.Strides[0], g.Strides[1], g.Dilations[0], g.Dilations[1]
	ph, pw := g.PadsBegin[0], g.PadsBegin[1]
	for c := range channels {
		xc := x[c*h*w : (c+1)*h*w]
		for ky := range kh {
			for kx := range kw {
				row := col[((c*kh+ky)*kw+kx)*nb:][:nb]
				oy, ox := o0/ow, o0%ow
				for o := 0; o < nb; oy, ox = oy+1, 0 {
					seg := row[o : o+min(nb-o, ow-ox)]
					o += len(seg)
					iy := oy*sh - ph + ky*dh
					if iy < 0 || iy >= h {
						clear(seg)
						continue
					}
					xr := xc[iy*w : (iy+1)*w]
					ix := ox*sw - pw + kx*dw
					for i := range seg {
						if uint(ix) < uint(w) {
							seg[i] = int16(xr[ix]) - zp
						} else {
							seg[i] = 0
						}
						ix += sw
					}
				}
			}
		}
	}
}
