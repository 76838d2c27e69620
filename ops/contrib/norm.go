package contrib

import (
	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/ops/nn"
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// The layer norms of onnxruntime's transformer fusions, over the last dim
// (SimplifiedLayerNormalization: from axis on). Each row is normalised by
// ops/nn's NormRow, the code of LayerNormalization and RMSNormalization:
// statistics accumulated in float64 (onnxruntime's CPU kernels accumulate
// Σx and Σx² in float32 and take E[x²] − E[x]², which loses digits when
// |mean| ≫ deviation; both agree within float32 tolerance otherwise).
//
//   - SkipLayerNormalization(input, skip, gamma, beta?, bias?): s = input +
//     skip (+ bias); output = LayerNorm(s)·gamma + beta; optional outputs
//     mean, inv_std_var (shape of input with the last dim 1) and
//     input_skip_bias_sum = s. epsilon defaults to 1e-12.
//   - SkipSimplifiedLayerNormalization(input, skip, gamma, bias?): the RMS
//     form, no beta; mean is 0.
//   - SimplifiedLayerNormalization(X, scale): RMSNorm over dims [axis, rank)
//     with outputs Y and inv_std_var; epsilon 1e-5. onnxruntime registers it
//     in the default ONNX domain (version 1, not an ONNX spec op), where
//     exported models have it; gort registers it there and in com.microsoft.
//
// skip has input's shape or its trailing dims (leading 1s allowed), and
// repeats over the leading ones.
func init() {
	op.Default.Register(Domain, "SkipLayerNormalization", []int{1}, func(n *op.Node) (any, error) { return buildSkipNorm(n, false) })
	shapes.Register(Domain, "SkipLayerNormalization", inferSkipNorm)
	op.Default.Register(Domain, "SkipSimplifiedLayerNormalization", []int{1}, func(n *op.Node) (any, error) { return buildSkipNorm(n, true) })
	shapes.Register(Domain, "SkipSimplifiedLayerNormalization", inferSkipNorm)
	op.Default.Register(Domain, "SimplifiedLayerNormalization", []int{1}, buildSimplifiedNorm)
	shapes.Register(Domain, "SimplifiedLayerNormalization", inferSimplifiedNorm)
	op.Default.Register("", "SimplifiedLayerNormalization", []int{1}, buildSimplifiedNorm)
	shapes.Register("", "SimplifiedLayerNormalization", inferSimplifiedNorm)
}

func buildSkipNorm(n *op.Node, rms bool) (any, error) {
	name := n.OpType
	eps, err := n.Float("epsilon", 1e-12)
	if err != nil {
		return nil, err
	}
	if eps < 0 {
		return nil, n.Errorf("epsilon must be ≥ 0, got %g", eps)
	}
	betaAt, biasAt := 3, 4
	if rms {
		betaAt, biasAt = -1, 3
	}
	return op.KernelFunc(func(ctx *op.Context, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, skip, gamma := in(ins, 0), in(ins, 1), in(ins, 2)
		if x == nil || skip == nil || gamma == nil {
			return nil, op.Errorf("%s needs input, skip and gamma", name)
		}
		var beta *tensor.Tensor
		if betaAt >= 0 {
			beta = in(ins, betaAt)
		}
		bias := in(ins, biasAt)
		if err := checkFloat(name, x, skip, gamma, beta, bias); err != nil {
			return nil, err
		}
		xs := x.Shape()
		if len(xs) != 2 && len(xs) != 3 {
			return nil, op.Errorf("%s: input must have rank 2 or 3, got %v", name, xs)
		}
		h := xs[len(xs)-1]
		if err := checkSkip(name, skip.Shape(), xs); err != nil {
			return nil, err
		}
		for _, p := range []struct {
			what string
			t    *tensor.Tensor
		}{{"gamma", gamma}, {"beta", beta}, {"bias", bias}} {
			if err := checkVector(name, p.what, p.t, h); err != nil {
				return nil, err
			}
		}
		y := ctx.New(x.DType(), xs...)
		stat := statShapeOf(xs, len(xs)-1)
		outs := []*tensor.Tensor{y, nil, nil, nil}
		for i := 1; i <= 2; i++ {
			if n.HasOutput(i) {
				outs[i] = ctx.New(statDType(x), stat...)
			}
		}
		sum := ctx.New(x.DType(), xs...)
		if n.HasOutput(3) {
			outs[3] = sum
		}
		if x.DType() == tensor.Double {
			skipNorm(y.F64(), sum.F64(), x.F64(), skip.F64(), f64s(bias), gamma.F64(), f64s(beta), h, float64(eps), rms, outs[1], outs[2])
		} else {
			skipNorm(y.F32(), sum.F32(), x.F32(), skip.F32(), f32s(bias), gamma.F32(), f32s(beta), h, float64(eps), rms, outs[1], outs[2])
		}
		return outs[:min(len(outs), len(n.Outputs))], nil
	}), nil
}

// skipNorm computes the rows of s = x + skip (+ bias), into sum, and their
// normalisation into y; mean and inv (when not nil) get each row's
// statistics.
func skipNorm[T kernels.Float](y, sum, x, skip, bias, gamma, beta []T, h int, eps float64, rms bool, mean, inv *tensor.Tensor) {
	if h == 0 {
		return
	}
	for r := 0; r*h < len(x); r++ {
		o := r * h
		xr, sr, yr := x[o:o+h], sum[o:o+h], y[o:o+h]
		kr := skip[o%len(skip):][:h]
		for j, v := range xr {
			s := v + kr[j]
			if bias != nil {
				s += bias[j]
			}
			sr[j] = s
		}
		m, iv := nn.NormRow(yr, sr, eps, rms, gamma, beta)
		setStat(mean, r, m)
		setStat(inv, r, iv)
	}
}

// checkSkip accepts a skip of input's shape or of its trailing dims after
// leading 1s ((S, H) or (1, S, H) for a (B, S, H) input).
func checkSkip(name string, ss, xs []int) error {
	for len(ss) > 0 && ss[0] == 1 && len(ss) > 1 {
		ss = ss[1:]
	}
	ok := len(ss) >= 1 && len(ss) <= len(xs)
	for i := 1; ok && i <= len(ss); i++ {
		ok = ss[len(ss)-i] == xs[len(xs)-i]
	}
	if !ok {
		return op.Errorf("%s: skip of shape %v does not fit input %v", name, ss, xs)
	}
	return nil
}

func buildSimplifiedNorm(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	axis := a.Int("axis", -1)
	eps := float64(a.Float("epsilon", 1e-5))
	a.Int("stash_type", 1) // statistics are float64 whatever it asks (see the file comment)
	if a.Err != nil {
		return nil, a.Err
	}
	return op.KernelFunc(func(ctx *op.Context, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, scale := in(ins, 0), in(ins, 1)
		if x == nil || scale == nil {
			return nil, op.Errorf("SimplifiedLayerNormalization needs X and scale")
		}
		if err := checkFloat("SimplifiedLayerNormalization", x, scale); err != nil {
			return nil, err
		}
		ax, err := opsutil.NormAxis(axis, x.Rank())
		if err != nil {
			return nil, err
		}
		d := opsutil.Product(x.Shape()[ax:])
		if scale.Len() != d {
			return nil, op.Errorf("SimplifiedLayerNormalization: scale has %d elements, X %v has %d from axis %d", scale.Len(), x.Shape(), d, ax)
		}
		y := ctx.New(x.DType(), x.Shape()...)
		var inv *tensor.Tensor
		if n.HasOutput(1) {
			inv = ctx.New(statDType(x), statShapeOf(x.Shape(), ax)...)
		}
		if d > 0 {
			if x.DType() == tensor.Double {
				rmsRows(y.F64(), x.F64(), scale.F64(), d, eps, inv)
			} else {
				rmsRows(y.F32(), x.F32(), scale.F32(), d, eps, inv)
			}
		}
		return []*tensor.Tensor{y, inv}[:min(2, len(n.Outputs))], nil
	}), nil
}

func rmsRows[T kernels.Float](y, x, scale []T, d int, eps float64, inv *tensor.Tensor) {
	for r := 0; r*d < len(x); r++ {
		_, iv := nn.NormRow(y[r*d:(r+1)*d], x[r*d:(r+1)*d], eps, true, scale, nil)
		setStat(inv, r, iv)
	}
}

// statDType is the type of the statistics outputs: float32 (the schemas'
// U), float64 for a float64 input.
func statDType(x *tensor.Tensor) tensor.DType {
	if x.DType() == tensor.Double {
		return tensor.Double
	}
	return tensor.Float
}

func statShapeOf(xs []int, axis int) []int {
	s := append([]int(nil), xs...)
	for i := axis; i < len(s); i++ {
		s[i] = 1
	}
	return s
}

func setStat(t *tensor.Tensor, i int, v float64) {
	if t == nil {
		return
	}
	if t.DType() == tensor.Double {
		t.F64()[i] = v
	} else {
		t.F32()[i] = float32(v)
	}
}

func inferSkipNorm(c *shapes.Ctx) {
	x := c.Shape(0)
	elem := tensor.DType(0)
	if in := c.Input(0); in != nil {
		elem = in.Type.Elem
	}
	statElem := tensor.Float
	if elem == tensor.Double {
		statElem = tensor.Double
	}
	for i := 0; i < c.NumOut(); i++ {
		switch i {
		case 1, 2:
			c.SetElem(i, statElem)
			if x != nil {
				c.Set(i, statShape(x, len(x)-1), "")
			} else {
				c.Set(i, nil, "")
			}
		default:
			if elem != 0 {
				c.SetElem(i, elem)
			}
			c.Set(i, x, "")
		}
	}
}

// normOutput gives output 0 of a layer norm X's type and shape and returns
// X's shape and the type of the statistics outputs (float32; float64 for a
// float64 X).
func normOutput(c *shapes.Ctx) (x []graph.Dim, statElem tensor.DType) {
	x = c.Shape(0)
	elem := tensor.DType(0)
	if in := c.Input(0); in != nil {
		elem = in.Type.Elem
	}
	if elem != 0 {
		c.SetElem(0, elem)
	}
	c.Set(0, x, "")
	if elem == tensor.Double {
		return x, tensor.Double
	}
	return x, tensor.Float
}

func inferSimplifiedNorm(c *shapes.Ctx) {
	x, statElem := normOutput(c)
	c.SetElem(1, statElem)
	if x == nil {
		c.Set(1, nil, "")
		return
	}
	axis, ok := c.Axis(c.AttrInt("axis", -1), len(x))
	if !ok {
		return
	}
	c.Set(1, statShape(x, axis), "")
}
