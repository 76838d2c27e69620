package tensorops

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gort-dev/gort/runtime/errs"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// A is a test's attributes: int → INT, float32 → FLOAT, string → STRING,
// []int64 → INTS, []float32 → FLOATS, []string → STRINGS, *tensor.Tensor → TENSOR.
type A map[string]any

func attrs(kv A) map[string]*pb.AttributeProto {
	m := map[string]*pb.AttributeProto{}
	for k, v := range kv {
		a := &pb.AttributeProto{Name: k}
		switch x := v.(type) {
		case int:
			a.Type, a.I = pb.AttributeProto_INT, int64(x)
		case float32:
			a.Type, a.F = pb.AttributeProto_FLOAT, x
		case string:
			a.Type, a.S = pb.AttributeProto_STRING, []byte(x)
		case []int64:
			a.Type, a.Ints = pb.AttributeProto_INTS, x
		case []float32:
			a.Type, a.Floats = pb.AttributeProto_FLOATS, x
		case []string:
			a.Type = pb.AttributeProto_STRINGS
			for _, s := range x {
				a.Strings = append(a.Strings, []byte(s))
			}
		case *tensor.Tensor:
			a.Type, a.T = pb.AttributeProto_TENSOR, protoconv.Proto(k, x)
		default:
			panic(fmt.Sprintf("attr %s: %T", k, v))
		}
		m[k] = a
	}
	return m
}

// call describes one node run: op, opset, attributes, number of outputs
// (default 1) and inputs (nil for an omitted optional input).
type call struct {
	op    string
	opset int
	attrs A
	nOut  int
	in    []*tensor.Tensor
}

// run resolves the op at the opset as the loader does, builds and runs it
// with a 1 GiB budget, turning panics with *errs.Error into errors.
func run(c call) (outs []*tensor.Tensor, err error) {
	res := op.Default.Resolve("", c.op, c.opset)
	if res.Builder == nil {
		return nil, fmt.Errorf("resolve: %s", res.Problem)
	}
	n := &op.Node{Name: c.op, OpType: c.op, Version: res.Version, Opset: c.opset, Attrs: attrs(c.attrs), MaxBytes: 1 << 30}
	for i, t := range c.in {
		if t == nil {
			n.Inputs = append(n.Inputs, "")
		} else {
			n.Inputs = append(n.Inputs, fmt.Sprint("in", i))
		}
	}
	nOut := max(c.nOut, 1)
	for i := 0; i < nOut; i++ {
		n.Outputs = append(n.Outputs, fmt.Sprint("out", i))
	}
	k, err := res.Builder(n)
	if err != nil {
		return nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			e, ok := p.(*errs.Error)
			if !ok {
				panic(p)
			}
			outs, err = nil, e
		}
	}()
	ctx := &op.Context{MaxBytes: 1 << 30}
	switch k := k.(type) {
	case op.Kernel:
		return k.Run(ctx, c.in)
	case op.ValueKernel:
		vin := make([]tensor.Value, len(c.in))
		for i, t := range c.in {
			if t != nil {
				vin[i] = t
			}
		}
		vs, err := k.RunValues(ctx, vin)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			outs = append(outs, v.(*tensor.Tensor))
		}
		return outs, nil
	}
	return nil, fmt.Errorf("builder returned %T", k)
}

func mustRun(t *testing.T, c call) []*tensor.Tensor {
	t.Helper()
	outs, err := run(c)
	if err != nil {
		t.Fatalf("%s-%d: %v", c.op, c.opset, err)
	}
	return outs
}

// expect checks dtype, shape and values (floats within 1e-5 relative; NaN equals NaN).
func expect(t *testing.T, what string, got, want *tensor.Tensor) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: no output", what)
	}
	if got.DType() != want.DType() || !reflect.DeepEqual(append([]int{}, got.Shape()...), append([]int{}, want.Shape()...)) {
		t.Fatalf("%s: got %s%v, want %s%v", what, got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	if got.Len() == 0 && want.Len() == 0 {
		return
	}
	if gf, err := got.Float64s(); err == nil && (got.DType().IsFloat() || got.DType() == tensor.Double) {
		wf, _ := want.Float64s()
		for i := range wf {
			g, w := gf[i], wf[i]
			if math.IsNaN(w) && math.IsNaN(g) || g == w || math.Abs(g-w) <= 1e-5*math.Max(1, math.Abs(w)) {
				continue
			}
			t.Fatalf("%s: element %d is %v, want %v\ngot  %v\nwant %v", what, i, g, w, gf, wf)
		}
		return
	}
	if !reflect.DeepEqual(got.Data(), want.Data()) {
		t.Fatalf("%s:\ngot  %v\nwant %v", what, got.Data(), want.Data())
	}
}

// expectErr checks that a run fails with the given code and message fragment.
func expectErr(t *testing.T, c call, code errs.Code, frag string) {
	t.Helper()
	_, err := run(c)
	if err == nil {
		t.Fatalf("%s-%d: expected an error", c.op, c.opset)
	}
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != code || !strings.Contains(err.Error(), frag) {
		t.Fatalf("%s-%d: got error %v, want %s containing %q", c.op, c.opset, err, code, frag)
	}
}

// i64 and f32 build tensors; with no values given they are zeros.
func i64(shape []int, v ...int64) *tensor.Tensor   { return tensor.Of(shape, orZeros(shape, v)) }
func f32(shape []int, v ...float32) *tensor.Tensor { return tensor.Of(shape, orZeros(shape, v)) }

func orZeros[T any](shape []int, v []T) []T {
	if len(v) == 0 {
		return make([]T, tensor.MustSize(shape))
	}
	return v
}
func vec(v ...int64) *tensor.Tensor { return tensor.Of([]int{len(v)}, v) }
func sh(d ...int) []int             { return d }

// iota32 is 0, 1, ..., n-1 as float32 in the given shape.
func iota32(shape ...int) *tensor.Tensor {
	n := tensor.MustSize(shape)
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)
	}
	return tensor.Of(shape, v)
}
