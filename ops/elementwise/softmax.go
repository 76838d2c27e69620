package elementwise

import (
	"math"

	"github.com/chewxy/math32"
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Softmax, LogSoftmax and Hardmax changed meaning at version 13: before it the
// input is flattened to 2-D at `axis` (default 1) and the op runs over each
// row of that matrix, i.e. over all trailing dims together; from 13 it runs
// over the single dim `axis` (default -1). Both reduce to the same kernel over
// an (outer, n, inner) view, with inner = 1 in the old semantics.

type smKind int

// SoftmaxAttrs are Softmax's (LogSoftmax's, Hardmax's) attributes as the
// builder parsed them: Axis as written (negative counts from the end),
// Coerce2D for versions before 13 (the input flattened to 2-D at Axis).
// The WebGPU kernel reads them from the CPU kernel (op.AttrsKernel).
type SoftmaxAttrs struct {
	Axis     int64
	Coerce2D bool
}

const (
	smSoftmax smKind = iota
	smLog
	smHard
)

func init() {
	for name, k := range map[string]smKind{"Softmax": smSoftmax, "LogSoftmax": smLog, "Hardmax": smHard} {
		name, k := name, k
		shapes.Register("", name, shapes.SameAsInput0)
		op.Register(name, []int{1, 11, 13}, func(n *op.Node) (any, error) {
			def := int64(1)
			if n.Version >= 13 {
				def = -1
			}
			axis, err := n.Int("axis", def)
			if err != nil {
				return nil, err
			}
			coerce := n.Version < 13
			return op.WithAttrs(op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
				x, err := input0(in)
				if err != nil {
					return nil, err
				}
				dt := x.DType()
				if !isFloatish(dt) {
					return nil, badType(name, dt)
				}
				shape := x.Shape()
				r := len(shape)
				var outer, mid, inner int
				switch {
				case r == 0:
					outer, mid, inner = 1, 1, 1
				case coerce:
					a := int(axis)
					if a < 0 {
						a += r
					}
					if a < 0 || a > r {
						return nil, op.Errorf("axis %d is out of range for rank %d", axis, r)
					}
					outer, mid, inner = opsutil.Product(shape[:a]), opsutil.Product(shape[a:]), 1
				default:
					a, err := opsutil.NormAxis(axis, r)
					if err != nil {
						return nil, err
					}
					outer, mid, inner = opsutil.Product(shape[:a]), shape[a], opsutil.Product(shape[a+1:])
				}
				out := ctx.New(dt, shape...)
				if x.Len() == 0 {
					return ctx.One(out), nil
				}
				if dt == tensor.Double {
					softmaxT(k, out.F64(), x.F64(), outer, mid, inner, softmaxRow[float64])
				} else {
					softmaxT(k, out.F32(), x.F32(), outer, mid, inner, softmaxRowF32)
				}
				return ctx.One(out), nil
			}), SoftmaxAttrs{Axis: axis, Coerce2D: coerce}), nil
		})
	}
}

func softmaxT[T float32 | float64](k smKind, dst, src []T, outer, n, inner int, row func(k smKind, d, s []T)) {
	if inner == 1 {
		for o := 0; o < outer; o++ {
			row(k, dst[o*n:(o+1)*n], src[o*n:(o+1)*n])
		}
		return
	}
	// Strided case: gather each column into a scratch row so the row kernel
	// (and its cache behaviour) is shared.
	col := make([]T, n)
	res := make([]T, n)
	for o := 0; o < outer; o++ {
		base := o * n * inner
		for i := 0; i < inner; i++ {
			for j := 0; j < n; j++ {
				col[j] = src[base+j*inner+i]
			}
			row(k, res, col)
			for j := 0; j < n; j++ {
				dst[base+j*inner+i] = res[j]
			}
		}
	}
}

// softmaxRowF32 is the float32 row kernel: exp32 and the vector loops of
// fastmath_*.go for Softmax and LogSoftmax, no float64 round trips.
func softmaxRowF32(k smKind, d, s []float32) {
	switch k {
	case smSoftmax:
		sum := expSubSumF32(d, s, maxF32(s))
		scaleF32(d, 1/sum)
	case smLog:
		m := maxF32(s)
		l := math32.Log(expSubSumF32(d, s, m)) // d is scratch here
		for j, v := range s {
			d[j] = v - m - l
		}
	default:
		softmaxRow(k, d, s)
	}
}

// softmaxRow is the float64 row kernel (and float32 Hardmax).
func softmaxRow[T float32 | float64](k smKind, d, s []T) {
	exp := func(x T) T { return T(math.Exp(float64(x))) }
	log := func(x T) T { return T(math.Log(float64(x))) }
	d = d[:len(s)]
	m := s[0]
	arg := 0
	for j, v := range s {
		if v > m {
			m, arg = v, j
		}
	}
	switch k {
	case smHard:
		for j := range d {
			d[j] = 0
		}
		d[arg] = 1
	case smSoftmax:
		var sum T
		for j, v := range s {
			e := exp(v - m)
			d[j] = e
			sum += e
		}
		inv := 1 / sum
		for j := range d {
			d[j] *= inv
		}
	case smLog:
		var sum T
		for _, v := range s {
			sum += exp(v - m)
		}
		l := log(sum)
		for j, v := range s {
			d[j] = v - m - l
		}
	}
}
