package kernels

// Float32 ConvTranspose: per image and group, col = W_gᵀ·X_g (rows = output
// channels · kernel taps, one column per input pixel) scattered onto Y with
// col2im. The column matrix is computed in segments of input pixels, so the
// scratch stays bounded (≤ 4 MB) whatever the image size; Y starts from the
// bias and the fused residual and activation run once Y is complete.

// ConvTWeights is a ConvTranspose weight tensor (C × M/group × kernel) with,
// when it is constant, each group's transpose packed for the GEMM once.
type ConvTWeights struct {
	W      []float32
	C      int
	Group  int
	Rows   int // M/group · kernel size
	packed []*PackedA
}

// NewConvTWeights wraps w; with pack it also packs each group's W_gᵀ.
func NewConvTWeights(w []float32, c, group, rows int, pack bool) *ConvTWeights {
	cw := &ConvTWeights{W: w, C: c, Group: group, Rows: rows}
	if pack {
		cg := c / group
		cw.packed = make([]*PackedA, group)
		for g := range cw.packed {
			cw.packed[g] = PackA(true, rows, cg, 1, w[g*cg*rows:(g+1)*cg*rows], rows)
		}
	}
	return cw
}

func (cw *ConvTWeights) a(g int) aOperand {
	if cw.packed != nil {
		return aOperand{packed: cw.packed[g]}
	}
	cg := cw.C / cw.Group
	return aOperand{trans: true, a: cw.W[g*cg*cw.Rows : (g+1)*cg*cw.Rows], lda: cw.Rows, alpha: 1}
}

// ConvTArgs describes one float32 ConvTranspose run. Geom is the forward
// convolution from Y to X: In is Y's spatial shape, Out is X's.
type ConvTArgs struct {
	N, M       int
	Geom       *ConvGeom
	X          []float32 // N × C × Out
	Bias       []float32 // M, or nil
	Residual   []float32 // N × M × In, or nil
	Act        Act
	Alpha      float32
	Beta       float32
	Y          []float32 // N × M × In
	Checkpoint func() error
}

// ConvTranspose computes a float32 transposed convolution with weights cw.
func ConvTranspose(cw *ConvTWeights, a *ConvTArgs) error {
	g := a.Geom
	group := cw.Group
	cg, mg := cw.C/group, a.M/group
	xs, ys := g.OutSize(), g.InSize()
	rows := cw.Rows
	pw := Pointwise(g)
	seg := roundUp(max(NR, min(xs, (1<<20)/max(rows, 1))), NR)
	var col []float32
	if !pw {
		s := convPool.Get().(*convScratch)
		defer convPool.Put(s)
		s.col = grow(s.col, rows*min(seg, xs))
		col = s.col
	}
	for n := 0; n < a.N; n++ {
		for gi := 0; gi < group; gi++ {
			xg := a.X[(n*cw.C+gi*cg)*xs : (n*cw.C+(gi+1)*cg)*xs]
			yo := (n*a.M + gi*mg) * ys
			yg := a.Y[yo : yo+mg*ys]
			if a.Bias != nil {
				for m := 0; m < mg; m++ {
					row := yg[m*ys : (m+1)*ys]
					bv := a.Bias[gi*mg+m]
					for i := range row {
						row[i] = bv
					}
				}
			} else {
				clear(yg)
			}
			A := cw.a(gi)
			if pw {
				if a.Checkpoint != nil {
					if err := a.Checkpoint(); err != nil {
						return err
					}
				}
				sgemm(rows, xs, cg, &A, &bOperand{b: xg, ldb: xs}, 1, yg, ys, nil)
			} else {
				for j := 0; j < xs; j += seg {
					if a.Checkpoint != nil {
						if err := a.Checkpoint(); err != nil {
							return err
						}
					}
					nb := min(seg, xs-j)
					sgemm(rows, nb, cg, &A, &bOperand{b: xg[j:], ldb: xs}, 0, col, nb, nil)
					col2imSegment(col[:rows*nb], mg, g, yg, j, nb)
				}
			}
			ep := Epilogue{Act: a.Act, Alpha: a.Alpha, Beta: a.Beta, LdR: ys}
			if a.Residual != nil {
				ep.Residual = a.Residual[yo : yo+mg*ys]
			}
			ApplyEpilogue(yg, mg, ys, ys, &ep)
		}
	}
	return nil
}

func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// col2imSegment adds the columns [j0, j0+nb) of the im2col-shaped matrix col
// (channels·kernel rows, nb columns) back onto the input positions they were
// read from (Col2im restricted to a segment of output pixels).
func col2imSegment(col []float32, channels int, g *ConvGeom, x []float32, j0, nb int) {
	nd := len(g.In)
	ks, is := g.KernelSize(), g.InSize()
	if nd != 2 {
		kidx := make([]int, nd)
		oidx := make([]int, nd)
		for r := 0; r < channels*ks; r++ {
			c, t := r/ks, r%ks
			unravel(t, g.Kernel, kidx)
			xc := x[c*is : (c+1)*is]
			row := col[r*nb : (r+1)*nb]
			unravel(j0, g.Out, oidx)
			for _, v := range row {
				if off, ok := g.inputOffset(oidx, kidx); ok {
					xc[off] += v
				}
				increment(oidx, g.Out)
			}
		}
		return
	}
	H, W := g.In[0], g.In[1]
	OW := g.Out[1]
	KH, KW := g.Kernel[0], g.Kernel[1]
	sh, sw := g.Strides[0], g.Strides[1]
	r := 0
	for c := 0; c < channels; c++ {
		xc := x[c*is : (c+1)*is]
		for kh := 0; kh < KH; kh++ {
			hlo, hhi := validRange(H, g.Out[0], sh, g.PadsBegin[0], kh*g.Dilations[0])
			for kw := 0; kw < KW; kw++ {
				wlo, whi := validRange(W, OW, sw, g.PadsBegin[1], kw*g.Dilations[1])
				row := col[r*nb : (r+1)*nb]
				r++
				// Walk the segment one output row at a time.
				oh, ow := j0/OW, j0%OW
				for t := 0; t < nb; {
					n := min(OW-ow, nb-t)
					if oh >= hlo && oh < hhi {
						ih := oh*sh - g.PadsBegin[0] + kh*g.Dilations[0]
						lo, hi := max(ow, wlo), min(ow+n, whi)
						if lo < hi {
							dst := xc[ih*W : (ih+1)*W]
							src := row[t+lo-ow : t+hi-ow]
							iw := lo*sw - g.PadsBegin[1] + kw*g.Dilations[1]
							for _, v := range src {
								dst[iw] += v
								iw += sw
							}
						}
					}
					t += n
					oh, ow = oh+1, 0
				}
			}
		}
	}
}
