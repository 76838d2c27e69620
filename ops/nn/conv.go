package nn

import (
	"math"

	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/ops/window"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Conv-1 and Conv-11 differ only in how the spec words auto_pad (11 made
// explicit pads and SAME_* agree with the rest of the ops); Conv-22 adds
// bfloat16. One implementation serves all three.
func init() {
	op.Register("Conv", []int{1, 11, 22}, buildConv)
	shapes.Register("", "Conv", shapes.Conv)
	op.Register("ConvInteger", []int{10}, buildConvInteger)
	shapes.Register("", "ConvInteger", shapes.Conv)
	op.Register("QLinearConv", []int{10}, buildQLinearConv)
}

// convAttrs are Conv's and ConvTranspose's attributes, parsed once by
// ops/window; the kernels expose the parsed *window.Attrs (op.AttrsKernel),
// from which the WebGPU kernels lower the node.
type convAttrs struct {
	win   *window.Attrs
	group int
}

func parseConv(n *op.Node) (*convAttrs, error) {
	w, err := window.Parse(n)
	if err != nil {
		return nil, err
	}
	return &convAttrs{win: w, group: w.Group}, nil
}

// convShapes validates X (N,C,spatial...) and W (M,C/group,k...) and
// resolves the output geometry.
type convShapes struct {
	n, c, m int
	geom    *kernels.ConvGeom
	yShape  []int
}

func (c *convAttrs) shapes(x, w []int) (*convShapes, error) {
	if len(x) < 3 {
		return nil, op.Errorf("Conv input must have rank ≥ 3 (N, C, spatial...), got shape %v", x)
	}
	if len(w) != len(x) {
		return nil, op.Errorf("Conv weight rank %d differs from input rank %d", len(w), len(x))
	}
	s := &convShapes{n: x[0], c: x[1], m: w[0]}
	if s.c != w[1]*c.group {
		return nil, op.Errorf("Conv input has %d channels; weight %v with group %d expects %d", s.c, w, c.group, w[1]*c.group)
	}
	if s.m%c.group != 0 {
		return nil, op.Errorf("Conv output channels %d not divisible by group %d", s.m, c.group)
	}
	kernel, err := c.win.WeightKernel(w)
	if err != nil {
		return nil, err
	}
	g, err := c.win.Forward(x[2:], kernel)
	if err != nil {
		return nil, err
	}
	s.geom = convGeom(g)
	s.yShape = append([]int{s.n, s.m}, g.Out...)
	return s, nil
}

func buildConv(n *op.Node) (any, error) {
	c, err := parseConv(n)
	if err != nil {
		return nil, err
	}
	f, err := parseFusion(n)
	if err != nil {
		return nil, err
	}
	// Constant float weights are prepared once, here: read in place by the
	// GEMM, or Winograd-transformed, a form that replaces them (the plan
	// may then release the constant, op.ConstReleaser).
	wc := n.ConstInput(1)
	packed := c.packWeights(wc)
	var release func()
	var constShape []int // W's shape, for runs after the plan released W
	if packed != nil && packed.Winograd() && wc.DType() == tensor.Float {
		constShape = wc.Shape()
		release = func() { packed.W = nil }
	}
	var plans planCache[*convShapes]
	// SplitOf (op.SplittingKernel): float convolutions split where
	// kernels.Conv can compute ranges of channels or pixels exactly.
	split := func(in []*tensor.Tensor, parts int) op.Split {
		in, _, err := f.split(in)
		if err != nil || len(in) < 2 || in[0] == nil || !tensor.StoredAsF32(in[0].DType()) || (in[1] == nil && constShape == nil) {
			return op.Split{}
		}
		x, w, wShape := in[0], in[1], constShape
		if w != nil {
			wShape = w.Shape()
			if !tensor.StoredAsF32(w.DType()) {
				return op.Split{}
			}
		}
		s, ok := plans.get(x.Shape(), wShape, nil)
		if !ok {
			if s, err = c.shapes(x.Shape(), wShape); err != nil {
				return op.Split{}
			}
		}
		cs := kernels.ConvSplitOf(c.weightsFor(packed, w, s), &kernels.ConvArgs{N: s.n, C: s.c, Geom: s.geom}, parts)
		if cs.Align == 0 {
			return op.Split{}
		}
		out := int64(s.n) * int64(s.m) * int64(s.geom.OutSize())
		return op.Split{Pixels: cs.Pixels, Units: cs.Units, Align: cs.Align, MACs: out * int64(s.c/c.group*s.geom.KernelSize()), OutBytes: 4 * out}
	}
	return convKernel{releasingKernel{fusingKernel{op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		in, r, err := f.split(in)
		if err != nil {
			return nil, err
		}
		if len(in) < 2 || in[0] == nil || (in[1] == nil && constShape == nil) {
			return nil, op.Errorf("Conv needs X and W")
		}
		x, w, b := in[0], in[1], optIn(in, 2)
		// W is nil once the plan released it (the kernel runs from packed).
		wShape, wType := constShape, tensor.Float
		if w != nil {
			wShape, wType = w.Shape(), w.DType()
		}
		if !isFloatish(x.DType()) || wType != x.DType() || (b != nil && b.DType() != x.DType()) {
			return nil, op.Errorf("Conv needs matching float inputs, got %s/%s", x.DType(), wType)
		}
		s, ok := plans.get(x.Shape(), wShape, nil)
		if !ok {
			if s, err = c.shapes(x.Shape(), wShape); err != nil {
				return nil, err
			}
			plans.put(x.Shape(), wShape, nil, s)
		}
		if b != nil && b.Len() != s.m {
			return nil, op.Errorf("Conv bias has %d elements, expected %d", b.Len(), s.m)
		}
		if err := checkResidual(r, x.DType(), s.yShape); err != nil {
			return nil, err
		}
		y := ctx.New(x.DType(), s.yShape...)
		if x.DType() == tensor.Double {
			col, err := colSize(ctx, c, s)
			if err != nil {
				return nil, err
			}
			var bd []float64
			if b != nil {
				bd = b.F64()
			}
			if err := convForward(x.F64(), w.F64(), bd, c.group, s, y.F64(), make([]float64, col), ctx.Checkpoint); err != nil {
				return nil, err
			}
			f.applySeparately(y, r)
			return ctx.One(y), nil
		}
		cw := c.weightsFor(packed, w, s)
		args := &kernels.ConvArgs{N: s.n, C: s.c, Geom: s.geom, X: x.F32(), Y: y.F32(), Checkpoint: ctx.CheckpointFunc()}
		if ctx.Part.Pixels {
			args.PixLo, args.PixHi = ctx.Part.Lo, ctx.Part.Hi
		} else {
			args.Lo, args.Hi = ctx.Part.Lo, ctx.Part.Hi
		}
		if b != nil {
			args.Bias = b.F32()
		}
		if f.inLoop(x.DType()) {
			args.Residual, args.Act, args.Alpha, args.Beta = f.epilogue(r)
		}
		if err := kernels.Conv(cw, args); err != nil {
			return nil, err
		}
		if !f.inLoop(x.DType()) {
			f.applySeparately(y, r)
		}
		return ctx.One(y), nil
	}), 1, 3}, release, c.win}, split}, nil
}

// convKernel is the float Conv's kernel: it splits by output channels or
// pixels, as kernels.ConvSplitOf says (op.SplittingKernel).
type convKernel struct {
	releasingKernel
	split func(in []*tensor.Tensor, parts int) op.Split
}

// SplitOf implements op.SplittingKernel.
func (k convKernel) SplitOf(in []*tensor.Tensor, parts int) op.Split { return k.split(in, parts) }

// weightsFor returns the weights a run computes with: the packed constant,
// or w wrapped as it is when it is fed (or differs from the constant).
func (c *convAttrs) weightsFor(packed *kernels.ConvWeights, w *tensor.Tensor, s *convShapes) *kernels.ConvWeights {
	if w != nil && (packed == nil || !sameData(packed.W, w.F32()) || packed.M != s.m) {
		return kernels.NewConvWeights(w.F32(), s.m, c.group, s.c/c.group*s.geom.KernelSize(), false)
	}
	return packed
}

// packWeights packs a constant float weight tensor for the GEMM, or returns
// nil when w is absent, not float or malformed (the run reports the error).
func (c *convAttrs) packWeights(w *tensor.Tensor) *kernels.ConvWeights {
	if w == nil || !w.DType().IsFloat() || w.Rank() < 3 {
		return nil
	}
	shape := w.Shape()
	m := shape[0]
	if m <= 0 || m%c.group != 0 {
		return nil
	}
	kdim := tensor.MustSize(shape[1:])
	cw := kernels.NewConvWeights(w.F32(), m, c.group, kdim, false)
	if c.winograd(shape) {
		cw.PackWinograd()
	}
	return cw
}

// winograd reports whether a Conv with weights of this shape will run as
// Winograd F(2,3) (kernels.WinogradFits, decided from the attributes: the
// geometry's kernel, strides and dilations do not depend on the input).
func (c *convAttrs) winograd(w []int) bool {
	if len(w) != 4 || c.group != 1 {
		return false
	}
	one := func(v []int) bool {
		for _, x := range v {
			if x != 1 {
				return false
			}
		}
		return v == nil || len(v) == 2
	}
	g := &kernels.ConvGeom{In: []int{0, 0}, Kernel: w[2:], Strides: []int{1, 1}, Dilations: []int{1, 1}}
	return one(c.win.Strides) && one(c.win.Dilations) && kernels.WinogradFits(g, c.group, w[1], w[0])
}

// sameData reports whether two slices are the same storage.
func sameData(a, b []float32) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// colSize returns the number of scratch elements the im2col buffer of the
// float64 path needs, checked against the memory budget.
func colSize(ctx *op.Context, c *convAttrs, s *convShapes) (int, error) {
	if kernels.Pointwise(s.geom) {
		return 0, nil
	}
	return ctx.CheckShape(tensor.Double, []int{s.c / c.group * s.geom.KernelSize(), s.geom.OutSize()})
}

// convForward is the float64 Conv on raw slices (Conv on doubles and the
// exact integer convolutions): per image and group, an im2col (skipped for
// pointwise convolutions) followed by a GEMM of the group's weights with
// the column matrix, then the bias. float32 convolutions use kernels.Conv,
// which never builds the full column matrix.
//
// The GEMM runs in blocks of output pixels with a checkpoint before each block:
// one large Conv can take a good part of a second in WebAssembly, and the
// checkpoint is where the page's event loop gets a turn and an abort lands.
func convForward[T kernels.Float](x, w, b []T, group int, s *convShapes, y []T, col []T, checkpoint func() error) error {
	cg, mg := s.c/group, s.m/group
	is, os, ks := s.geom.InSize(), s.geom.OutSize(), s.geom.KernelSize()
	kdim := cg * ks
	// About 4 M multiply-adds per block (a few ms even in slow WebAssembly),
	// and never fewer than 256 pixels, so the GEMM keeps its efficiency.
	block := max(256, (1<<22)/max(mg*kdim, 1))
	pw := kernels.Pointwise(s.geom)
	for n := 0; n < s.n; n++ {
		for g := 0; g < group; g++ {
			xg := x[(n*s.c+g*cg)*is : (n*s.c+(g+1)*cg)*is]
			yg := y[(n*s.m+g*mg)*os : (n*s.m+(g+1)*mg)*os]
			wg := w[g*mg*kdim : (g+1)*mg*kdim]
			src := xg
			if !pw {
				kernels.Im2col(xg, cg, s.geom, col)
				src = col
			}
			for j := 0; j < os; j += block {
				if err := checkpoint(); err != nil {
					return err
				}
				kernels.Gemm(false, false, mg, min(block, os-j), kdim, 1, wg, kdim, src[j:], os, 0, yg[j:], os)
			}
			if b != nil {
				for m := 0; m < mg; m++ {
					bv := b[g*mg+m]
					row := yg[m*os : (m+1)*os]
					for i := range row {
						row[i] += bv
					}
				}
			}
		}
	}
	return nil
}

// zeroPoint reads an optional zero-point input as float64 values: nil
// (absent) means 0, a single value applies to everything, otherwise one value
// per output channel (per-axis quantisation of W).
func zeroPoint(t *tensor.Tensor, perChannel int, what string) ([]float64, error) {
	if t == nil {
		return []float64{0}, nil
	}
	v, err := t.Float64s()
	if err != nil {
		return nil, op.Errorf("%s: %v", what, err)
	}
	if len(v) != 1 && len(v) != perChannel {
		return nil, op.Errorf("%s has %d elements, expected 1 or %d", what, len(v), perChannel)
	}
	return v, nil
}

// intConv returns an integer convolution's exact int32 accumulators
// (ConvInteger's output; QLinearConv requantizes them): per image and
// group, in blocks of output positions, an im2col of the block minus the
// input's zero point (kernels.Im2colQ) times the weights minus theirs
// (kernels.GemmI16). Besides the output it holds one block of columns and
// the weights as int16, whatever the input's size. (It used to convert
// both tensors to float64 and build the whole column matrix: 1.2 GB
// beside a 64×512×512 uint8 map, counted by no memory check, which ended
// the wasm runtime.)
func intConv(ctx *op.Context, c *convAttrs, x, xzp, w, wzp *tensor.Tensor) (*tensor.Tensor, *convShapes, error) {
	return intConvPrepared(ctx, c, x, xzp, w, wzp, nil)
}

// intConvPrepared is intConv running from q, the prepared weights, when
// w is q's constant (or nil, released).
func intConvPrepared(ctx *op.Context, c *convAttrs, x, xzp, w, wzp *tensor.Tensor, q *quantWeights) (*tensor.Tensor, *convShapes, error) {
	prepared := q.is(w)
	var wShape []int
	if prepared {
		wShape = q.shape
	} else {
		wShape = w.Shape()
	}
	s, err := c.shapes(x.Shape(), wShape)
	if err != nil {
		return nil, nil, err
	}
	xz, err := quantZeroPoints(xzp, x.DType(), 1, "x_zero_point")
	if err != nil {
		return nil, nil, err
	}
	var ws []int16
	if prepared {
		ws = q.ws
	} else if ws, err = convWeightsI16(w, wzp); err != nil {
		return nil, nil, err
	}
	y := ctx.New(tensor.Int32, s.yShape...)
	switch xd := x.Data().(type) {
	case []uint8:
		err = intConvBlocks(ctx, xd, xz[0], ws, c.group, s, y.I32())
	case []int8:
		err = intConvBlocks(ctx, xd, xz[0], ws, c.group, s, y.I32())
	}
	return y, s, err
}

// convWeightsI16 returns w (M, C/group, k…) minus its zero points (one, or
// one per output channel) as int16.
func convWeightsI16(w, wzp *tensor.Tensor) ([]int16, error) {
	m := 0
	if w.Rank() > 0 {
		m = w.Shape()[0]
	}
	wz, err := quantZeroPoints(wzp, w.DType(), m, "w_zero_point")
	if err != nil {
		return nil, err
	}
	ws := make([]int16, w.Len())
	per := w.Len() / max(m, 1)
	for m := range m {
		z := wz[min(m, len(wz)-1)]
		switch wd := w.Data().(type) {
		case []uint8:
			kernels.SubZeroPoint(ws[m*per:(m+1)*per], wd[m*per:(m+1)*per], z)
		case []int8:
			kernels.SubZeroPoint(ws[m*per:(m+1)*per], wd[m*per:(m+1)*per], z)
		}
	}
	return ws, nil
}

// prepareWeights prepares constant weights and weight zero points
// (inputs wi and zi) once, or returns nil when they are fed at run time
// or malformed (the run reports the error).
func (c *convAttrs) prepareWeights(n *op.Node, wi, zi int) *quantWeights {
	w := n.ConstInput(wi)
	wzp, ok := constOrAbsent(n, zi)
	if w == nil || !ok || w.Rank() < 3 {
		return nil
	}
	if m := w.Shape()[0]; m <= 0 || m%c.group != 0 {
		return nil
	}
	ws, err := convWeightsI16(w, wzp)
	if err != nil {
		return nil
	}
	return &quantWeights{src: w, shape: w.Shape(), dt: w.DType(), ws: ws}
}

// intConvBlocks is intConv's loop over images, groups and blocks of
// output positions, with a checkpoint before each block (about 4 M
// multiply-adds, as convForward's).
func intConvBlocks[T kernels.Quant](ctx *op.Context, x []T, xz int16, w []int16, group int, s *convShapes, y []int32) error {
	cg, mg := s.c/group, s.m/group
	is, os, ks := s.geom.InSize(), s.geom.OutSize(), s.geom.KernelSize()
	kdim := cg * ks
	block := min(os, max(256, (1<<22)/max(mg*kdim, 1)))
	col := make([]int16, kdim*block)
	for n := 0; n < s.n; n++ {
		for g := 0; g < group; g++ {
			xg := x[(n*s.c+g*cg)*is : (n*s.c+(g+1)*cg)*is]
			yg := y[(n*s.m+g*mg)*os : (n*s.m+(g+1)*mg)*os]
			wg := w[g*mg*kdim : (g+1)*mg*kdim]
			for j := 0; j < os; j += block {
				if err := ctx.Checkpoint(); err != nil {
					return err
				}
				nb := min(block, os-j)
				kernels.Im2colQ(xg, xz, cg, s.geom, j, nb, col)
				kernels.GemmI16(mg, nb, kdim, wg, kdim, col, nb, yg[j:], os)
			}
		}
	}
	return nil
}

// quantZeroPoints reads an optional zero-point input of a quantized op:
// nil (absent) means 0, else it must have the data's dtype (int8 or
// uint8) and one value, or one per channel when perChannel > 1.
func quantZeroPoints(t *tensor.Tensor, dt tensor.DType, perChannel int, what string) ([]int16, error) {
	if dt != tensor.Uint8 && dt != tensor.Int8 {
		return nil, op.Errorf("integer convolution and matrix product need int8/uint8 inputs, got %s", dt)
	}
	if t == nil {
		return []int16{0}, nil
	}
	if t.DType() != dt {
		return nil, op.Errorf("%s is %s, its data %s", what, t.DType(), dt)
	}
	if t.Len() != 1 && t.Len() != perChannel {
		return nil, op.Errorf("%s has %d elements, expected 1 or %d", what, t.Len(), perChannel)
	}
	out := make([]int16, t.Len())
	switch d := t.Data().(type) {
	case []uint8:
		kernels.SubZeroPoint(out, d, 0)
	case []int8:
		kernels.SubZeroPoint(out, d, 0)
	}
	return out, nil
}

func buildConvInteger(n *op.Node) (any, error) {
	c, err := parseConv(n)
	if err != nil {
		return nil, err
	}
	// x_zero_point is input 2, w_zero_point 3: prepared weights are
	// inputs 1 and 3.
	q := c.prepareWeights(n, 1, 3)
	k := op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || (in[1] == nil && !q.is(nil)) {
			return nil, op.Errorf("ConvInteger needs x and w")
		}
		y, _, err := intConvPrepared(ctx, c, in[0], optIn(in, 2), in[1], optIn(in, 3), q)
		if err != nil {
			return nil, err
		}
		return ctx.One(y), nil
	})
	return q.releaser(k, 1), nil
}

func optIn(in []*tensor.Tensor, i int) *tensor.Tensor {
	if i < len(in) {
		return in[i]
	}
	return nil
}

// scaleValues reads a float scale input (float32/float16/bfloat16/float64).
func scaleValues(t *tensor.Tensor, what string) ([]float64, error) {
	if t == nil {
		return nil, op.Errorf("%s is required", what)
	}
	v, err := t.Float64s()
	if err != nil {
		return nil, op.Errorf("%s: %v", what, err)
	}
	if len(v) == 0 {
		return nil, op.Errorf("%s is empty", what)
	}
	return v, nil
}

// quantRange is the representable range of an integer quantised type.
func quantRange(dt tensor.DType) (float64, float64, bool) {
	switch dt {
	case tensor.Uint8:
		return 0, 255, true
	case tensor.Int8:
		return -128, 127, true
	case tensor.Uint16:
		return 0, 65535, true
	case tensor.Int16:
		return -32768, 32767, true
	case tensor.Int32:
		return math.MinInt32, math.MaxInt32, true
	case tensor.Uint4:
		return 0, 15, true
	case tensor.Int4:
		return -8, 7, true
	case tensor.Uint2:
		return 0, 3, true
	case tensor.Int2:
		return -2, 1, true
	}
	return 0, 0, false
}

// storeQuantized rounds (half to even), saturates and stores v into t's
// integer storage at index i.
func storeQuantized(t *tensor.Tensor, i int, v float64, lo, hi float64) {
	v = math.RoundToEven(v)
	if v < lo {
		v = lo
	} else if v > hi {
		v = hi
	}
	switch d := t.Data().(type) {
	case []uint8:
		d[i] = uint8(v)
	case []int8:
		d[i] = int8(v)
	case []uint16:
		d[i] = uint16(v)
	case []int16:
		d[i] = int16(v)
	case []int32:
		d[i] = int32(v)
	}
}

func buildQLinearConv(n *op.Node) (any, error) {
	c, err := parseConv(n)
	if err != nil {
		return nil, err
	}
	q := c.prepareWeights(n, 3, 5)
	// With constant weights, scales and output zero point, the
	// requantization's per-channel multipliers too (and a constant bias).
	var rq *requant
	var cbias []float64
	if q != nil {
		in := make([]*tensor.Tensor, 9)
		ok := true
		for _, i := range []int{1, 4, 6, 7, 8} {
			var isConst bool
			in[i], isConst = constOrAbsent(n, i)
			ok = ok && isConst
		}
		in[0] = n.ConstInput(0)
		if ok && (in[0] != nil || in[7] != nil) {
			rq, _ = qconvRequant(in, q.shape[0])
			if b := in[8]; b != nil && rq != nil {
				if cbias, err = b.Float64s(); err != nil || len(cbias) != q.shape[0] {
					rq, cbias = nil, nil
				}
			}
		}
	}
	k := op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 7 || in[0] == nil || (in[3] == nil && !q.is(nil)) {
			return nil, op.Errorf("QLinearConv needs x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale")
		}
		prepared := q.is(in[3])
		accT, s, err := intConvPrepared(ctx, c, in[0], in[2], in[3], in[5], q)
		if err != nil {
			return nil, err
		}
		acc := accT.I32()
		r, bias := rq, cbias
		if !prepared || r == nil {
			if r, err = qconvRequant(in, s.m); err != nil {
				return nil, err
			}
			bias = nil
			if b := optIn(in, 8); b != nil {
				if bias, err = b.Float64s(); err != nil || len(bias) != s.m {
					return nil, op.Errorf("QLinearConv bias must be int32 of length %d", s.m)
				}
			}
		}
		y := ctx.New(r.outDT, s.yShape...)
		os := s.geom.OutSize()
		for b := range s.n {
			for m := range s.m {
				off := (b*s.m + m) * os
				var bm float64
				if bias != nil {
					bm = bias[m]
				}
				requantRow(y, off, acc[off:off+os], bm, r.mult[m], r.yz, r.lo, r.hi, bias != nil)
			}
		}
		return ctx.One(y), nil
	})
	return q.releaser(k, 3), nil
}

// qconvRequant reads QLinearConv's scales (inputs 1, 4, 6) and output zero
// point (7, optional; its dtype, else x's, is the output's) for m output
// channels: multiplier xs·ws[m]/ys per channel, computed as each output
// element's used to be.
func qconvRequant(in []*tensor.Tensor, m int) (*requant, error) {
	xs, err := scaleValues(in[1], "x_scale")
	if err != nil {
		return nil, err
	}
	wsc, err := scaleValues(in[4], "w_scale")
	if err != nil {
		return nil, err
	}
	ys, err := scaleValues(in[6], "y_scale")
	if err != nil {
		return nil, err
	}
	if len(wsc) != 1 && len(wsc) != m {
		return nil, op.Errorf("w_scale has %d elements, expected 1 or %d", len(wsc), m)
	}
	yzp := optIn(in, 7)
	yz, err := zeroPoint(yzp, 1, "y_zero_point")
	if err != nil {
		return nil, err
	}
	outDT := tensor.Undefined
	if in[0] != nil {
		outDT = in[0].DType()
	}
	if yzp != nil {
		outDT = yzp.DType()
	}
	lo, hi, ok := quantRange(outDT)
	if !ok || (outDT != tensor.Uint8 && outDT != tensor.Int8) {
		return nil, op.Errorf("QLinearConv output type %s is not int8/uint8", outDT)
	}
	r := &requant{mult: make([]float64, m), yz: yz[0], lo: lo, hi: hi, outDT: outDT}
	for i := range r.mult {
		r.mult[i] = xs[0] * wsc[min(i, len(wsc)-1)] / ys[0]
	}
	return r, nil
}
