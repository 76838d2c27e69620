package control

import (
	"reflect"
	"slices"
	"strconv"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// copyElems copies n elements of src starting at si into dst starting at di.
// Control-flow ops move whole blocks of any dtype, so they go through reflect
// once per block instead of a per-element type switch.
func copyElems(dst *tensor.Tensor, di int, src *tensor.Tensor, si, n int) {
	if n == 0 {
		return
	}
	reflect.Copy(reflect.ValueOf(dst.Data()).Slice(di, di+n), reflect.ValueOf(src.Data()).Slice(si, si+n))
}

// splitAround returns the element counts before, at and after axis.
func splitAround(shape []int, axis int) (outer, dim, inner int) {
	return opsutil.Product(shape[:axis]), shape[axis], opsutil.Product(shape[axis+1:])
}

// sliceAt returns t indexed at position i along axis (rank reduced by one).
func sliceAt(ctx *op.Context, t *tensor.Tensor, axis, i int) *tensor.Tensor {
	shape := t.Shape()
	outer, dim, inner := splitAround(shape, axis)
	outShape := append(append([]int(nil), shape[:axis]...), shape[axis+1:]...)
	out := ctx.New(t.DType(), outShape...)
	for o := 0; o < outer; o++ {
		copyElems(out, o*inner, t, (o*dim+i)*inner, inner)
	}
	return out
}

// sliceRange returns t[start:start+n] along axis (rank kept).
func sliceRange(ctx *op.Context, t *tensor.Tensor, axis, start, n int) *tensor.Tensor {
	shape := t.Shape()
	outer, dim, inner := splitAround(shape, axis)
	outShape := append([]int(nil), shape...)
	outShape[axis] = n
	out := ctx.New(t.DType(), outShape...)
	for o := 0; o < outer; o++ {
		copyElems(out, o*n*inner, t, (o*dim+start)*inner, n*inner)
	}
	return out
}

// stack joins equally shaped tensors along a new axis (0 ≤ axis ≤ rank of
// the items). pos maps item k to its place along the new axis, so reversed
// outputs need no extra copy; nil means identity.
func stack(ctx *op.Context, items []*tensor.Tensor, axis int, pos func(k int) int) (*tensor.Tensor, error) {
	first := items[0]
	for k, it := range items {
		if it.DType() != first.DType() {
			return nil, op.Errorf("item %d has type %s, item 0 has %s", k, it.DType(), first.DType())
		}
		if !slices.Equal(it.Shape(), first.Shape()) {
			return nil, op.Errorf("item %d has shape %v, item 0 has %v; stacked values must have one shape", k, it.Shape(), first.Shape())
		}
	}
	es := first.Shape()
	if axis < 0 || axis > len(es) {
		return nil, op.Errorf("axis %d is out of range for stacking rank-%d values", axis, len(es))
	}
	n := len(items)
	outShape := make([]int, 0, len(es)+1)
	outShape = append(outShape, es[:axis]...)
	outShape = append(outShape, n)
	outShape = append(outShape, es[axis:]...)
	out := ctx.New(first.DType(), outShape...)
	outer, inner := opsutil.Product(es[:axis]), opsutil.Product(es[axis:])
	for k, it := range items {
		p := k
		if pos != nil {
			p = pos(k)
		}
		for o := 0; o < outer; o++ {
			copyElems(out, (o*n+p)*inner, it, o*inner, inner)
		}
	}
	return out, nil
}

// concat joins tensors along an existing axis; all other dims must agree.
func concat(ctx *op.Context, items []*tensor.Tensor, axis int) (*tensor.Tensor, error) {
	first := items[0]
	rank := first.Rank()
	total := 0
	for k, it := range items {
		if it.DType() != first.DType() {
			return nil, op.Errorf("item %d has type %s, item 0 has %s", k, it.DType(), first.DType())
		}
		if it.Rank() != rank {
			return nil, op.Errorf("item %d has shape %v, item 0 has %v", k, it.Shape(), first.Shape())
		}
		for d := 0; d < rank; d++ {
			if d != axis && it.Shape()[d] != first.Shape()[d] {
				return nil, op.Errorf("item %d has shape %v, item 0 has %v; only axis %d may differ", k, it.Shape(), first.Shape(), axis)
			}
		}
		total += it.Shape()[axis]
	}
	outShape := append([]int(nil), first.Shape()...)
	outShape[axis] = total
	out := ctx.New(first.DType(), outShape...)
	outer, _, inner := splitAround(outShape, axis)
	off := 0
	for _, it := range items {
		d := it.Shape()[axis]
		for o := 0; o < outer; o++ {
			copyElems(out, (o*total+off)*inner, it, o*d*inner, d*inner)
		}
		off += d
	}
	return out, nil
}

// asTensor returns v as a tensor or an error naming what it is for.
func asTensor(v tensor.Value, what string) (*tensor.Tensor, error) {
	t, ok := v.(*tensor.Tensor)
	if !ok || t == nil {
		return nil, op.Errorf("%s must be a tensor, got %s", what, kindName(v))
	}
	return t, nil
}

// asSequence returns v as a sequence or an error naming what it is for.
func asSequence(v tensor.Value, what string) (*tensor.Sequence, error) {
	s, ok := v.(*tensor.Sequence)
	if !ok || s == nil {
		return nil, op.Errorf("%s must be a sequence, got %s", what, kindName(v))
	}
	return s, nil
}

func kindName(v tensor.Value) string {
	switch x := v.(type) {
	case nil:
		return "nothing"
	case *tensor.Tensor:
		if x == nil {
			return "nothing"
		}
		return "a tensor"
	case *tensor.Sequence:
		return "a sequence"
	case *tensor.Optional:
		return "an optional"
	}
	return "a map"
}

// boolScalar reads a one-element condition tensor (bool; numeric tensors are
// accepted as non-zero = true because some exporters emit them).
func boolScalar(v tensor.Value, what string) (bool, error) {
	t, err := asTensor(v, what)
	if err != nil {
		return false, err
	}
	if t.Len() != 1 {
		return false, op.Errorf("%s must have one element, got shape %v", what, t.Shape())
	}
	if t.DType() == tensor.Bool {
		return t.Bools()[0], nil
	}
	f, err := t.Float64s()
	if err != nil {
		return false, op.Errorf("%s must be bool, got %s", what, t.DType())
	}
	return f[0] != 0, nil
}

// intScalar reads a one-element integer tensor.
func intScalar(v tensor.Value, what string) (int64, error) {
	t, err := asTensor(v, what)
	if err != nil {
		return 0, err
	}
	return opsutil.ScalarInt(t, what)
}

// declaredOutput returns the declared type of a subgraph output, used to
// shape empty results (zero-iteration scan outputs, empty sequence maps)
// whose element type cannot be learned from a value.
func declaredOutput(g op.Subgraph, i int) graph.Type {
	if c, ok := g.(interface{ Source() *graph.Graph }); ok { // a compiled plan
		g = c.Source()
	}
	if gg, ok := g.(*graph.Graph); ok && i < len(gg.Outputs) {
		return gg.Outputs[i].Type
	}
	return graph.Type{}
}

// emptyStacked builds the result of stacking zero values of the declared
// type: the new axis has length 0 and unknown dims count as 0.
func emptyStacked(ctx *op.Context, t graph.Type, axis int) *tensor.Tensor {
	dt := t.Elem
	if !dt.Valid() {
		dt = tensor.Float
	}
	var es []int
	for _, d := range t.Shape {
		if d.Known() {
			es = append(es, int(d.Value))
		} else {
			es = append(es, 0)
		}
	}
	if axis < 0 || axis > len(es) {
		axis = 0
	}
	shape := append(append(append([]int(nil), es[:axis]...), 0), es[axis:]...)
	return ctx.New(dt, shape...)
}

// checkOutputs verifies that a subgraph returned the number of values the
// op needs, so index errors never reach a panic.
func checkOutputs(got []tensor.Value, want int, what string) error {
	if len(got) < want {
		return op.Errorf("%s returned %d values, expected %d", what, len(got), want)
	}
	for i := 0; i < want; i++ {
		if got[i] == nil {
			return op.Errorf("%s returned no value for output %d", what, i)
		}
	}
	return nil
}

// valueKernel adapts a function to op.ValueKernel.
type valueKernel func(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error)

func (f valueKernel) RunValues(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
	return f(ctx, in)
}

func itoa(i int) string { return strconv.Itoa(i) }
