package tensorops

import (
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Constant", []int{1, 9, 11, 12, 13, 19, 21, 23, 24, 25}, buildConstant)
	shapes.Register("", "Constant", inferConstant)
}

// buildConstant decodes the value once, at load: a Constant's output never
// changes, and tensors are immutable, so every run returns the same tensor.
func buildConstant(n *op.Node) (any, error) {
	allowed := []string{"value"}
	if n.Version >= 11 {
		allowed = append(allowed, "sparse_value")
	}
	if n.Version >= 12 {
		allowed = append(allowed, "value_float", "value_floats", "value_int", "value_ints", "value_string", "value_strings")
	}
	var set []string
	for _, name := range allowed {
		if n.Has(name) {
			set = append(set, name)
		}
	}
	if len(set) != 1 {
		return nil, n.Errorf("Constant-%d needs exactly one of %v, got %v", n.Version, allowed, set)
	}
	var t *tensor.Tensor
	switch set[0] {
	case "value":
		v, err := n.Tensor("value")
		if err != nil {
			return nil, err
		}
		t = v
	case "sparse_value":
		sp := n.Attrs["sparse_value"].GetSparseTensor()
		if sp == nil {
			return nil, n.Errorf("attribute sparse_value holds no sparse tensor")
		}
		v, err := protoconv.Sparse(sp, n.MaxBytes)
		if err != nil {
			return nil, errs.AtNode(err, n.Name)
		}
		t = v
	case "value_float":
		v, err := n.Float("value_float", 0)
		if err != nil {
			return nil, err
		}
		t = tensor.Scalar(v)
	case "value_floats":
		v, _, err := n.Floats("value_floats")
		if err != nil {
			return nil, err
		}
		t = tensor.Of([]int{len(v)}, append([]float32{}, v...))
	case "value_int":
		v, err := n.Int("value_int", 0)
		if err != nil {
			return nil, err
		}
		t = tensor.Scalar(v)
	case "value_ints":
		v, _, err := n.Ints("value_ints")
		if err != nil {
			return nil, err
		}
		t = tensor.Of([]int{len(v)}, append([]int64{}, v...))
	case "value_string":
		v, err := n.String("value_string", "")
		if err != nil {
			return nil, err
		}
		t = tensor.Scalar(v)
	case "value_strings":
		v, _, err := n.Strings("value_strings")
		if err != nil {
			return nil, err
		}
		t = tensor.Of([]int{len(v)}, v)
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		return ctx.One(t), nil
	}), nil
}

func inferConstant(c *shapes.Ctx) {
	// Constants are folded (their kernel runs); reaching here means the
	// value was too large: take the shape from the attribute.
	if a := c.Attr("value"); a != nil && a.GetT() != nil {
		c.Set(0, shapes.Dims(a.GetT().GetDims()), "")
		c.SetElem(0, tensor.DType(a.GetT().GetDataType()))
		return
	}
	c.Set(0, nil, "sparse or list Constant")
}
