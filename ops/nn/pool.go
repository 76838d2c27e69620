package nn

import (
	"math"

	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/ops/window"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Pooling versions: MaxPool-8 added storage_order and the Indices output,
// 10 added ceil_mode and dilations, 12 int8/uint8; AveragePool-7 added
// count_include_pad, 10 ceil_mode, 19 dilations; LpPool-2 made p an int
// (it was a float in LpPool-1), 18 added ceil_mode and dilations. Older
// models cannot carry the newer attributes, so one implementation reading
// them all is faithful to every version.
func init() {
	op.Register("MaxPool", []int{1, 8, 10, 11, 12, 22}, buildPool(poolMax))
	shapes.Register("", "MaxPool", shapes.Pool)
	op.Register("AveragePool", []int{1, 7, 10, 11, 19, 22}, buildPool(poolAvg))
	shapes.Register("", "AveragePool", shapes.Pool)
	op.Register("LpPool", []int{1, 2, 11, 18, 22}, buildPool(poolLp))
	shapes.Register("", "LpPool", shapes.Pool)
	op.Register("GlobalAveragePool", []int{1, 22}, buildGlobalPool(poolAvg))
	shapes.Register("", "GlobalAveragePool", shapes.GlobalPool)
	op.Register("GlobalMaxPool", []int{1, 22}, buildGlobalPool(poolMax))
	shapes.Register("", "GlobalMaxPool", shapes.GlobalPool)
	op.Register("GlobalLpPool", []int{1, 2, 22}, buildGlobalPool(poolLp))
	shapes.Register("", "GlobalLpPool", shapes.GlobalPool)
}

type poolKind int

const (
	poolMax poolKind = iota
	poolAvg
	poolLp
)

type poolAttrs struct {
	win  *window.Attrs // parsed once by ops/window; the kernel exposes it (op.AttrsKernel) to the WebGPU kernels
	kind poolKind
	p    float64
}

// readP reads LpPool's p, a FLOAT attribute in version 1 and an INT after.
func readP(n *op.Node) (float64, error) {
	if n.Version < 2 {
		f, err := n.Float("p", 2)
		return float64(f), err
	}
	i, err := n.Int("p", 2)
	return float64(i), err
}

func buildPool(kind poolKind) op.Builder {
	return func(n *op.Node) (any, error) {
		win, err := window.Parse(n)
		if err != nil {
			return nil, err
		}
		p := &poolAttrs{win: win, kind: kind}
		if p.win.Kernel == nil {
			return nil, n.Errorf("kernel_shape is required")
		}
		if kind == poolLp {
			var err error
			if p.p, err = readP(n); err != nil {
				return nil, err
			}
		}
		var plans planCache[*poolPlan]
		return op.WithAttrs(op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
			x := in[0]
			if x == nil || x.Rank() < 3 {
				return nil, op.Errorf("pooling needs an input of rank ≥ 3")
			}
			if len(p.win.Kernel) != x.Rank()-2 {
				return nil, op.Errorf("kernel_shape %v does not match input rank %d", p.win.Kernel, x.Rank())
			}
			pp, ok := plans.get(x.Shape(), nil, nil)
			if !ok {
				g, err := p.win.Forward(x.Shape()[2:], nil)
				if err != nil {
					return nil, err
				}
				pp = &poolPlan{g: convGeom(g), padsEnd: g.PadsEnd, shape: append([]int{x.Shape()[0], x.Shape()[1]}, g.Out...)}
				plans.put(x.Shape(), nil, nil, pp)
			}
			g, padsEnd, shape := pp.g, pp.padsEnd, pp.shape
			y := ctx.New(x.DType(), shape...)
			var idx []int64
			wantIdx := n.HasOutput(1) && kind == poolMax
			var it *tensor.Tensor
			if wantIdx {
				it = ctx.New(tensor.Int64, shape...)
				idx = it.I64()
			}
			planes := shape[0] * shape[1]
			switch xd := x.Data().(type) {
			case []float32:
				if len(g.In) == 2 && (kind == poolMax && idx == nil || kind == poolAvg) {
					pool2D(xd, y.F32(), planes, g, padsEnd, p)
					break
				}
				poolRun(xd, y.F32(), idx, planes, g, padsEnd, p)
			case []float64:
				poolRun(xd, y.F64(), idx, planes, g, padsEnd, p)
			case []uint8:
				if kind != poolMax || x.DType() != tensor.Uint8 {
					return nil, op.Errorf("pooling does not support %s", x.DType())
				}
				poolRun(xd, tensor.Data[uint8](y), idx, planes, g, padsEnd, p)
			case []int8:
				if kind != poolMax || x.DType() != tensor.Int8 {
					return nil, op.Errorf("pooling does not support %s", x.DType())
				}
				poolRun(xd, tensor.Data[int8](y), idx, planes, g, padsEnd, p)
			default:
				return nil, op.Errorf("pooling does not support %s", x.DType())
			}
			if wantIdx {
				return []*tensor.Tensor{y, it}, nil
			}
			return ctx.One(y), nil
		}), p.win), nil
	}
}

// pool2D is the float32 fast path for 2-D MaxPool (without Indices) and
// AveragePool.
func pool2D(x, y []float32, planes int, g *kernels.ConvGeom, padsEnd []int, p *poolAttrs) {
	if p.kind == poolMax {
		kernels.MaxPool2D(x, y, planes, g)
	} else {
		kernels.AvgPool2D(x, y, planes, g, padsEnd, p.win.CountIncludePad)
	}
}

// poolPlan is a pooling node's geometry for one input shape.
type poolPlan struct {
	g       *kernels.ConvGeom
	padsEnd []int
	shape   []int
}

type poolElem interface {
	~float32 | ~float64 | ~uint8 | ~int8
}

func lowest[T poolElem]() T {
	var z T
	switch any(z).(type) {
	case float32:
		return T(float32(math.Inf(-1)))
	case float64:
		return T(math.Inf(-1))
	case int8:
		v := int8(math.MinInt8)
		return T(v)
	}
	return 0
}

// poolRun sweeps every (n, c) plane. For each output position it walks the
// kernel taps, skipping those that fall in the padding (or, with ceil_mode,
// past it). Taps are precomputed as per-dim offsets so the N-D walk needs no
// division in the inner loop.
func poolRun[T poolElem](x, y []T, idx []int64, planes int, g *kernels.ConvGeom, padsEnd []int, p *poolAttrs) {
	nd := len(g.In)
	is, os, ks := g.InSize(), g.OutSize(), g.KernelSize()
	// tapOff[t*nd+d] is tap t's dilated offset along dim d.
	tapOff := make([]int, ks*nd)
	kidx := make([]int, nd)
	for t := 0; t < ks; t++ {
		for d := 0; d < nd; d++ {
			tapOff[t*nd+d] = kidx[d] * g.Dilations[d]
		}
		incr(kidx, g.Kernel)
	}
	// Column-major strides for storage_order=1 Indices.
	colStride := make([]int, nd)
	st := 1
	for d := 0; d < nd; d++ {
		colStride[d] = st
		st *= g.In[d]
	}
	start := make([]int, nd)
	oidx := make([]int, nd)
	low := lowest[T]()
	for pl := 0; pl < planes; pl++ {
		xp := x[pl*is : (pl+1)*is]
		yp := y[pl*os : (pl+1)*os]
		clear(oidx)
		for o := 0; o < os; o++ {
			for d := 0; d < nd; d++ {
				start[d] = oidx[d]*g.Strides[d] - g.PadsBegin[d]
			}
			best, bestAt := low, -1
			var sum float64
			count := 0
			for t := 0; t < ks; t++ {
				off, ok, inPad := 0, true, true
				for d := 0; d < nd; d++ {
					c := start[d] + tapOff[t*nd+d]
					if c < 0 || c >= g.In[d] {
						ok = false
						if c < -g.PadsBegin[d] || c >= g.In[d]+padsEnd[d] {
							inPad = false
						}
						continue
					}
					off = off*g.In[d] + c
				}
				if !ok {
					if inPad && p.win.CountIncludePad {
						count++
					}
					continue
				}
				v := xp[off]
				count++
				switch p.kind {
				case poolMax:
					if v > best || bestAt < 0 && !(v < best) {
						best, bestAt = v, off
					}
				case poolAvg:
					sum += float64(v)
				case poolLp:
					sum += math.Pow(math.Abs(float64(v)), p.p)
				}
			}
			switch p.kind {
			case poolMax:
				yp[o] = best
				if idx != nil {
					if bestAt < 0 {
						bestAt = 0
					}
					if p.win.StorageOrder == 1 {
						r := 0
						for d := nd - 1; d >= 0; d-- {
							r += (bestAt % g.In[d]) * colStride[d]
							bestAt /= g.In[d]
						}
						bestAt = r
					}
					idx[pl*os+o] = int64(pl*is + bestAt)
				}
			case poolAvg:
				if count > 0 {
					yp[o] = T(sum / float64(count))
				} else {
					yp[o] = 0
				}
			case poolLp:
				yp[o] = T(math.Pow(sum, 1/p.p))
			}
			incr(oidx, g.Out)
		}
	}
}

func incr(idx, dims []int) {
	for d := len(dims) - 1; d >= 0; d-- {
		idx[d]++
		if idx[d] < dims[d] {
			return
		}
		idx[d] = 0
	}
}

func buildGlobalPool(kind poolKind) op.Builder {
	return func(n *op.Node) (any, error) {
		p := 2.0
		if kind == poolLp {
			var err error
			if p, err = readP(n); err != nil {
				return nil, err
			}
		}
		return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
			x := in[0]
			if x == nil || x.Rank() < 2 {
				return nil, op.Errorf("global pooling needs an input of rank ≥ 2")
			}
			var dims [8]int // on the stack for ranks up to 8
			shape := append(dims[:0], x.Shape()...)
			is := 1
			for d := 2; d < len(shape); d++ {
				is *= shape[d]
				shape[d] = 1
			}
			y := ctx.New(x.DType(), shape...)
			planes := shape[0] * shape[1]
			switch xd := x.Data().(type) {
			case []float32:
				if kind == poolAvg {
					kernels.GlobalAvgPool(xd, y.F32(), planes, is)
					break
				}
				globalPool(xd, y.F32(), planes, is, kind, p)
			case []float64:
				if kind == poolAvg {
					kernels.PlaneMeans(xd, y.F64(), planes, is)
					break
				}
				globalPool(xd, y.F64(), planes, is, kind, p)
			default:
				return nil, op.Errorf("global pooling does not support %s", x.DType())
			}
			return ctx.One(y), nil
		}), nil
	}
}

// globalPool is GlobalMaxPool (NaN wins) and GlobalLpPool over planes of is
// elements (GlobalAveragePool takes kernels.PlaneMeans or GlobalAvgPool).
func globalPool[T kernels.Float](x, y []T, planes, is int, kind poolKind, p float64) {
	for pl := 0; pl < planes; pl++ {
		xp := x[pl*is : (pl+1)*is]
		switch kind {
		case poolMax:
			m := T(math.Inf(-1))
			for _, v := range xp {
				if v > m || v != v {
					m = v
				}
			}
			y[pl] = m
		case poolLp:
			var s float64
			for _, v := range xp {
				s += math.Pow(math.Abs(float64(v)), p)
			}
			y[pl] = T(math.Pow(s, 1/p))
		}
	}
}
