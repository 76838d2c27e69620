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
	op.Register("GridSample", []int{16, 20, 22}, buildGridSample)
	shapes.Register("", "GridSample", inferGridSample)
	op.Register("AffineGrid", []int{20}, buildAffineGrid)
}

type gridPad int

const (
	gridZeros gridPad = iota
	gridBorder
	gridReflection
)

// gridDenorm maps a normalized grid value in [-1, 1] to a pixel coordinate:
// with align_corners -1 and 1 are the centers of the corner pixels, without
// it they are the outer edges of the corner pixels.
func gridDenorm(g float64, size int, alignCorners bool) float64 {
	if alignCorners {
		return (g + 1) / 2 * float64(size-1)
	}
	return ((g+1)*float64(size) - 1) / 2
}

// reflectCoord folds x into [lo, hi] by repeated reflection at the borders
// (x = -3.5 with borders -1 and 1 becomes 1.5, then 0.5, the spec's example).
func reflectCoord(x, lo, hi float64) float64 {
	span := hi - lo
	if span <= 0 {
		return lo
	}
	d := math.Abs(x - lo)
	flips := math.Floor(d / span)
	extra := d - flips*span
	if int64(flips)%2 == 0 {
		return lo + extra
	}
	return hi - extra
}

// gridPadCoord applies border or reflection padding to a coordinate (or a
// cubic tap index): reflection folds it at the borders (pixel centers with
// align_corners, pixel edges without) and both clip it into [0, size-1].
func gridPadCoord(x float64, size int, pad gridPad, alignCorners bool) float64 {
	switch pad {
	case gridBorder:
		return math.Min(math.Max(x, 0), float64(size-1))
	case gridReflection:
		if alignCorners {
			x = reflectCoord(x, 0, float64(size-1))
		} else {
			x = reflectCoord(x, -0.5, float64(size)-0.5)
		}
		return math.Min(math.Max(x, 0), float64(size-1))
	}
	return x
}

type gridSampler struct {
	mode  Mode
	pad   gridPad
	align bool
}

func buildGridSample(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	defMode := "linear"
	if n.Version < 20 {
		defMode = "bilinear"
	}
	ms := a.String("mode", defMode)
	ps := a.String("padding_mode", "zeros")
	ac := a.Int("align_corners", 0)
	if a.Err != nil {
		return nil, a.Err
	}
	g := &gridSampler{align: ac != 0}
	switch {
	case ms == "nearest":
		g.mode = Nearest
	case ms == "bilinear" && n.Version < 20, ms == "linear" && n.Version >= 20:
		g.mode = Linear
	case ms == "bicubic" && n.Version < 20, ms == "cubic" && n.Version >= 20:
		g.mode = Cubic
	default:
		return nil, n.Errorf("mode %q is not a GridSample-%d mode", ms, n.Version)
	}
	switch ps {
	case "zeros":
		g.pad = gridZeros
	case "border":
		g.pad = gridBorder
	case "reflection":
		g.pad = gridReflection
	default:
		return nil, n.Errorf("unknown padding_mode %q", ps)
	}
	version := n.Version
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, grid := in[0], in[1]
		r := x.Rank() - 2
		if r < 1 || (version < 20 && r != 2) {
			return nil, op.Errorf("GridSample-%d does not take an input of shape %v", version, x.Shape())
		}
		if grid.Rank() != r+2 || grid.Shape()[0] != x.Shape()[0] || grid.Shape()[r+1] != r {
			return nil, op.Errorf("grid %v does not match input %v", grid.Shape(), x.Shape())
		}
		if !opsutil.IsNumeric(x.DType()) {
			return nil, op.Errorf("GridSample does not support %s", x.DType())
		}
		outShape := append([]int{x.Shape()[0], x.Shape()[1]}, grid.Shape()[1:r+1]...)
		out := ctx.New(x.DType(), outShape...)
		xv, err := toF64(x)
		if err != nil {
			return nil, err
		}
		gv, err := grid.Float64s()
		if err != nil {
			return nil, op.Errorf("grid: %v", err)
		}
		res := g.sample(xv, x.Shape(), gv, outShape)
		storeF64(out, res)
		return ctx.One(out), nil
	}), nil
}

// sample computes every output element. For each output location and each
// spatial axis it builds the taps (index into the axis, or -1 for a zero,
// and weight); the value is the sum over the product of the axes' taps.
func (g *gridSampler) sample(x []float64, xs []int, grid []float64, os []int) []float64 {
	N, C := xs[0], xs[1]
	sp := xs[2:]
	r := len(sp)
	nOut := 1
	for _, v := range os[2:] {
		nOut *= v
	}
	inSp := 1
	for _, v := range sp {
		inSp *= v
	}
	strides := make([]int, r)
	s := 1
	for d := r - 1; d >= 0; d-- {
		strides[d] = s
		s *= sp[d]
	}
	res := make([]float64, N*C*nOut)
	ntap := map[Mode]int{Nearest: 1, Linear: 2, Cubic: 4}[g.mode]
	idx := make([][]int, r)
	wts := make([][]float64, r)
	for d := range idx {
		idx[d] = make([]int, ntap)
		wts[d] = make([]float64, ntap)
	}
	total := 1
	for i := 0; i < r; i++ {
		total *= ntap
	}
	for n := 0; n < N; n++ {
		for p := 0; p < nOut; p++ {
			gvec := grid[(n*nOut+p)*r : (n*nOut+p+1)*r]
			for d := 0; d < r; d++ {
				size := sp[d]
				c := gridDenorm(gvec[r-1-d], size, g.align)
				g.taps(c, size, idx[d], wts[d])
			}
			for ch := 0; ch < C; ch++ {
				base := (n*C + ch) * inSp
				sum := 0.0
				for t := 0; t < total; t++ {
					w, off, rem := 1.0, 0, t
					for d := r - 1; d >= 0; d-- {
						k := rem % ntap
						rem /= ntap
						if idx[d][k] < 0 {
							w = 0
							break
						}
						w *= wts[d][k]
						off += idx[d][k] * strides[d]
					}
					if w != 0 {
						sum += w * x[base+off]
					}
				}
				res[(n*C+ch)*nOut+p] = sum
			}
		}
	}
	return res
}

// taps fills the indices (-1: outside, reads 0) and weights of one axis.
func (g *gridSampler) taps(c float64, size int, idx []int, w []float64) {
	inside := func(i float64) int {
		if i < 0 || i > float64(size-1) || math.IsNaN(i) {
			return -1
		}
		return int(i)
	}
	switch g.mode {
	case Nearest:
		c = gridPadCoord(c, size, g.pad, g.align)
		idx[0], w[0] = inside(math.RoundToEven(c)), 1
	case Linear:
		c = gridPadCoord(c, size, g.pad, g.align)
		f := math.Floor(c)
		t := c - f
		idx[0], w[0] = inside(f), 1-t
		idx[1], w[1] = inside(f+1), t
	case Cubic:
		// No padding of the coordinate: each of the four taps is padded.
		f := math.Floor(c)
		t := c - f
		const a = -0.75
		for k := 0; k < 4; k++ {
			i := f - 1 + float64(k)
			w[k] = cubicW(float64(k-1)-t, a)
			if g.pad != gridZeros {
				i = gridPadCoord(i, size, g.pad, g.align)
			}
			idx[k] = inside(i)
		}
	}
}

func buildAffineGrid(n *op.Node) (any, error) {
	ac, err := n.Int("align_corners", 0)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		theta := in[0]
		size, err := in[1].Int64s()
		if err != nil {
			return nil, op.Errorf("size: %v", err)
		}
		if len(size) != 4 && len(size) != 5 {
			return nil, op.Errorf("size must have 4 or 5 values, got %v", size)
		}
		r := len(size) - 2
		N := int(size[0])
		if theta.Rank() != 3 || theta.Shape()[0] != N || theta.Shape()[1] != r || theta.Shape()[2] != r+1 {
			return nil, op.Errorf("theta %v does not match size %v", theta.Shape(), size)
		}
		sp := make([]int, r)
		for i := range sp {
			if size[2+i] < 0 {
				return nil, op.Errorf("negative size %v", size)
			}
			sp[i] = int(size[2+i])
		}
		outShape := append(append([]int{N}, sp...), r)
		out := ctx.New(theta.DType(), outShape...)
		th, err := theta.Float64s()
		if err != nil {
			return nil, op.Errorf("theta: %v", err)
		}
		// base[d] holds the evenly spaced positions of spatial axis d.
		base := make([][]float64, r)
		for d, m := range sp {
			base[d] = make([]float64, m)
			for i := range base[d] {
				if m > 1 {
					v := -1 + 2*float64(i)/float64(m-1)
					if ac == 0 {
						v = v * float64(m-1) / float64(m)
					}
					base[d][i] = v
				}
			}
		}
		npos := 1
		for _, m := range sp {
			npos *= m
		}
		res := make([]float64, N*npos*r)
		pos := make([]float64, r+1) // (x, y[, z], 1): innermost axis first
		idx := make([]int, r)
		for b := 0; b < N; b++ {
			t := th[b*r*(r+1) : (b+1)*r*(r+1)]
			for i := range idx {
				idx[i] = 0
			}
			for p := 0; p < npos; p++ {
				for d := 0; d < r; d++ {
					pos[r-1-d] = base[d][idx[d]]
				}
				pos[r] = 1
				for row := 0; row < r; row++ {
					s := 0.0
					for k := 0; k <= r; k++ {
						s += t[row*(r+1)+k] * pos[k]
					}
					res[(b*npos+p)*r+row] = s
				}
				for d := r - 1; d >= 0; d-- {
					idx[d]++
					if idx[d] < sp[d] {
						break
					}
					idx[d] = 0
				}
			}
		}
		storeF64(out, res)
		return ctx.One(out), nil
	}), nil
}

// inferGridSample: N and C of the input, the grid's spatial dims.
func inferGridSample(c *shapes.Ctx) {
	x, g := c.Shape(0), c.Shape(1)
	if x == nil || g == nil || len(g) != len(x) {
		c.Set(0, nil, "")
		return
	}
	c.Set(0, append([]graph.Dim{x[0], x[1]}, g[1:len(g)-1]...), "")
}
