//go:build js && wasm

package webgpu

// The kernels' run-time halves: shapes checked, outputs allocated,
// uniforms packed and dispatches issued, one function per kernel family.

import (
	"fmt"
	"math"
	"slices"

	"github.com/gort-dev/gort/ops/window"
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/gpu"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// run is the state of one kernel call: temporary uploads to release.
type run struct {
	k    *kernel
	tmps []*gpu.Buffer
}

func (r *run) input(vs []tensor.Value, i int) (*gpu.Buffer, []int, error) {
	if b := r.k.consts[i]; b != nil {
		return b, r.k.n.ConstInput(i).Shape(), nil
	}
	if i >= len(vs) || vs[i] == nil {
		return nil, nil, errs.New(errs.Runtime, "input %d is missing", i)
	}
	switch v := vs[i].(type) {
	case *value:
		return v.buf, v.shape, nil
	case *tensor.Tensor:
		if v.DType() != tensor.Float {
			return nil, nil, errs.New(errs.Runtime, "input %d is %s; the WebGPU kernel takes float32", i, v.DType())
		}
		b, err := gpu.Upload(r.k.a.d, v.F32())
		if err != nil {
			return nil, nil, wrapErr(err)
		}
		r.k.a.Uploads.Add(1)
		r.tmps = append(r.tmps, b)
		return b, v.Shape(), nil
	}
	return nil, nil, errs.New(errs.Runtime, "input %d is a %T, not a tensor", i, vs[i])
}

func (r *run) output(shape []int) (*value, error) {
	n := prod(shape)
	b, err := r.k.a.d.Alloc(n * 4)
	if err != nil {
		return nil, wrapErr(err)
	}
	return &value{a: r.k.a, buf: b, shape: shape}, nil
}

func (r *run) dispatch(p *gpu.Pipeline, u []uint32, n int, bufs ...*gpu.Buffer) error {
	r.k.a.Dispatches.Add(1)
	return wrapErr0(r.k.a.d.Dispatch(p, u, n, bufs...))
}

// dispatchGrid is dispatch over an explicit grid of workgroups.
func (r *run) dispatchGrid(p *gpu.Pipeline, u []uint32, gx, gy, gz int, bufs ...*gpu.Buffer) error {
	r.k.a.Dispatches.Add(1)
	return wrapErr0(r.k.a.d.DispatchGrid(p, u, gx, gy, gz, bufs...))
}

func wrapErr0(err error) error {
	if err == nil {
		return nil
	}
	return wrapErr(err)
}

func f32bits(v float32) uint32 { return math.Float32bits(v) }

// RunValues runs the node on the device. Outputs are always new buffers.
func (k *kernel) RunValues(ctx *op.Context, vs []tensor.Value) (outs []tensor.Value, err error) {
	r := &run{k: k}
	defer func() {
		for _, b := range r.tmps {
			b.Release()
		}
	}()
	var y *value
	switch k.s.kind {
	case kConv, kConvTranspose:
		y, err = r.conv(vs)
	case kPool:
		y, err = r.pool(vs)
	case kBinary:
		y, err = r.binary(vs)
	case kUnary:
		y, err = r.unary(vs)
	case kConcat:
		y, err = r.concat(vs)
	case kResize:
		y, err = r.resize(vs)
	case kAffine:
		y, err = r.affine(vs)
	case kSoftmax:
		y, err = r.softmax(vs)
	case kMatMul:
		y, err = r.matmul(vs)
	case kCopy:
		return r.copy(vs)
	case kSum:
		y, err = r.sum(vs)
	default:
		err = errs.New(errs.Internal, "unknown WebGPU kernel kind %d", k.s.kind)
	}
	if err != nil {
		return nil, err
	}
	return []tensor.Value{y}, nil
}

func (r *run) conv(vs []tensor.Value) (*value, error) {
	s := r.k.s
	xb, xs, err := r.input(vs, 0)
	if err != nil {
		return nil, err
	}
	wb, ws, err := r.input(vs, 1)
	if err != nil {
		return nil, err
	}
	if len(xs) < 3 || len(ws) != len(xs) {
		return nil, errs.New(errs.Runtime, "%s needs X and W of equal rank ≥ 3, got %v and %v", r.k.n.OpType, xs, ws)
	}
	grp := s.win.Group
	var wg *window.Geometry
	var m, cg, mg int
	kernel, err := s.win.WeightKernel(ws)
	if err != nil {
		return nil, errs.New(errs.Runtime, "%s: %v", r.k.n.OpType, err)
	}
	if s.kind == kConv {
		m, cg, mg = ws[0], ws[1], ws[0]/grp
		if xs[1] != ws[1]*grp || ws[0]%grp != 0 {
			return nil, errs.New(errs.Runtime, "Conv input %v, weight %v and group %d do not agree", xs, ws, grp)
		}
		wg, err = s.win.Forward(xs[2:], kernel)
	} else {
		m, cg, mg = ws[1]*grp, xs[1]/grp, ws[1]
		if ws[0] != xs[1] || xs[1]%grp != 0 {
			return nil, errs.New(errs.Runtime, "ConvTranspose input %v, weight %v and group %d do not agree", xs, ws, grp)
		}
		wg, err = s.win.Transpose(xs[2:], kernel)
	}
	var g *geom
	if err == nil {
		g, err = toGeom(wg)
	}
	if err != nil {
		return nil, errs.New(errs.Runtime, "%s: %v", r.k.n.OpType, err)
	}
	nd := len(xs) - 2
	ys := append([]int{xs[0], m}, g.out[maxSpatial-nd:]...)
	var bb *gpu.Buffer
	if r.k.n.HasInput(2) {
		var bs []int
		if bb, bs, err = r.input(vs, 2); err != nil {
			return nil, err
		}
		if prod(bs) != m {
			return nil, errs.New(errs.Runtime, "bias has %d elements, expected %d", prod(bs), m)
		}
	} else if bb, err = r.k.a.zeroBuf(m); err != nil {
		return nil, wrapErr(err)
	}
	bufs := []*gpu.Buffer{xb, wb, bb}
	if s.residual {
		rb, rs, err := r.input(vs, len(vs)-1)
		if err != nil {
			return nil, err
		}
		if !slices.Equal(rs, ys) {
			return nil, errs.New(errs.Runtime, "residual %v does not have the output shape %v", rs, ys)
		}
		bufs = append(bufs, rb)
	}
	if r.k.pTiled != nil && r.k.a.tiled() && s.kind == kConv && grp == 1 && g.pointwise() && xs[0] <= r.k.a.d.Limits.MaxWorkgroupsPerDimension {
		return r.pointwise(xs, ys, m, xb, wb, bb)
	}
	if r.k.pConvTiled != nil && r.k.a.tiled() && xs[0]*grp <= r.k.a.d.Limits.MaxWorkgroupsPerDimension {
		return r.convTiled(xs, ys, m, cg, mg, g, bufs)
	}
	y, err := r.output(ys)
	if err != nil {
		return nil, err
	}
	total := prod(ys)
	p, invocations := r.k.p, total
	if r.k.pBlock != nil && mg%4 == 0 {
		p, invocations = r.k.pBlock, total/4
	}
	u := []uint32{uint32(invocations), uint32(xs[0]), uint32(xs[1]), uint32(m), uint32(cg), uint32(mg), f32bits(s.alpha), f32bits(s.beta)}
	u = g.words(u)
	if err := r.dispatch(p, u, invocations, append(bufs, y.buf)...); err != nil {
		y.Release()
		return nil, err
	}
	return y, nil
}

func (r *run) pool(vs []tensor.Value) (*value, error) {
	s := r.k.s
	xb, xs, err := r.input(vs, 0)
	if err != nil {
		return nil, err
	}
	if len(xs) < 3 || len(xs) > 2+maxSpatial {
		return nil, errs.New(errs.Runtime, "%s input of shape %v", r.k.n.OpType, xs)
	}
	var kern []int
	if s.global {
		kern = xs[2:]
	}
	wg, err := s.win.Forward(xs[2:], kern)
	var g *geom
	if err == nil {
		g, err = toGeom(wg)
	}
	if err != nil {
		return nil, errs.New(errs.Runtime, "%s: %v", r.k.n.OpType, err)
	}
	nd := len(xs) - 2
	ys := append([]int{xs[0], xs[1]}, g.out[maxSpatial-nd:]...)
	y, err := r.output(ys)
	if err != nil {
		return nil, err
	}
	inc := uint32(0)
	if s.win.CountIncludePad {
		inc = 1
	}
	total := prod(ys)
	u := g.words([]uint32{uint32(total), inc, f32bits(float32(math.Inf(-1))), 0})
	if err := r.dispatch(r.k.p, u, total, xb, y.buf); err != nil {
		y.Release()
		return nil, err
	}
	return y, nil
}

func (r *run) binary(vs []tensor.Value) (*value, error) {
	ab, as, err := r.input(vs, 0)
	if err != nil {
		return nil, err
	}
	bb, bs, err := r.input(vs, 1)
	if err != nil {
		return nil, err
	}
	return r.binaryOn(ab, as, bb, bs)
}

// sum adds its inputs left to right, broadcasting; a single input is
// copied.
func (r *run) sum(vs []tensor.Value) (*value, error) {
	ab, as, err := r.input(vs, 0)
	if err != nil {
		return nil, err
	}
	if len(vs) == 1 {
		y, err := r.output(append([]int(nil), as...))
		if err != nil {
			return nil, err
		}
		r.k.a.d.Copy(y.buf, ab, 0, 0, prod(as)*4)
		return y, nil
	}
	var y *value
	for i := 1; i < len(vs); i++ {
		bb, bs, err := r.input(vs, i)
		if err != nil {
			return nil, err
		}
		ny, err := r.binaryOn(ab, as, bb, bs)
		if y != nil {
			y.Release() // the partial sum, read by this dispatch (queue order keeps it valid)
		}
		if err != nil {
			return nil, err
		}
		y, ab, as = ny, ny.buf, ny.shape
	}
	return y, nil
}

func (r *run) binaryOn(ab *gpu.Buffer, as []int, bb *gpu.Buffer, bs []int) (*value, error) {
	rank := r.k.s.rank
	// Sum's partial results may have a lower rank than the node's output;
	// they are aligned to it with leading unit dims.
	if max(len(as), len(bs)) > rank || r.k.s.kind == kBinary && max(len(as), len(bs)) != rank {
		return nil, errs.New(errs.Runtime, "%s inputs %v and %v: rank differs from the %d inferred at load", r.k.n.OpType, as, bs, rank)
	}
	ys, ok := broadcast(as, bs, rank)
	if !ok {
		return nil, errs.New(errs.Runtime, "%s cannot broadcast %v with %v", r.k.n.OpType, as, bs)
	}
	sa, sb := bstrides(as, rank), bstrides(bs, rank)
	y, err := r.output(ys)
	if err != nil {
		return nil, err
	}
	total := prod(ys)
	u := []uint32{uint32(total)}
	for d := 0; d < rank; d++ {
		u = append(u, uint32(ys[d]), uint32(sa[d]), uint32(sb[d]))
	}
	if err := r.dispatch(r.k.p, u, total, ab, bb, y.buf); err != nil {
		y.Release()
		return nil, err
	}
	return y, nil
}

// dimAt is the extent of shape s along output dim d of rank (1 for the
// leading dims s lacks).
func dimAt(s []int, d, rank int) int {
	off := rank - len(s)
	if d < off {
		return 1
	}
	return s[d-off]
}

// broadcast is the rank-dim shape a and b broadcast to (ok false where
// they do not).
func broadcast(a, b []int, rank int) (ys []int, ok bool) {
	ys = make([]int, rank)
	for d := 0; d < rank; d++ {
		da, db := dimAt(a, d, rank), dimAt(b, d, rank)
		switch {
		case da == db || db == 1:
			ys[d] = da
		case da == 1:
			ys[d] = db
		default:
			return nil, false
		}
	}
	return ys, true
}

// bstrides are s's row-major strides aligned to rank output dims, 0 where
// s broadcasts.
func bstrides(s []int, rank int) []int {
	st := make([]int, rank)
	acc := 1
	for d := rank - 1; d >= 0; d-- {
		e := dimAt(s, d, rank)
		if e != 1 {
			st[d] = acc
		}
		acc *= e
	}
	return st
}

func (r *run) unary(vs []tensor.Value) (*value, error) {
	xb, xs, err := r.input(vs, 0)
	if err != nil {
		return nil, err
	}
	y, err := r.output(append([]int(nil), xs...))
	if err != nil {
		return nil, err
	}
	total := prod(xs)
	if err := r.dispatch(r.k.p, []uint32{uint32(total), f32bits(r.k.s.alpha), f32bits(r.k.s.beta)}, total, xb, y.buf); err != nil {
		y.Release()
		return nil, err
	}
	return y, nil
}

func (r *run) concat(vs []tensor.Value) (*value, error) {
	axis := r.k.s.axis
	var shapes [][]int
	var bufs []*gpu.Buffer
	for i := range vs {
		if vs[i] == nil {
			continue
		}
		b, s, err := r.input(vs, i)
		if err != nil {
			return nil, err
		}
		bufs, shapes = append(bufs, b), append(shapes, s)
	}
	if len(shapes) == 0 {
		return nil, errs.New(errs.Runtime, "Concat has no inputs")
	}
	ys := append([]int(nil), shapes[0]...)
	if axis >= len(ys) {
		return nil, errs.New(errs.Runtime, "Concat axis %d for shape %v", axis, ys)
	}
	ys[axis] = 0
	for _, s := range shapes {
		if len(s) != len(ys) {
			return nil, errs.New(errs.Runtime, "Concat inputs of ranks %d and %d", len(s), len(ys))
		}
		for d := range s {
			if d != axis && s[d] != ys[d] {
				return nil, errs.New(errs.Runtime, "Concat inputs %v and %v differ off the axis", shapes[0], s)
			}
		}
		ys[axis] += s[axis]
	}
	y, err := r.output(ys)
	if err != nil {
		return nil, err
	}
	outer, inner := prod(ys[:axis]), prod(ys[axis+1:])
	off := 0
	for i, s := range shapes {
		seg := s[axis] * inner
		total := outer * seg
		u := []uint32{uint32(total), uint32(seg), uint32(ys[axis] * inner), uint32(off * inner)}
		if err := r.dispatch(r.k.p, u, total, bufs[i], y.buf); err != nil {
			y.Release()
			return nil, err
		}
		off += s[axis]
	}
	return y, nil
}

// cpuInput returns input i as a CPU tensor (Resize's roi, scales and
// sizes), downloading it if a device step produced it.
func cpuInput(vs []tensor.Value, i int) (*tensor.Tensor, error) {
	if i >= len(vs) || vs[i] == nil {
		return nil, nil
	}
	switch v := vs[i].(type) {
	case *tensor.Tensor:
		return v, nil
	case tensor.Remote:
		return v.Download()
	}
	return nil, errs.New(errs.Runtime, "input %d is a %T, not a tensor", i, vs[i])
}

// resize runs the per-axis plans of ops/resample, one pass per resampled
// axis (innermost first, as the CPU kernel), each reading its axis' index
// and weight tables. Tables are built and uploaded once per input shape
// and roi/scales/sizes values.
func (r *run) resize(vs []tensor.Value) (*value, error) {
	xb, xs, err := r.input(vs, 0)
	if err != nil {
		return nil, err
	}
	ins := make([]*tensor.Tensor, len(vs))
	key := fmt.Sprint(xs)
	for i := 1; i < len(vs); i++ {
		if ins[i], err = cpuInput(vs, i); err != nil {
			return nil, err
		}
		if ins[i] != nil {
			key += fmt.Sprintf("|%d:%v", i, ins[i])
		}
	}
	tb, err := r.k.tablesFor(key, xs, ins)
	if err != nil {
		return nil, err
	}
	if len(tb.passes) == 0 {
		y, err := r.output(append([]int(nil), xs...))
		if err != nil {
			return nil, err
		}
		r.k.a.d.Copy(y.buf, xb, 0, 0, prod(xs)*4)
		return y, nil
	}
	cur, curShape := xb, append([]int(nil), xs...)
	extrap := f32bits(float32(r.k.s.planner.Extrapolation()))
	var y *value
	for pi, p := range tb.passes {
		curShape[p.axis] = p.outN
		nv, err := r.output(append([]int(nil), curShape...))
		if err != nil {
			return nil, err
		}
		total := prod(curShape)
		hasOut := uint32(0)
		if p.hasOut {
			hasOut = 1
		}
		inner := prod(curShape[p.axis+1:])
		u := []uint32{uint32(total), uint32(p.inN), uint32(p.outN), uint32(inner), uint32(p.taps), hasOut, extrap}
		err = r.dispatch(r.k.p, u, total, cur, p.idx, p.wt, p.outside, nv.buf)
		if pi > 0 {
			y.Release() // the previous pass' output, read by this pass (queue order keeps it valid)
		}
		if err != nil {
			nv.Release()
			return nil, err
		}
		y, cur = nv, nv.buf
	}
	return y, nil
}

func (k *kernel) tablesFor(key string, xs []int, ins []*tensor.Tensor) (*resizeTables, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if t, ok := k.tables[key]; ok {
		return t, nil
	}
	out, plans, err := k.s.planner.Plans(xs, ins)
	if err != nil {
		return nil, errs.New(errs.Runtime, "%v", err)
	}
	if prod(out)*4 > int(k.a.d.Limits.MaxStorageBufferBindingSize) {
		return nil, errs.New(errs.TooLarge, "Resize output %v exceeds the WebGPU binding limit", out)
	}
	t := &resizeTables{out: out}
	for d := len(plans) - 1; d >= 0; d-- {
		p := plans[d]
		if p == nil {
			continue
		}
		wt := make([]float32, len(p.Weight))
		for i, w := range p.Weight {
			wt[i] = float32(w)
		}
		outside := make([]uint32, max(p.Out, 1))
		for i, o := range p.Outside {
			if o {
				outside[i] = 1
			}
		}
		idx := p.Index
		if len(idx) == 0 {
			idx = []int32{0}
			wt = []float32{0}
		}
		ps := resizePass{axis: d, hasOut: p.Outside != nil, inN: p.In, outN: p.Out, taps: p.Taps}
		if ps.idx, err = gpu.Upload(k.a.d, idx); err == nil {
			if ps.wt, err = gpu.Upload(k.a.d, wt); err == nil {
				ps.outside, err = gpu.Upload(k.a.d, outside)
			}
		}
		if err != nil {
			return nil, wrapErr(err)
		}
		t.passes = append(t.passes, ps)
	}
	k.tables[key] = t
	return t, nil
}

func (r *run) affine(vs []tensor.Value) (*value, error) {
	xb, xs, err := r.input(vs, 0)
	if err != nil {
		return nil, err
	}
	ab, bb, channels := r.k.consts[1], r.k.consts[2], len(r.k.s.a)
	if ab == nil {
		// Statistics known only now: fold them on the CPU, upload a and b.
		var p [4]*tensor.Tensor
		for i := range p {
			if p[i], err = cpuInput(vs, i+1); err != nil {
				return nil, err
			}
		}
		a, b, err := foldBatchNorm(p, r.k.s.eps)
		if err != nil {
			return nil, errs.New(errs.Runtime, "%v", err)
		}
		if ab, err = gpu.Upload(r.k.a.d, a); err != nil {
			return nil, wrapErr(err)
		}
		r.tmps = append(r.tmps, ab)
		if bb, err = gpu.Upload(r.k.a.d, b); err != nil {
			return nil, wrapErr(err)
		}
		r.tmps = append(r.tmps, bb)
		channels = len(a)
	}
	if len(xs) < 2 || xs[1] != channels {
		return nil, errs.New(errs.Runtime, "BatchNormalization input %v for %d channels", xs, channels)
	}
	bufs := []*gpu.Buffer{xb, ab, bb}
	if r.k.s.residual {
		rb, rs, err := r.input(vs, len(vs)-1)
		if err != nil {
			return nil, err
		}
		if !slices.Equal(rs, xs) {
			return nil, errs.New(errs.Runtime, "residual %v does not have the output shape %v", rs, xs)
		}
		bufs = append(bufs, rb)
	}
	y, err := r.output(append([]int(nil), xs...))
	if err != nil {
		return nil, err
	}
	total := prod(xs)
	u := []uint32{uint32(total), uint32(xs[1]), uint32(prod(xs[2:])), f32bits(r.k.s.alpha), f32bits(r.k.s.beta)}
	if err := r.dispatch(r.k.p, u, total, append(bufs, y.buf)...); err != nil {
		y.Release()
		return nil, err
	}
	return y, nil
}

func (r *run) softmax(vs []tensor.Value) (*value, error) {
	xb, xs, err := r.input(vs, 0)
	if err != nil {
		return nil, err
	}
	axis := r.k.s.axis
	if axis >= len(xs) {
		return nil, errs.New(errs.Runtime, "Softmax axis %d for shape %v", axis, xs)
	}
	outer, n, inner := prod(xs[:axis]), xs[axis], prod(xs[axis+1:])
	if r.k.s.legacy {
		n, inner = prod(xs[axis:]), 1
	}
	y, err := r.output(append([]int(nil), xs...))
	if err != nil {
		return nil, err
	}
	if n > 0 {
		if err := r.dispatch(r.k.p, []uint32{uint32(outer * inner), uint32(n), uint32(inner)}, outer*inner, xb, y.buf); err != nil {
			y.Release()
			return nil, err
		}
	}
	return y, nil
}

func (r *run) matmul(vs []tensor.Value) (*value, error) {
	s := r.k.s
	ab, as, err := r.input(vs, 0)
	if err != nil {
		return nil, err
	}
	bb, bs, err := r.input(vs, 1)
	if err != nil {
		return nil, err
	}
	ra, rb := len(as), len(bs)
	if ra < 2 || rb < 2 || max(ra, rb)-2 != s.rank {
		return nil, errs.New(errs.Runtime, "%s operands %v and %v do not have the ranks inferred at load", r.k.n.OpType, as, bs)
	}
	m, k := as[ra-2], as[ra-1]
	am, ak := k, 1
	if s.transA {
		m, k = k, m
		am, ak = 1, m
	}
	k2, n := bs[rb-2], bs[rb-1]
	bk, bn := n, 1
	if s.transB {
		k2, n = n, k2
		bk, bn = 1, k
	}
	if k != k2 {
		return nil, errs.New(errs.Runtime, "%s operands %v and %v: inner dims %d and %d differ", r.k.n.OpType, as, bs, k, k2)
	}
	batch, ok := broadcast(as[:ra-2], bs[:rb-2], s.rank)
	if !ok {
		return nil, errs.New(errs.Runtime, "MatMul cannot broadcast %v with %v", as, bs)
	}
	sa, sb := bstrides(as[:ra-2], s.rank), bstrides(bs[:rb-2], s.rank)
	bufs := []*gpu.Buffer{ab, bb}
	cm, cn := 0, 0
	if s.hasC {
		cb, cs, err := r.input(vs, 2)
		if err != nil {
			return nil, err
		}
		// Gemm's C has rank ≤ 2; MatMul's fused bias may have more, all 1
		// but the last (decide checked the rank's dims known at load).
		rows, cols := dimAt(cs, 0, 2), dimAt(cs, 1, 2)
		if (rows != 1 && rows != m) || (cols != 1 && cols != n) || len(cs) > 2 && prod(cs[:len(cs)-2]) != 1 {
			what := "Gemm's C"
			if r.k.n.OpType == "MatMul" {
				what = "MatMul's fused bias"
			}
			return nil, errs.New(errs.Runtime, "%s %v does not broadcast to (%d, %d)", what, cs, m, n)
		}
		if rows != 1 {
			cm = cols
		}
		if cols != 1 {
			cn = 1
		}
		bufs = append(bufs, cb)
	}
	ys := append(batch, m, n)
	if s.residual {
		rb, rs, err := r.input(vs, len(vs)-1)
		if err != nil {
			return nil, err
		}
		if !slices.Equal(rs, ys) {
			return nil, errs.New(errs.Runtime, "%s's fused residual %v does not have the output's shape %v", r.k.n.OpType, rs, ys)
		}
		bufs = append(bufs, rb)
	}
	y, err := r.output(ys)
	if err != nil {
		return nil, err
	}
	total := prod(ys)
	u := []uint32{uint32(total), uint32(m), uint32(n), uint32(k), uint32(am), uint32(ak), uint32(bk), uint32(bn), uint32(cm), uint32(cn),
		f32bits(s.alpha), f32bits(s.beta), f32bits(s.gAlpha), f32bits(s.gBeta)}
	for d := 0; d < s.rank; d++ {
		u = append(u, uint32(batch[d]), uint32(sa[d]*m*k), uint32(sb[d]*k*n))
	}
	if total == 0 {
		return y, nil
	}
	if nb := prod(batch); r.k.pTiled != nil && r.k.a.tiled() && m >= tile/2 && n >= tile/2 && nb <= r.k.a.d.Limits.MaxWorkgroupsPerDimension {
		err = r.dispatchGrid(r.k.pTiled, u, (n+tile-1)/tile, (m+tile-1)/tile, nb, append(bufs, y.buf)...)
	} else {
		err = r.dispatch(r.k.p, u, total, append(bufs, y.buf)...)
	}
	if err != nil {
		y.Release()
		return nil, err
	}
	return y, nil
}

// pointwise runs a 1×1, stride-1, unpadded Conv without groups as the
// tiled product Y[n] = W·X[n] (M×C by C×HW), the bias as Gemm's C
// broadcast along rows.
func (r *run) pointwise(xs, ys []int, m int, xb, wb, bb *gpu.Buffer) (*value, error) {
	s := r.k.s
	c, hw := xs[1], prod(xs[2:])
	y, err := r.output(ys)
	if err != nil {
		return nil, err
	}
	u := []uint32{uint32(prod(ys)), uint32(m), uint32(hw), uint32(c), uint32(c), 1, uint32(hw), 1, 1, 0,
		f32bits(s.alpha), f32bits(s.beta), f32bits(1), f32bits(1), uint32(xs[0]), 0, uint32(c * hw)}
	if err := r.dispatchGrid(r.k.pTiled, u, (hw+tile-1)/tile, (m+tile-1)/tile, xs[0], wb, xb, bb, y.buf); err != nil {
		y.Release()
		return nil, err
	}
	return y, nil
}

// copy relabels its input under a new shape (a buffer copy: outputs are
// always new values). Dropout's mask, when listed, is all true (a CPU
// tensor: the device holds float32 only).
func (r *run) copy(vs []tensor.Value) ([]tensor.Value, error) {
	s := r.k.s
	xb, xs, err := r.input(vs, 0)
	if err != nil {
		return nil, err
	}
	ys := append([]int(nil), xs...)
	switch r.k.n.OpType {
	case "Flatten":
		if s.axis > len(xs) {
			return nil, errs.New(errs.Runtime, "Flatten axis %d for shape %v", s.axis, xs)
		}
		ys = []int{prod(xs[:s.axis]), prod(xs[s.axis:])}
	case "Reshape":
		st, err := cpuInput(vs, 1)
		if err != nil {
			return nil, err
		}
		if st == nil {
			return nil, errs.New(errs.Runtime, "Reshape needs its shape input")
		}
		target, err := st.Int64s()
		if err != nil {
			return nil, errs.New(errs.Runtime, "Reshape shape: %v", err)
		}
		if ys, err = reshape(xs, target, s.allowZero); err != nil {
			return nil, errs.New(errs.Runtime, "%v", err)
		}
	}
	y, err := r.output(ys)
	if err != nil {
		return nil, err
	}
	r.k.a.d.Copy(y.buf, xb, 0, 0, prod(xs)*4)
	outs := []tensor.Value{y}
	if s.mask {
		m := tensor.New(tensor.Bool, xs...)
		mb := m.Bools()
		for i := range mb {
			mb[i] = true
		}
		outs = append(outs, m)
	}
	return outs, nil
}

// convTiled runs Conv as a tiled implicit GEMM: one 16×16 workgroup per
// block of (output channel, output position) of one (batch, group).
func (r *run) convTiled(xs, ys []int, m, cg, mg int, g *geom, bufs []*gpu.Buffer) (*value, error) {
	s := r.k.s
	y, err := r.output(ys)
	if err != nil {
		return nil, err
	}
	osz := g.out[0] * g.out[1] * g.out[2]
	kk := cg * g.k[0] * g.k[1] * g.k[2]
	u := []uint32{uint32(prod(ys)), uint32(xs[0]), uint32(xs[1]), uint32(m), uint32(cg), uint32(mg), f32bits(s.alpha), f32bits(s.beta)}
	u = g.words(u)
	u = append(u, uint32(kk), uint32(osz), uint32(s.win.Group))
	if err := r.dispatchGrid(r.k.pConvTiled, u, (osz+tile-1)/tile, (mg+tile-1)/tile, xs[0]*s.win.Group, append(bufs, y.buf)...); err != nil {
		y.Release()
		return nil, err
	}
	return y, nil
}
