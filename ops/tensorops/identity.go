package tensorops

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Identity", []int{1, 13, 14, 16, 19, 21, 23, 24, 25}, buildIdentity)
	shapes.Register("", "Identity", shapes.Pass)
}

// identityKernel passes its input through. It is a ValueKernel because
// Identity-14 accepts sequences and Identity-16 optionals; values are
// immutable, so no copy is needed.
type identityKernel struct{}

func (identityKernel) RunValues(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
	if len(in) < 1 || in[0] == nil {
		return nil, op.Errorf("Identity needs an input")
	}
	return []tensor.Value{in[0]}, nil
}

func buildIdentity(n *op.Node) (any, error) { return identityKernel{}, nil }
