package contrib

import (
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// in returns input i, nil when it is omitted.
func in(ts []*tensor.Tensor, i int) *tensor.Tensor {
	if i < len(ts) {
		return ts[i]
	}
	return nil
}

// checkFloat accepts the float tensors (float32 storage or float64) that
// are given, all of x's dtype.
func checkFloat(name string, x *tensor.Tensor, others ...*tensor.Tensor) error {
	dt := x.DType()
	if !dt.IsFloat() && dt != tensor.Double {
		return op.Errorf("%s needs float tensors, got %s", name, dt)
	}
	for _, t := range others {
		if t != nil && t.DType() != dt {
			return op.Errorf("%s: inputs of %s and %s", name, dt, t.DType())
		}
	}
	return nil
}

// checkVector requires t (when given) to be 1-D with n elements, as the
// contrib ops' bias, gamma and beta are.
func checkVector(name, what string, t *tensor.Tensor, n int) error {
	if t != nil && (t.Rank() != 1 || t.Shape()[0] != n) {
		return op.Errorf("%s: %s must have shape [%d], got %v", name, what, n, t.Shape())
	}
	return nil
}

// sameAsInput0 is the rule of the ops whose every output listed has input
// 0's type and shape.
func sameAsInput0(c *shapes.Ctx) {
	x := c.Input(0)
	for i := 0; i < c.NumOut(); i++ {
		if x != nil && x.Type.Elem != 0 {
			c.SetElem(i, x.Type.Elem)
		}
		c.Set(i, c.Shape(0), "")
	}
}

// statShape is x's shape with the dims from axis on set to 1: the shape of
// the layer norms' mean and inv_std_var outputs.
func statShape(x []graph.Dim, axis int) []graph.Dim {
	if x == nil {
		return nil
	}
	s := append([]graph.Dim(nil), x...)
	for i := axis; i < len(s); i++ {
		s[i] = shapes.Known(1)
	}
	return s
}
