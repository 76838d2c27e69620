package resample

import (
	"math"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Resize", []int{10, 11, 13, 18, 19}, buildResize)
	shapes.Register("", "Resize", inferResize(false))
	op.Register("Upsample", []int{1, 7, 9, 10}, buildUpsample)
	shapes.Register("", "Upsample", inferResize(true))
}

// resizer is one Resize or Upsample node with its attributes parsed.
type resizer struct {
	op       string
	version  int
	opt      Options
	extrap   float64
	axes     []int64 // Resize-18+ axes attribute (nil: all axes)
	policy   string  // keep_aspect_ratio_policy
	attrScal []float32
	// legacy marks Upsample and Resize-10, whose only size rule is
	// floor(in·scale) and whose sampling is asymmetric (x_original = x/scale)
	// with floor rounding in nearest mode: the rule Upsample-1's example
	// shows (each input element repeated scale times).
	legacy bool
}

func parseMode(n *op.Node, s string, legacy bool) (Mode, error) {
	switch s {
	case "nearest":
		return Nearest, nil
	case "linear":
		return Linear, nil
	case "bilinear", "trilinear":
		if legacy { // Upsample-1 named it bilinear; older exporters kept the name
			return Linear, nil
		}
	case "cubic":
		if !legacy {
			return Cubic, nil
		}
	}
	return 0, n.Errorf("mode %q is not supported by %s-%d", s, n.OpType, n.Version)
}

func buildUpsample(n *op.Node) (any, error) {
	r, err := parseUpsample(n)
	if err != nil {
		return nil, err
	}
	return op.WithAttrs(op.KernelFunc(r.run), &Planner{r: r}), nil
}

func parseUpsample(n *op.Node) (*resizer, error) {
	a := &op.Attribs{N: n}
	r := &resizer{op: "Upsample", version: n.Version, legacy: true}
	mode := a.String("mode", "nearest")
	switch n.Version {
	case 1:
		h, w := a.Float("height_scale", 0), a.Float("width_scale", 0)
		if a.Err == nil && (!n.Has("height_scale") || !n.Has("width_scale")) {
			return nil, n.Errorf("height_scale and width_scale are required")
		}
		r.attrScal = []float32{1, 1, h, w}
	case 7:
		if !n.Has("scales") {
			return nil, n.Errorf("attribute scales is required")
		}
		r.attrScal = a.Floats("scales")
	}
	if a.Err != nil {
		return nil, a.Err
	}
	m, err := parseMode(n, mode, true)
	if err != nil {
		return nil, err
	}
	r.opt = Options{Mode: m, Coord: Asymmetric, Nearest: Floor}
	return r, nil
}

func buildResize(n *op.Node) (any, error) {
	r, err := parseResize(n)
	if err != nil {
		return nil, err
	}
	return op.WithAttrs(op.KernelFunc(r.run), &Planner{r: r}), nil
}

func parseResize(n *op.Node) (*resizer, error) {
	a := &op.Attribs{N: n}
	r := &resizer{op: "Resize", version: n.Version, legacy: n.Version == 10}
	mode := a.String("mode", "nearest")
	if n.Version == 10 {
		if a.Err != nil {
			return nil, a.Err
		}
		m, err := parseMode(n, mode, true)
		if err != nil || mode != "nearest" && mode != "linear" {
			return nil, n.Errorf("mode %q is not supported by Resize-10", mode)
		}
		r.opt = Options{Mode: m, Coord: Asymmetric, Nearest: Floor}
		return r, nil
	}
	ctm := a.String("coordinate_transformation_mode", "half_pixel")
	nm := a.String("nearest_mode", "round_prefer_floor")
	cubicA := a.Float("cubic_coeff_a", -0.75)
	excl := a.Int("exclude_outside", 0)
	r.extrap = float64(a.Float("extrapolation_value", 0))
	anti := int64(0)
	if n.Version >= 18 {
		anti = a.Int("antialias", 0)
		r.axes = a.Ints("axes")
		r.policy = a.String("keep_aspect_ratio_policy", "stretch")
	}
	if a.Err != nil {
		return nil, a.Err
	}
	m, err := parseMode(n, mode, false)
	if err != nil {
		return nil, err
	}
	cm, ok := coordModeNames[ctm]
	if !ok {
		return nil, n.Errorf("unknown coordinate_transformation_mode %q", ctm)
	}
	nmv, ok := nearestModeNames[nm]
	if !ok {
		return nil, n.Errorf("unknown nearest_mode %q", nm)
	}
	switch r.policy {
	case "", "stretch", "not_larger", "not_smaller":
	default:
		return nil, n.Errorf("unknown keep_aspect_ratio_policy %q", r.policy)
	}
	r.opt = Options{Mode: m, Coord: cm, Nearest: nmv, CubicA: float64(cubicA), ExcludeOutside: excl != 0, Antialias: anti != 0}
	return r, nil
}

// given returns t unless it is absent or empty (an empty tensor is how
// Resize-11 says "not given" for its required roi and scales slots).
func given(in []*tensor.Tensor, i int) *tensor.Tensor {
	if i < len(in) && in[i] != nil && in[i].Len() > 0 {
		return in[i]
	}
	return nil
}

// Specs computes the output shape and the per-axis specs of a Resize or
// Upsample node (exported through the kernel only; tests call it).
func (r *resizer) specs(shape []int, in []*tensor.Tensor) ([]AxisSpec, error) {
	rank := len(shape)
	specs := make([]AxisSpec, rank)
	for d := range specs {
		specs[d] = AxisSpec{In: shape[d], Out: shape[d], Scale: 1, Ratio: true, RoiStart: 0, RoiEnd: 1}
	}
	if r.legacy {
		scales := r.attrScal
		if scales == nil {
			s := given(in, 1)
			if s == nil {
				return nil, op.Errorf("%s needs scales", r.op)
			}
			f, err := s.Float64s()
			if err != nil {
				return nil, op.Errorf("scales: %v", err)
			}
			for _, v := range f {
				scales = append(scales, float32(v))
			}
		}
		if len(scales) != rank {
			return nil, op.Errorf("%d scales for an input of rank %d", len(scales), rank)
		}
		for d, s := range scales {
			sc := float64(s)
			if r.op == "Upsample" && !(sc >= 1) {
				return nil, op.Errorf("Upsample scale %v on axis %d must be >= 1", s, d)
			}
			if !(sc > 0) || math.IsInf(sc, 0) {
				return nil, op.Errorf("scale %v on axis %d must be positive and finite", s, d)
			}
			// output_dimension = floor(input_dimension * scale), exactly: the
			// float32 scale times an integer is exact in float64.
			specs[d] = AxisSpec{In: shape[d], Out: floorSize(float64(shape[d]) * sc), Scale: sc, Length: float64(shape[d]) * sc}
		}
		return specs, nil
	}

	axes := make([]int, rank)
	for i := range axes {
		axes[i] = i
	}
	if r.axes != nil {
		var err error
		if axes, err = opsutil.NormAxes(r.axes, rank); err != nil {
			return nil, err
		}
	}
	roi, scales, sizes := given(in, 1), given(in, 2), given(in, 3)
	if r.opt.Coord == TFCropAndResize && roi != nil {
		v, err := roi.Float64s()
		if err != nil {
			return nil, op.Errorf("roi: %v", err)
		}
		if len(v) != 2*len(axes) {
			return nil, op.Errorf("roi has %d values, expected %d", len(v), 2*len(axes))
		}
		for i, d := range axes {
			specs[d].RoiStart, specs[d].RoiEnd = v[i], v[len(axes)+i]
		}
	}
	switch {
	case scales != nil && sizes != nil:
		return nil, op.Errorf("only one of scales and sizes may be given")
	case scales != nil:
		f, err := scales.Float64s()
		if err != nil {
			return nil, op.Errorf("scales: %v", err)
		}
		if len(f) != len(axes) {
			return nil, op.Errorf("%d scales for %d axes", len(f), len(axes))
		}
		for i, d := range axes {
			sc := f[i]
			if !(sc > 0) || math.IsInf(sc, 0) {
				return nil, op.Errorf("scale %v on axis %d must be positive and finite", sc, d)
			}
			// output_dimension = floor(input_dimension * (roi_end - roi_start) * scale),
			// the roi counting only where it takes effect (tf_crop_and_resize).
			span := specs[d].RoiEnd - specs[d].RoiStart
			if r.opt.Coord != TFCropAndResize {
				span = 1
			}
			specs[d].Length = float64(shape[d]) * span * sc
			specs[d].Out = floorSize(specs[d].Length)
			specs[d].Scale = sc
			specs[d].Ratio = false
		}
	case sizes != nil:
		sz, err := sizes.Int64s()
		if err != nil {
			return nil, op.Errorf("sizes: %v", err)
		}
		if len(sz) != len(axes) {
			return nil, op.Errorf("%d sizes for %d axes", len(sz), len(axes))
		}
		for i, v := range sz {
			if v < 0 {
				return nil, op.Errorf("sizes[%d] = %d is negative", i, v)
			}
		}
		if r.policy == "not_larger" || r.policy == "not_smaller" {
			scale := 0.0
			for i, d := range axes {
				s := float64(sz[i]) / float64(shape[d])
				if i == 0 || (r.policy == "not_larger" && s < scale) || (r.policy == "not_smaller" && s > scale) {
					scale = s
				}
			}
			for _, d := range axes {
				// round_int: nearest integer, halfway cases up.
				specs[d].Length = scale * float64(shape[d])
				specs[d].Out = floorSize(specs[d].Length + 0.5)
				specs[d].Scale = scale
				specs[d].Ratio = false
			}
		} else {
			for i, d := range axes {
				specs[d].Out = int(sz[i])
				specs[d].Scale = float64(sz[i]) / float64(shape[d])
				specs[d].Ratio = true
			}
		}
	default:
		return nil, op.Errorf("Resize needs scales or sizes")
	}
	return specs, nil
}

// floorSize floors a non-negative size, saturating absurd values so that
// the allocation check reports them.
func floorSize(v float64) int {
	if !(v >= 0) {
		return -1
	}
	if v > math.MaxInt32*float64(1<<20) {
		return math.MaxInt64 / 2
	}
	return int(math.Floor(v))
}

// Plans returns the per-axis plans (nil for axes copied unchanged).
func planAll(specs []AxisSpec, opt Options) ([]*AxisPlan, error) {
	plans := make([]*AxisPlan, len(specs))
	for d, s := range specs {
		if s.Out < 0 {
			return nil, op.Errorf("invalid output size on axis %d", d)
		}
		p, err := PlanAxis(s, opt)
		if err != nil {
			return nil, op.Errorf("axis %d: %v", d, err)
		}
		if !p.Identity() {
			plans[d] = p
		}
	}
	return plans, nil
}

func (r *resizer) run(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
	if len(in) == 0 || in[0] == nil {
		return nil, op.Errorf("input X is missing")
	}
	x := in[0]
	specs, err := r.specs(x.Shape(), in)
	if err != nil {
		return nil, err
	}
	outShape := make([]int, len(specs))
	for d, s := range specs {
		outShape[d] = s.Out
	}
	if _, err := ctx.CheckShape(x.DType(), outShape); err != nil {
		return nil, err
	}
	plans, err := planAll(specs, r.opt)
	if err != nil {
		return nil, err
	}
	out, err := Apply(ctx, x, plans, r.opt.Mode, r.extrap)
	return []*tensor.Tensor{out}, err
}

// Apply resamples x by the per-axis plans (nil = axis unchanged). Nearest
// mode moves elements (every dtype); linear and cubic run one separable
// pass per resampled axis in float64, innermost axis first, and round once
// at the end. Elements on an Outside index of any axis are extrapolation.
func Apply(ctx *op.Context, x *tensor.Tensor, plans []*AxisPlan, mode Mode, extrap float64) (*tensor.Tensor, error) {
	shape := x.Shape()
	outShape := make([]int, len(shape))
	anyOutside := false
	for d := range shape {
		outShape[d] = shape[d]
		if p := plans[d]; p != nil {
			outShape[d] = p.Out
			anyOutside = anyOutside || p.Outside != nil
		}
	}
	out := ctx.New(x.DType(), outShape...)
	if out.Len() == 0 {
		return out, nil
	}
	if mode == Nearest {
		maps := make([][]int, len(shape))
		for d := range shape {
			m := make([]int, outShape[d])
			p := plans[d]
			for o := range m {
				switch {
				case p == nil:
					m[o] = o
				case p.Outside != nil && p.Outside[o]:
					m[o] = -1
				default:
					m[o] = int(p.Index[o*p.Taps])
				}
			}
			maps[d] = m
		}
		var fill *tensor.Tensor
		if anyOutside {
			fill = scalarLike(x.DType(), extrap)
		}
		gatherAxes(out, x, maps, fill)
		return out, nil
	}
	if !opsutil.IsNumeric(x.DType()) {
		return nil, op.Errorf("linear and cubic resizing need a numeric input, got %s", x.DType())
	}
	if !forceGeneric && planesFast(x, plans, mode) {
		r := len(shape)
		resizePlanes32(out, x, plans[r-2], plans[r-1])
		return out, ctx.Err()
	}
	v, err := toF64(x)
	if err != nil {
		return nil, err
	}
	cur := append([]int(nil), shape...)
	for d := len(shape) - 1; d >= 0; d-- {
		p := plans[d]
		if p == nil {
			continue
		}
		next := append([]int(nil), cur...)
		next[d] = p.Out
		if _, err := ctx.CheckShape(tensor.Double, next); err != nil {
			return nil, err
		}
		v = resampleAxis(v, cur, d, p)
		cur = next
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if anyOutside {
		markOutside(v, outShape, plans, extrap)
	}
	storeF64(out, v)
	return out, nil
}

// resampleAxis runs one plan along axis d of src (shape) and returns the result.
func resampleAxis(src []float64, shape []int, d int, p *AxisPlan) []float64 {
	outer, inner := 1, 1
	for i := 0; i < d; i++ {
		outer *= shape[i]
	}
	for i := d + 1; i < len(shape); i++ {
		inner *= shape[i]
	}
	dst := make([]float64, outer*p.Out*inner)
	for o := 0; o < outer; o++ {
		sb := o * p.In * inner
		for j := 0; j < p.Out; j++ {
			row := dst[(o*p.Out+j)*inner : (o*p.Out+j+1)*inner]
			for k := 0; k < p.Taps; k++ {
				w := p.Weight[j*p.Taps+k]
				if w == 0 {
					continue
				}
				s := src[sb+int(p.Index[j*p.Taps+k])*inner:]
				s = s[:inner]
				for t := range row {
					row[t] += w * s[t]
				}
			}
		}
	}
	return dst
}

// markOutside sets every element lying on an Outside index to extrap.
func markOutside(v []float64, shape []int, plans []*AxisPlan, extrap float64) {
	r := len(shape)
	idx := make([]int, r)
	for i := range v {
		for d := 0; d < r; d++ {
			if p := plans[d]; p != nil && p.Outside != nil && p.Outside[idx[d]] {
				v[i] = extrap
				break
			}
		}
		for d := r - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
}

// scalarLike returns a one-element tensor of dtype dt holding v (converted
// as a cast would; bool is v != 0, strings are empty).
func scalarLike(dt tensor.DType, v float64) *tensor.Tensor {
	t := tensor.New(dt, 1)
	switch d := t.Data().(type) {
	case []bool:
		d[0] = v != 0
	case []string:
	case []complex64:
		d[0] = complex(float32(v), 0)
	case []complex128:
		d[0] = complex(v, 0)
	default:
		if opsutil.IsNumeric(dt) {
			storeF64(t, []float64{v})
		}
	}
	return t
}

// inferResize is the rule of Resize, or of Upsample with upsample.
func inferResize(upsample bool) shapes.Rule { return func(c *shapes.Ctx) { resizeShape(c, upsample) } }

func resizeShape(c *shapes.Ctx, upsample bool) {
	x := c.Shape(0)
	if x == nil {
		c.Set(0, nil, "")
		return
	}
	r := len(x)
	var scales []float64
	var sizes []int64
	switch {
	case upsample && c.Version() < 9:
		if a := c.Attr("scales"); a != nil {
			for _, f := range a.GetFloats() {
				scales = append(scales, float64(f))
			}
		} else if c.Version() == 1 {
			scales = []float64{1, 1, float64(c.AttrFloat("height_scale", 1)), float64(c.AttrFloat("width_scale", 1))}
		}
	case upsample || c.Version() == 10:
		scales = c.Floats(1)
	default:
		if c.Has(3) {
			s, ok := c.Ints(3)
			if ok {
				sizes = s
			}
		} else if c.Has(2) {
			scales = c.Floats(2)
		}
	}
	axes, _ := c.AttrInts("axes")
	if axes == nil {
		for i := 0; i < r; i++ {
			axes = append(axes, int64(i))
		}
	}
	out := append([]graph.Dim(nil), x...)
	policy := c.AttrString("keep_aspect_ratio_policy", "stretch")
	switch {
	case sizes != nil && len(sizes) == len(axes) && policy == "stretch":
		for i, a := range axes {
			ax, ok := c.Axis(a, r)
			if !ok {
				return
			}
			out[ax] = shapes.Known(sizes[i])
		}
	case scales != nil && len(scales) == len(axes) && c.AttrString("coordinate_transformation_mode", "") != "tf_crop_and_resize":
		for i, a := range axes {
			ax, ok := c.Axis(a, r)
			if !ok {
				return
			}
			if scales[i] == 1 {
				continue
			}
			if !shapes.IsKnown(x[ax]) {
				f := resizeScale(scales[i])
				if f == math.Trunc(f) && f >= 1 && f < 1<<20 {
					out[ax] = shapes.DimMul(x[ax], shapes.Known(int64(f))) // an integer upscale of a symbolic dim
				} else {
					out[ax] = shapes.Unknown()
				}
				continue
			}
			out[ax] = shapes.Known(int64(math.Floor(float64(x[ax].Value) * resizeScale(scales[i]))))
		}
	default:
		for i := range out {
			out[i] = shapes.Unknown()
		}
	}
	c.Set(0, out, "")
}

func resizeScale(f float64) float64 { return float64(float32(f)) }
