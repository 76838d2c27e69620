package nn

import (
	"slices"

	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// ConvTranspose-11/22 share semantics (22 added bfloat16); version 1 places
// an odd unit of output_shape padding differently (ops/window's
// Attrs.OddPadAtEnd, which the WebGPU kernel reads too).
func init() {
	op.Register("ConvTranspose", []int{1, 11, 22}, buildConvTranspose)
	shapes.Register("", "ConvTranspose", inferConvTranspose)
}

// convTAttrs are ConvTranspose's attributes (output_padding and
// output_shape are in the window attributes too).
type convTAttrs struct{ convAttrs }

func buildConvTranspose(n *op.Node) (any, error) {
	c, err := parseConv(n)
	if err != nil {
		return nil, err
	}
	t := &convTAttrs{*c}
	f, err := parseFusion(n)
	if err != nil {
		return nil, err
	}
	packed := t.packWeights(n.ConstInput(1))
	var plans planCache[*convShapes]
	return attrsFusingKernel{fusingKernel{op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		in, r, err := f.split(in)
		if err != nil {
			return nil, err
		}
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("ConvTranspose needs X and W")
		}
		x, w, b := in[0], in[1], optIn(in, 2)
		if !isFloatish(x.DType()) || w.DType() != x.DType() || (b != nil && b.DType() != x.DType()) {
			return nil, op.Errorf("ConvTranspose needs matching float inputs, got %s/%s", x.DType(), w.DType())
		}
		s, ok := plans.get(x.Shape(), w.Shape(), nil)
		if !ok {
			if s, err = t.shapes(x.Shape(), w.Shape()); err != nil {
				return nil, err
			}
			plans.put(x.Shape(), w.Shape(), nil, s)
		}
		if b != nil && b.Len() != s.m {
			return nil, op.Errorf("ConvTranspose bias has %d elements, expected %d", b.Len(), s.m)
		}
		if err := checkResidual(r, x.DType(), s.yShape); err != nil {
			return nil, err
		}
		y := ctx.New(x.DType(), s.yShape...)
		if x.DType() == tensor.Double {
			colN := 0
			if !kernels.Pointwise(s.geom) {
				if colN, err = ctx.CheckShape(x.DType(), []int{s.m / t.group * s.geom.KernelSize(), s.geom.OutSize()}); err != nil {
					return nil, err
				}
			}
			var bd []float64
			if b != nil {
				bd = b.F64()
			}
			convTranspose(x.F64(), w.F64(), bd, t.group, s, y.F64(), make([]float64, colN))
			f.applySeparately(y, r)
			return ctx.One(y), nil
		}
		rows := s.m / t.group * s.geom.KernelSize()
		cw := packed
		if cw == nil || !sameData(cw.W, w.F32()) || cw.C != s.c || cw.Rows != rows {
			cw = kernels.NewConvTWeights(w.F32(), s.c, t.group, rows, false)
		}
		args := &kernels.ConvTArgs{N: s.n, M: s.m, Geom: s.geom, X: x.F32(), Y: y.F32(), Checkpoint: ctx.CheckpointFunc()}
		if b != nil {
			args.Bias = b.F32()
		}
		if f.inLoop(x.DType()) {
			args.Residual, args.Act, args.Alpha, args.Beta = f.epilogue(r)
		}
		if err := kernels.ConvTranspose(cw, args); err != nil {
			return nil, err
		}
		if !f.inLoop(x.DType()) {
			f.applySeparately(y, r)
		}
		return ctx.One(y), nil
	}), 1, 3}, t.win}, nil
}

// packWeights packs a constant float ConvTranspose weight tensor
// (C × M/group × kernel) for the GEMM, or returns nil.
func (t *convTAttrs) packWeights(w *tensor.Tensor) *kernels.ConvTWeights {
	if w == nil || !w.DType().IsFloat() || w.Rank() < 3 {
		return nil
	}
	shape := w.Shape()
	c := shape[0]
	if c <= 0 || c%t.group != 0 {
		return nil
	}
	return kernels.NewConvTWeights(w.F32(), c, t.group, tensor.MustSize(shape[1:]), true)
}

// shapes resolves ConvTranspose geometry. The returned ConvGeom describes
// the equivalent forward convolution from Y to X: In is Y's spatial shape
// and Out is X's, which is exactly what Col2im scatters along.
func (t *convTAttrs) shapes(x, w []int) (*convShapes, error) {
	if len(x) < 3 || len(w) != len(x) {
		return nil, op.Errorf("ConvTranspose needs X and W of equal rank ≥ 3, got %v and %v", x, w)
	}
	s := &convShapes{n: x[0], c: x[1], m: w[1] * t.group}
	if w[0] != s.c {
		return nil, op.Errorf("ConvTranspose weight %v does not match %d input channels", w, s.c)
	}
	if s.c%t.group != 0 {
		return nil, op.Errorf("ConvTranspose input channels %d not divisible by group %d", s.c, t.group)
	}
	kernel, err := t.win.WeightKernel(w)
	if err != nil {
		return nil, err
	}
	tg, err := t.win.Transpose(x[2:], kernel)
	if err != nil {
		return nil, err
	}
	// The forward convolution from Y to X: In is Y's spatial shape.
	g := &kernels.ConvGeom{Out: slices.Clone(x[2:]), In: tg.Out, Kernel: kernel, Strides: tg.Strides, Dilations: tg.Dilations, PadsBegin: tg.PadsBegin}
	s.geom = g
	s.yShape = append([]int{s.n, s.m}, g.In...)
	return s, nil
}

// convTranspose is the float64 ConvTranspose: per image and group, col = W_gᵀ·X_g (one GEMM)
// and scatters col onto Y with Col2im, Y having been filled with the bias.
func convTranspose[T kernels.Float](x, w, b []T, group int, s *convShapes, y []T, col []T) {
	cg, mg := s.c/group, s.m/group
	xs, ys, ks := s.geom.OutSize(), s.geom.InSize(), s.geom.KernelSize()
	rows := mg * ks
	pw := kernels.Pointwise(s.geom)
	for n := 0; n < s.n; n++ {
		for g := 0; g < group; g++ {
			xg := x[(n*s.c+g*cg)*xs : (n*s.c+(g+1)*cg)*xs]
			yg := y[(n*s.m+g*mg)*ys : (n*s.m+(g+1)*mg)*ys]
			wg := w[g*cg*rows : (g+1)*cg*rows]
			if b != nil {
				for m := 0; m < mg; m++ {
					bv := b[g*mg+m]
					row := yg[m*ys : (m+1)*ys]
					for i := range row {
						row[i] = bv
					}
				}
			}
			if pw {
				kernels.Gemm(true, false, rows, xs, cg, 1, wg, rows, xg, xs, 1, yg, ys)
				continue
			}
			kernels.Gemm(true, false, rows, xs, cg, 1, wg, rows, xg, xs, 0, col, xs)
			kernels.Col2im(col, mg, s.geom, yg)
		}
	}
}

func inferConvTranspose(c *shapes.Ctx) {
	x, w := c.Shape(0), c.Shape(1)
	if x == nil || w == nil || len(x) < 3 || len(w) != len(x) {
		c.Set(0, nil, "")
		return
	}
	nsp := len(x) - 2
	group := c.AttrInt("group", 1)
	out := []graph.Dim{x[0], shapes.DimMul(w[1], shapes.Known(group))}
	if os, ok := c.AttrInts("output_shape"); ok && len(os) == nsp {
		for _, d := range os {
			out = append(out, shapes.Known(d))
		}
		c.Set(0, out, "")
		return
	}
	kernel, _ := c.AttrInts("kernel_shape")
	if kernel == nil {
		for _, d := range w[2:] {
			kernel = append(kernel, d.Value)
		}
	}
	strides := c.AttrIntsOr("strides", nsp, 1)
	dil := c.AttrIntsOr("dilations", nsp, 1)
	pads := c.AttrIntsOr("pads", 2*nsp, 0)
	opad := c.AttrIntsOr("output_padding", nsp, 0)
	autoPad := c.AttrString("auto_pad", "NOTSET")
	for i := 0; i < nsp; i++ {
		d := x[2+i]
		if !shapes.IsKnown(d) || kernel[i] < 0 {
			out = append(out, shapes.Unknown())
			continue
		}
		if autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER" {
			out = append(out, shapes.Known(d.Value*strides[i]))
			continue
		}
		o := strides[i]*(d.Value-1) + opad[i] + (kernel[i]-1)*dil[i] + 1 - pads[i] - pads[i+nsp]
		out = append(out, shapes.Known(o))
	}
	c.Set(0, out, "")
}
