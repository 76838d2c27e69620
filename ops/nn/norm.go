package nn

import (
	"math"
	"slices"

	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Normalisation ops. Statistics are accumulated in float64 whatever the
// input type: it costs little next to the memory traffic and keeps float16
// and long-axis results stable (stash_type only asks for at least float32).
func init() {
	op.Register("BatchNormalization", []int{1, 6, 7, 9, 14, 15}, buildBatchNorm)
	shapes.Register("", "BatchNormalization", inferBatchNorm)
	op.Register("InstanceNormalization", []int{1, 6, 22}, buildInstanceNorm)
	shapes.Register("", "InstanceNormalization", shapes.SameAsInput0)
	op.Register("LayerNormalization", []int{17}, buildLayerNorm)
	shapes.Register("", "LayerNormalization", inferLayerNorm)
	op.Register("GroupNormalization", []int{18, 21}, buildGroupNorm)
	shapes.Register("", "GroupNormalization", shapes.SameAsInput0)
	op.Register("RMSNormalization", []int{23}, buildRMSNorm)
	shapes.Register("", "RMSNormalization", shapes.SameAsInput0)
	op.Register("LRN", []int{1, 13}, buildLRN)
	shapes.Register("", "LRN", shapes.SameAsInput0)
	op.Register("MeanVarianceNormalization", []int{9, 13}, buildMVN)
	shapes.Register("", "MeanVarianceNormalization", shapes.SameAsInput0)
}

// f64s reads any float tensor as float64 (nil stays nil).
func f64s(t *tensor.Tensor) []float64 {
	if t == nil {
		return nil
	}
	v, _ := t.Float64s()
	return v
}

// setF stores float64 values into a float tensor's storage.
func setF(t *tensor.Tensor, i int, v float64) {
	switch d := t.Data().(type) {
	case []float32:
		d[i] = float32(v)
	case []float64:
		d[i] = v
	}
}

func checkFloat(ts ...*tensor.Tensor) error {
	for _, t := range ts {
		if t != nil && !isFloatish(t.DType()) {
			return op.Errorf("normalisation needs float tensors, got %s", t.DType())
		}
	}
	return nil
}

// BatchNormalization. Versions < 9 have `spatial`: with spatial=0 the
// statistics and affine parameters are per activation (shape C×D1×…×Dn)
// rather than per channel. Before 14, training is signalled by asking for
// the extra outputs (mean, var, saved_mean, saved_var); from 14 by the
// training_mode attribute, with outputs running_mean and running_var.
// bnAffine is inference BatchNormalization's per-channel subtract,
// multiply and add, worked out from the four parameter tensors it names.
type bnAffine struct {
	params        [4]*tensor.Tensor
	sub, mul, add []float32
}

func newBNAffine(params []*tensor.Tensor, eps float64) *bnAffine {
	scale, bias, mean, vr := f64s(params[0]), f64s(params[1]), f64s(params[2]), f64s(params[3])
	p := &bnAffine{sub: make([]float32, len(mean)), mul: make([]float32, len(mean)), add: make([]float32, len(mean))}
	copy(p.params[:], params)
	for c := range mean {
		p.sub[c], p.mul[c], p.add[c] = float32(mean[c]), float32(scale[c]/math.Sqrt(vr[c]+eps)), float32(bias[c])
	}
	return p
}

// of reports whether p was worked out from these parameter tensors.
func (p *bnAffine) of(params []*tensor.Tensor) bool {
	for i, t := range params {
		if p.params[i] != t {
			return false
		}
	}
	return true
}

// BatchNormAttrs are BatchNormalization's attributes as its builder parsed
// them (Training: training_mode, or for versions before 14 any of the
// statistics outputs requested); the WebGPU kernel reads them from the
// CPU kernel (op.AttrsKernel).
type BatchNormAttrs struct {
	Epsilon  float64
	Training bool
}

func buildBatchNorm(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	eps := float64(a.Float("epsilon", 1e-5))
	momentum := float64(a.Float("momentum", 0.9))
	spatial := a.Int("spatial", 1) != 0
	training := a.Int("training_mode", 0) != 0
	if a.Err != nil {
		return nil, a.Err
	}
	if n.Version >= 9 {
		spatial = true
	}
	if n.Version < 14 {
		training = n.HasOutput(1) || n.HasOutput(2) || n.HasOutput(3) || n.HasOutput(4)
	}
	// A fused activation (DenseNet's BatchNormalization → Relu) runs on each
	// plane as it is computed; a residual is not taken.
	f, err := parseFusion(n)
	if err != nil {
		return nil, err
	}
	if f != nil && f.residual {
		return nil, n.Errorf("BatchNormalization fuses no residual")
	}
	// With constant parameters (the usual case) the per-channel factors
	// are worked out once, here.
	var constAffine *bnAffine
	consts := []*tensor.Tensor{n.ConstInput(1), n.ConstInput(2), n.ConstInput(3), n.ConstInput(4)}
	if checkFloat(consts...) == nil && !slices.ContainsFunc(consts, func(t *tensor.Tensor) bool { return t == nil || t.Len() != consts[0].Len() }) {
		constAffine = newBNAffine(consts, eps)
	}
	return attrsFusingKernel{fusingKernel{op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 5 {
			return nil, op.Errorf("BatchNormalization needs X, scale, B, mean, var")
		}
		x := in[0]
		if err := checkFloat(in[:5]...); err != nil {
			return nil, err
		}
		if x.Rank() < 2 {
			return nil, op.Errorf("BatchNormalization input must have rank ≥ 2")
		}
		N, C := x.Shape()[0], x.Shape()[1]
		inner := opsutil.Product(x.Shape()[2:])
		params := C // elements per parameter tensor
		if !spatial {
			params = C * inner
		}
		for i := 1; i < 5; i++ {
			if in[i] == nil || in[i].Len() != params {
				return nil, op.Errorf("BatchNormalization input %d must have %d elements", i, params)
			}
		}
		y := ctx.New(x.DType(), x.Shape()...)
		if !training && spatial && x.DType().IsFloat() {
			// Inference on float32 storage: one scale and shift per
			// channel, y = (x - mean)·(scale/√(var+ε)) + B, the factor
			// worked out in float64.
			p := constAffine
			if p == nil || !p.of(in[1:5]) {
				p = newBNAffine(in[1:5], eps)
			}
			xd, yd := x.F32(), y.F32()
			inLoop := f.inLoop(x.DType()) && f.act != kernels.ActNone
			for nn := 0; nn < N; nn++ {
				for c := 0; c < C; c++ {
					o := (nn*C + c) * inner
					sub, mul, add := p.sub[c], p.mul[c], p.add[c]
					if inLoop && f.act == kernels.ActRelu {
						scaleShiftRelu(yd[o:o+inner], xd[o:o+inner], sub, mul, add) // one pass
						continue
					}
					kernels.ScaleShift(yd[o:o+inner], xd[o:o+inner], sub, mul, add)
					if inLoop {
						kernels.Activate(yd[o:o+inner], f.act, f.alpha, f.beta)
					}
				}
			}
			if !inLoop {
				f.applySeparately(y, nil)
			}
			return ctx.One(y), nil
		}
		scale, bias, mean, vr := f64s(in[1]), f64s(in[2]), f64s(in[3]), f64s(in[4])
		xd := f64s(x)
		// per-parameter index of element (n, c, s): c, or c*inner+s when !spatial
		pidx := func(c, s int) int {
			if spatial {
				return c
			}
			return c*inner + s
		}
		useMean, useVar := mean, vr
		var bm, bv []float64
		if training {
			bm, bv = make([]float64, params), make([]float64, params)
			cnt := make([]float64, params)
			for nn := 0; nn < N; nn++ {
				for c := 0; c < C; c++ {
					for s := 0; s < inner; s++ {
						p := pidx(c, s)
						bm[p] += xd[(nn*C+c)*inner+s]
						cnt[p]++
					}
				}
			}
			for p := range bm {
				bm[p] /= cnt[p]
			}
			for nn := 0; nn < N; nn++ {
				for c := 0; c < C; c++ {
					for s := 0; s < inner; s++ {
						p := pidx(c, s)
						d := xd[(nn*C+c)*inner+s] - bm[p]
						bv[p] += d * d
					}
				}
			}
			for p := range bv {
				bv[p] /= cnt[p]
			}
			useMean, useVar = bm, bv
		}
		for nn := 0; nn < N; nn++ {
			for c := 0; c < C; c++ {
				for s := 0; s < inner; s++ {
					p := pidx(c, s)
					i := (nn*C+c)*inner + s
					setF(y, i, scale[p]*(xd[i]-useMean[p])/math.Sqrt(useVar[p]+eps)+bias[p])
				}
			}
		}
		f.applySeparately(y, nil)
		out := []*tensor.Tensor{y}
		if !training {
			return out, nil
		}
		running := func(cur, prev []float64, like *tensor.Tensor) *tensor.Tensor {
			t := ctx.New(like.DType(), like.Shape()...)
			for i := range cur {
				setF(t, i, prev[i]*momentum+cur[i]*(1-momentum))
			}
			return t
		}
		out = append(out, running(bm, mean, in[3]), running(bv, vr, in[4]))
		if n.Version < 14 {
			sm, sv := ctx.New(in[3].DType(), in[3].Shape()...), ctx.New(in[4].DType(), in[4].Shape()...)
			for i := range bm {
				setF(sm, i, bm[i])
				setF(sv, i, bv[i])
			}
			out = append(out, sm, sv)
		}
		return out[:min(len(out), len(n.Outputs))], nil
	}), 0, 5}, BatchNormAttrs{Epsilon: eps, Training: training}}, nil
}

func buildInstanceNorm(n *op.Node) (any, error) {
	eps, err := n.Float("epsilon", 1e-5)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 3 || in[0] == nil || in[1] == nil || in[2] == nil {
			return nil, op.Errorf("InstanceNormalization needs input, scale, B")
		}
		x := in[0]
		if err := checkFloat(in[:3]...); err != nil {
			return nil, err
		}
		if x.Rank() < 3 {
			return nil, op.Errorf("InstanceNormalization input must have rank ≥ 3")
		}
		C := x.Shape()[1]
		if in[1].Len() != C || in[2].Len() != C {
			return nil, op.Errorf("InstanceNormalization scale and B must have %d elements", C)
		}
		inner := opsutil.Product(x.Shape()[2:])
		y := ctx.New(x.DType(), x.Shape()...)
		scale, bias := f64s(in[1]), f64s(in[2])
		planes := x.Shape()[0] * C
		switch xd := x.Data().(type) {
		case []float32:
			normRows(xd, y.F32(), planes, inner, float64(eps), func(r int) (float64, float64) { return scale[r%C], bias[r%C] })
		case []float64:
			normRows(xd, y.F64(), planes, inner, float64(eps), func(r int) (float64, float64) { return scale[r%C], bias[r%C] })
		}
		return ctx.One(y), nil
	}), nil
}

// normRows normalises each of rows contiguous rows of length d to zero mean
// and unit variance, then applies the row's (scale, bias).
func normRows[T kernels.Float](x, y []T, rows, d int, eps float64, affine func(r int) (float64, float64)) {
	for r := 0; r < rows; r++ {
		xr, yr := x[r*d:(r+1)*d], y[r*d:(r+1)*d]
		mean, inv := meanInvStd(xr, eps)
		s, b := affine(r)
		for i, v := range xr {
			yr[i] = T((float64(v)-mean)*inv*s + b)
		}
	}
}

func meanInvStd[T kernels.Float](xr []T, eps float64) (float64, float64) {
	var sum float64
	for _, v := range xr {
		sum += float64(v)
	}
	mean := sum / float64(len(xr))
	var ss float64
	for _, v := range xr {
		d := float64(v) - mean
		ss += d * d
	}
	return mean, 1 / math.Sqrt(ss/float64(len(xr))+eps)
}

// rowStats returns a row's mean and 1/√(variance+eps), or for RMS
// normalisation 0 and 1/√(mean square+eps), accumulated in float64.
func rowStats[T kernels.Float](xr []T, eps float64, rms bool) (float64, float64) {
	if !rms {
		return meanInvStd(xr, eps)
	}
	var ss float64
	for _, v := range xr {
		ss += float64(v) * float64(v)
	}
	return 0, 1 / math.Sqrt(ss/float64(len(xr))+eps)
}

// rowStatsF32 is rowStats for a float32 row in one pass: sums of d and d²
// with d = x - x[0] in float64, four partial sums so the additions do not
// wait on each other. Shifting by an element keeps Σd²/n - (Σd/n)² from
// cancelling: its relative error is about 2^-53·(1 + (mean-x[0])²/variance),
// far below float32 resolution unless x[0] lies ~10^4 deviations out.
func rowStatsF32(xr []float32, eps float64, rms bool) (float64, float64) {
	n := len(xr)
	if n == 0 {
		return rowStats(xr, eps, rms)
	}
	var k float64
	if !rms {
		k = float64(xr[0])
	}
	var s0, s1, s2, s3, q0, q1, q2, q3 float64
	n4 := n &^ 3
	for i := 0; i < n4; i += 4 {
		d0, d1, d2, d3 := float64(xr[i])-k, float64(xr[i+1])-k, float64(xr[i+2])-k, float64(xr[i+3])-k
		s0 += d0
		s1 += d1
		s2 += d2
		s3 += d3
		q0 += d0 * d0
		q1 += d1 * d1
		q2 += d2 * d2
		q3 += d3 * d3
	}
	for _, v := range xr[n4:] {
		d := float64(v) - k
		s0 += d
		q0 += d * d
	}
	fn := float64(n)
	if rms {
		return 0, 1 / math.Sqrt((q0+q1+q2+q3)/fn+eps)
	}
	m := (s0 + s1 + s2 + s3) / fn
	return k + m, 1 / math.Sqrt(max((q0+q1+q2+q3)/fn-m*m, 0)+eps)
}

// NormRow normalises one row as LayerNormalization (rms false) and
// RMSNormalization (rms true) do: statistics in float64 (rowStatsF32 for a
// float32 row), then y = (x-mean)·inv·scale + bias, the affine pass in the
// row's own type (affineRowF32 for float32); bias may be nil, scale and bias
// hold one element per row element. It returns the row's mean (0 for RMS)
// and 1/√(variance+eps). The com.microsoft layer norms (ops/contrib) call it.
func NormRow[T kernels.Float](y, x []T, eps float64, rms bool, scale, bias []T) (mean, inv float64) {
	if xf, ok := any(x).([]float32); ok {
		mean, inv = rowStatsF32(xf, eps, rms)
		hi := float32(mean)
		affineRowF32(any(y).([]float32), xf, hi, float32(mean-float64(hi)), float32(inv), any(scale).([]float32), any(bias).([]float32))
		return mean, inv
	}
	mean, inv = rowStats(x, eps, rms)
	y, scale = y[:len(x)], scale[:len(x)]
	for j, v := range x {
		o := (float64(v) - mean) * inv * float64(scale[j])
		if bias != nil {
			o += float64(bias[j])
		}
		y[j] = T(o)
	}
	return mean, inv
}

// expandTrailing broadcasts a parameter (Scale, B) against x's shape and
// returns it materialised over x's trailing dims from `from` on, so that
// element i of x uses param[i % len(param)]. from is at most axis, and less
// if the parameter carries leading dims of its own.
func expandTrailing(p *tensor.Tensor, xs []int, axis int) ([]float64, error) {
	ps := p.Shape()
	if len(ps) > len(xs) {
		return nil, op.Errorf("parameter of shape %v has higher rank than input %v", ps, xs)
	}
	from := min(axis, len(xs)-len(ps))
	target := xs[from:]
	bs, err := opsutil.BroadcastShape(ps, target)
	if err != nil || !slices.Equal(bs, target) {
		return nil, op.Errorf("parameter of shape %v does not broadcast to %v", ps, xs)
	}
	src := f64s(p)
	out := make([]float64, opsutil.Product(target))
	opsutil.BroadcastIndex(ps, ps, target, func(o, ia, _ int) { out[o] = src[ia] })
	return out, nil
}

// LayerNormalization-17: normalise over dims [axis, rank); optional Mean and
// InvStdDev outputs have the reduced dims kept as 1.
func buildLayerNorm(n *op.Node) (any, error) {
	return buildAxisNorm(n, false)
}

// RMSNormalization-23: like LayerNormalization without centring or bias.
func buildRMSNorm(n *op.Node) (any, error) {
	return buildAxisNorm(n, true)
}

func buildAxisNorm(n *op.Node, rms bool) (any, error) {
	a := &op.Attribs{N: n}
	axis := a.Int("axis", -1)
	eps := float64(a.Float("epsilon", 1e-5))
	stash := a.Int("stash_type", 1)
	if a.Err != nil {
		return nil, a.Err
	}
	_ = stash // statistics are always computed in float64 (see the file comment)
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("normalisation needs X and Scale")
		}
		x := in[0]
		if err := checkFloat(x, in[1], optIn(in, 2)); err != nil {
			return nil, err
		}
		ax, err := opsutil.NormAxis(axis, x.Rank())
		if err != nil {
			return nil, err
		}
		scale, err := expandTrailing(in[1], x.Shape(), ax)
		if err != nil {
			return nil, err
		}
		var bias []float64
		if b := optIn(in, 2); b != nil && !rms {
			if bias, err = expandTrailing(b, x.Shape(), ax); err != nil {
				return nil, err
			}
		}
		rows := opsutil.Product(x.Shape()[:ax])
		d := opsutil.Product(x.Shape()[ax:])
		y := ctx.New(x.DType(), x.Shape()...)
		statShape := append([]int(nil), x.Shape()...)
		for i := ax; i < len(statShape); i++ {
			statShape[i] = 1
		}
		statDT := tensor.Float
		if x.DType() == tensor.Double {
			statDT = tensor.Double
		}
		var meanT, invT *tensor.Tensor
		if !rms && n.HasOutput(1) {
			meanT = ctx.New(statDT, statShape...)
		}
		if !rms && n.HasOutput(2) {
			invT = ctx.New(statDT, statShape...)
		}
		// float32 with one Scale (and B) element per row element, the usual
		// case: statistics in float64 as everywhere, the affine pass in
		// float32 (affineRowF32), reading and writing the storage directly.
		var sc, bc []float32
		if x.DType() == tensor.Float && in[1].DType() == tensor.Float && in[1].Len() == d && len(scale) == d {
			sc = in[1].F32()
			if bias != nil {
				if b := in[2]; b.DType() == tensor.Float && b.Len() == d && len(bias) == d {
					bc = b.F32()
				} else {
					sc = nil
				}
			}
		}
		fast := sc != nil
		var xd []float64
		if !fast {
			xd = f64s(x)
		}
		for r := 0; r < rows; r++ {
			var mean, inv float64
			if fast {
				mean, inv = NormRow(y.F32()[r*d:(r+1)*d], x.F32()[r*d:(r+1)*d], eps, rms, sc, bc)
			} else {
				xr := xd[r*d : (r+1)*d]
				mean, inv = rowStats(xr, eps, rms)
				for j, v := range xr {
					i := r*d + j
					o := (v - mean) * inv * scale[i%len(scale)]
					if bias != nil {
						o += bias[i%len(bias)]
					}
					setF(y, i, o)
				}
			}
			if meanT != nil {
				setF(meanT, r, mean)
			}
			if invT != nil {
				setF(invT, r, inv)
			}
		}
		out := []*tensor.Tensor{y}
		if !rms && len(n.Outputs) > 1 {
			out = append(out, meanT)
		}
		if !rms && len(n.Outputs) > 2 {
			out = append(out, invT)
		}
		return out, nil
	}), nil
}

// GroupNormalization: statistics per (n, group) over C/num_groups channels
// and all spatial positions. In version 18 scale and bias have one entry
// per group; version 21 changed them to one per channel.
func buildGroupNorm(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	eps := float64(a.Float("epsilon", 1e-5))
	groups := int(a.Int("num_groups", 0))
	if a.Err != nil {
		return nil, a.Err
	}
	if groups <= 0 {
		return nil, n.Errorf("num_groups must be positive")
	}
	perGroupParams := n.Version < 21
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 3 || in[0] == nil || in[1] == nil || in[2] == nil {
			return nil, op.Errorf("GroupNormalization needs X, scale, bias")
		}
		x := in[0]
		if err := checkFloat(in[:3]...); err != nil {
			return nil, err
		}
		if x.Rank() < 2 {
			return nil, op.Errorf("GroupNormalization input must have rank ≥ 2")
		}
		N, C := x.Shape()[0], x.Shape()[1]
		if C%groups != 0 {
			return nil, op.Errorf("channels %d not divisible by num_groups %d", C, groups)
		}
		want := C
		if perGroupParams {
			want = groups
		}
		if in[1].Len() != want || in[2].Len() != want {
			return nil, op.Errorf("GroupNormalization scale and bias must have %d elements", want)
		}
		scale, bias := f64s(in[1]), f64s(in[2])
		inner := opsutil.Product(x.Shape()[2:])
		cg := C / groups
		d := cg * inner
		xd := f64s(x)
		y := ctx.New(x.DType(), x.Shape()...)
		if y.Len() == 0 {
			// Nothing to normalize; C = 0 is divisible by any num_groups,
			// which must not then drive the loop below.
			return ctx.One(y), nil
		}
		for r := 0; r < N*groups; r++ {
			mean, inv := meanInvStd(xd[r*d:(r+1)*d], eps)
			g := r % groups
			for j := 0; j < d; j++ {
				p := g
				if !perGroupParams {
					p = g*cg + j/inner
				}
				i := r*d + j
				setF(y, i, (xd[i]-mean)*inv*scale[p]+bias[p])
			}
		}
		return ctx.One(y), nil
	}), nil
}

func buildLRN(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	alpha := float64(a.Float("alpha", 1e-4))
	beta := float64(a.Float("beta", 0.75))
	bias := float64(a.Float("bias", 1))
	size := int(a.Int("size", 0))
	if a.Err != nil {
		return nil, a.Err
	}
	if size <= 0 {
		return nil, n.Errorf("LRN size must be positive")
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x := in[0]
		if err := checkFloat(x); err != nil {
			return nil, err
		}
		if x.Rank() < 3 {
			return nil, op.Errorf("LRN input must have rank ≥ 3")
		}
		N, C := x.Shape()[0], x.Shape()[1]
		inner := opsutil.Product(x.Shape()[2:])
		y := ctx.New(x.DType(), x.Shape()...)
		lo, hi := (size-1)/2, (size-1)-(size-1)/2 // floor and ceil of (size-1)/2
		if xf, ok := x.Data().([]float32); ok {
			lrnF32(y.F32(), xf, N, C, inner, lo, hi, bias, alpha/float64(size), beta)
			return ctx.One(y), nil
		}
		xd := f64s(x)
		for nn := 0; nn < N; nn++ {
			for c := 0; c < C; c++ {
				for s := 0; s < inner; s++ {
					var sq float64
					for cc := max(0, c-lo); cc <= min(C-1, c+hi); cc++ {
						v := xd[(nn*C+cc)*inner+s]
						sq += v * v
					}
					i := (nn*C+c)*inner + s
					setF(y, i, xd[i]/math.Pow(bias+alpha/float64(size)*sq, beta))
				}
			}
		}
		return ctx.One(y), nil
	}), nil
}

// lrnF32 is LRN over float32 storage (float32, float16, bfloat16). With
// beta = 0.75 (the default, AlexNet's and GoogLeNet's) it runs the float32
// kernel (vectorised in the SIMD build: the float64 loop and its math.Pow
// dominated AlexNet's LRN in wasm); otherwise it computes as the generic
// loop does, in float64 (squares summed over the channel window in
// ascending order, then x / (bias + k·sum)^beta), plane by plane.
func lrnF32(y, x []float32, N, C, inner, lo, hi int, bias, k, beta float64) {
	if beta == 0.75 {
		for n := 0; n < N; n++ {
			img := x[n*C*inner : (n+1)*C*inner]
			kernels.LRN075(y[n*C*inner:(n+1)*C*inner], img, C, inner, lo, hi, float32(bias), float32(k))
		}
		return
	}
	sum := make([]float64, inner)
	for n := 0; n < N; n++ {
		for c := 0; c < C; c++ {
			clear(sum)
			for cc := max(0, c-lo); cc <= min(C-1, c+hi); cc++ {
				plane := x[(n*C+cc)*inner : (n*C+cc+1)*inner]
				for s, v := range plane {
					f := float64(v)
					sum[s] += f * f
				}
			}
			base := (n*C + c) * inner
			xs, ys := x[base:base+inner], y[base:base+inner]
			for s, v := range xs {
				ys[s] = float32(float64(v) / math.Pow(bias+k*sum[s], beta))
			}
		}
	}
}

// MeanVarianceNormalization: (X - E[X]) / (sqrt(E[X²] - E[X]²) + 1e-9) over
// the given axes (default N, H, W), exactly as the spec's function body.
func buildMVN(n *op.Node) (any, error) {
	axes64, has, err := n.Ints("axes")
	if err != nil {
		return nil, err
	}
	if !has {
		axes64 = []int64{0, 2, 3}
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x := in[0]
		if err := checkFloat(x); err != nil {
			return nil, err
		}
		shape := x.Shape()
		reduce := make([]bool, len(shape))
		for _, a := range axes64 {
			ax, err := opsutil.NormAxis(a, len(shape))
			if err != nil {
				return nil, err
			}
			reduce[ax] = true
		}
		// keptShape has the reduced dims set to 1; a broadcast walk over x
		// then gives each element's statistics slot.
		kept := append([]int(nil), shape...)
		for i, r := range reduce {
			if r {
				kept[i] = 1
			}
		}
		slots := opsutil.Product(kept)
		sum, sq, cnt := make([]float64, slots), make([]float64, slots), make([]float64, slots)
		xd := f64s(x)
		opsutil.BroadcastIndex(shape, kept, shape, func(o, _, k int) {
			sum[k] += xd[o]
			sq[k] += xd[o] * xd[o]
			cnt[k]++
		})
		y := ctx.New(x.DType(), shape...)
		opsutil.BroadcastIndex(shape, kept, shape, func(o, _, k int) {
			m := sum[k] / cnt[k]
			v := sq[k]/cnt[k] - m*m
			setF(y, o, (xd[o]-m)/(math.Sqrt(math.Max(v, 0))+1e-9))
		})
		return ctx.One(y), nil
	}), nil
}

// inferBatchNorm: Y has X's shape; the training outputs' (statistics')
// shapes vary by version and are left unknown.
func inferBatchNorm(c *shapes.Ctx) {
	shapes.SameAsInput0(c)
	for i := 1; i < c.NumOut(); i++ {
		c.Set(i, nil, "statistics outputs are not inferred")
	}
}

func inferLayerNorm(c *shapes.Ctx) {
	x := c.Shape(0)
	c.Set(0, x, "")
	if x == nil {
		return
	}
	axis, ok := c.Axis(c.AttrInt("axis", -1), len(x))
	if !ok {
		return
	}
	stat := append([]graph.Dim(nil), x...)
	for i := axis; i < len(stat); i++ {
		stat[i] = shapes.Known(1)
	}
	c.Set(1, stat, "")
	c.Set(2, stat, "")
}
