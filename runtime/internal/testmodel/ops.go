package testmodel

import (
	"sync/atomic"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Domain is the custom domain of the test-only ops.
const Domain = "test.gort"

// Registry returns a registry with a few tiny ops, so that loader and
// session tests do not depend on package ops (written concurrently, and
// whose bugs should not fail these tests):
//
//   - Add (every spec version): float32 a+b, b of the same shape as a or a scalar.
//   - Identity (every spec version).
//   - Resize at 10, 11 and 13 only (an identity; for version-resolution tests).
//   - test.gort Scale(x; alpha=1.0): x*alpha.
//   - test.gort Fail: always fails with a Runtime error.
//   - test.gort Count: an identity that increments ran, if not nil.
//   - test.gort Const(; value): the tensor attribute.
//   - test.gort Call(; body): runs the GRAPH attribute body without inputs
//     and returns its first output (for outer-scope tests).
func Registry(ran *atomic.Int64) *op.Registry {
	r := op.NewRegistry()
	r.Register("", "Add", []int{1, 6, 7, 13, 14}, buildAdd)
	r.Register("", "Identity", []int{1, 13, 14, 16, 19, 21, 23, 24, 25}, buildIdentity)
	r.Register("", "Resize", []int{10, 11, 13}, buildIdentity)
	r.Register(Domain, "Scale", []int{1}, buildScale)
	r.Register(Domain, "Fail", []int{1}, func(n *op.Node) (any, error) {
		return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
			return nil, op.Errorf("Fail always fails")
		}), nil
	})
	r.Register(Domain, "Count", []int{1}, func(n *op.Node) (any, error) {
		return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
			if ran != nil {
				ran.Add(1)
			}
			return []*tensor.Tensor{in[0]}, nil
		}), nil
	})
	r.Register(Domain, "Const", []int{1}, func(n *op.Node) (any, error) {
		v, err := n.Tensor("value")
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, n.Errorf("Const needs a value")
		}
		return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
			return []*tensor.Tensor{v}, nil
		}), nil
	})
	r.Register(Domain, "Call", []int{1}, func(n *op.Node) (any, error) {
		body := n.Graph("body")
		if body == nil {
			return nil, n.Errorf("Call needs a body")
		}
		return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
			outs, err := ctx.RunSubgraph(body, nil)
			if err != nil {
				return nil, err
			}
			t, ok := outs[0].(*tensor.Tensor)
			if !ok {
				return nil, op.Errorf("Call: body returned %T", outs[0])
			}
			return []*tensor.Tensor{t}, nil
		}), nil
	})
	return r
}

func buildIdentity(n *op.Node) (any, error) {
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		return []*tensor.Tensor{in[0]}, nil
	}), nil
}

func buildAdd(n *op.Node) (any, error) {
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		a, b := in[0], in[1]
		if a.DType() != tensor.Float || b.DType() != tensor.Float {
			return nil, op.Errorf("test Add takes float32")
		}
		if b.Len() != 1 && b.Len() != a.Len() {
			return nil, op.Errorf("test Add: shapes %v and %v", a.Shape(), b.Shape())
		}
		out := ctx.New(tensor.Float, a.Shape()...)
		o, x, y := out.F32(), a.F32(), b.F32()
		for i := range o {
			if len(y) == 1 {
				o[i] = x[i] + y[0]
			} else {
				o[i] = x[i] + y[i]
			}
		}
		return []*tensor.Tensor{out}, nil
	}), nil
}

func buildScale(n *op.Node) (any, error) {
	alpha, err := n.Float("alpha", 1)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		out := ctx.New(tensor.Float, in[0].Shape()...)
		for i, v := range in[0].F32() {
			out.F32()[i] = v * alpha
		}
		return []*tensor.Tensor{out}, nil
	}), nil
}
