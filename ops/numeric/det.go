package numeric

import (
	"math"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Det", []int{11, 22}, buildDet)
	shapes.Register("", "Det", inferDet)
}

// buildDet: determinants of the trailing [M, M] matrices, by LU
// decomposition with partial pivoting in float64. Version 22 only widened
// the types.
func buildDet(n *op.Node) (any, error) {
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil || !isReal(in[0]) {
			return nil, op.Errorf("Det needs a float input")
		}
		x := in[0]
		sh := x.Shape()
		r := len(sh)
		if r < 2 || sh[r-1] != sh[r-2] {
			return nil, op.Errorf("Det needs [..., M, M], got %v", sh)
		}
		m := sh[r-1]
		batch := opsutil.Product(sh[:r-2])
		xs, _ := x.Float64s()
		out := ctx.New(x.DType(), sh[:r-2]...)
		a := make([]float64, m*m)
		for b := 0; b < batch; b++ {
			copy(a, xs[b*m*m:(b+1)*m*m])
			v := luDet(a, m)
			if d, ok := out.Data().([]float64); ok {
				d[b] = v
			} else {
				out.F32()[b] = float32(v)
			}
		}
		return ctx.One(out), nil
	}), nil
}

// luDet destroys a (row-major m×m) and returns its determinant.
func luDet(a []float64, m int) float64 {
	det := 1.0
	for c := 0; c < m; c++ {
		piv := c
		for r := c + 1; r < m; r++ {
			if math.Abs(a[r*m+c]) > math.Abs(a[piv*m+c]) {
				piv = r
			}
		}
		if a[piv*m+c] == 0 {
			return 0
		}
		if piv != c {
			for k := 0; k < m; k++ {
				a[c*m+k], a[piv*m+k] = a[piv*m+k], a[c*m+k]
			}
			det = -det
		}
		d := a[c*m+c]
		det *= d
		for r := c + 1; r < m; r++ {
			f := a[r*m+c] / d
			if f == 0 {
				continue
			}
			for k := c; k < m; k++ {
				a[r*m+k] -= f * a[c*m+k]
			}
		}
	}
	return det
}

// inferDet: the batch dims, without the two matrix axes.
func inferDet(c *shapes.Ctx) {
	if x := c.Shape(0); len(x) >= 2 {
		c.Set(0, append(make([]graph.Dim, 0, len(x)-2), x[:len(x)-2]...), "")
	}
}
