// Package optest is test support for the operator packages under ops/: it
// builds one op.Node, resolves the op in op.Default as the loader does, runs
// the kernel and compares tensors. It is imported only by _test.go files.
package optest

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/gort-dev/gort/runtime/errs"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// MaxBytes is the memory budget of the node and context that Run builds.
const MaxBytes = 1 << 30

// A is a test's attributes: int → INT, float32 → FLOAT, string → STRING,
// []int64 or []int → INTS, []float32 → FLOATS, []string → STRINGS, *tensor.Tensor → TENSOR,
// *pb.SparseTensorProto → SPARSE_TENSOR.
type A map[string]any

// Attrs converts a test's attributes to attribute protos; it panics on a
// value of another type.
func Attrs(kv A) map[string]*pb.AttributeProto {
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
		case []int:
			a.Type = pb.AttributeProto_INTS
			for _, v := range x {
				a.Ints = append(a.Ints, int64(v))
			}
		case []float32:
			a.Type, a.Floats = pb.AttributeProto_FLOATS, x
		case []string:
			a.Type = pb.AttributeProto_STRINGS
			for _, s := range x {
				a.Strings = append(a.Strings, []byte(s))
			}
		case *tensor.Tensor:
			a.Type, a.T = pb.AttributeProto_TENSOR, protoconv.Proto(k, x)
		case *pb.SparseTensorProto:
			a.Type, a.SparseTensor = pb.AttributeProto_SPARSE_TENSOR, x
		default:
			panic(fmt.Sprintf("attr %s: %T", k, v))
		}
		m[k] = a
	}
	return m
}

// Call describes one node run: domain ("" is the default domain), op, opset,
// attributes, number of outputs (default 1) and inputs (nil for an omitted
// optional input).
type Call struct {
	Domain string
	Op     string
	Opset  int
	Attrs  A
	NOut   int
	In     []*tensor.Tensor
}

// Run resolves the op at the opset as the loader does, builds it and runs it
// (an op.Kernel or an op.ValueKernel with tensor values) with a MaxBytes
// budget, turning panics with *errs.Error into errors.
func Run(c Call) (outs []*tensor.Tensor, err error) {
	res := op.Default.Resolve(c.Domain, c.Op, c.Opset)
	if res.Builder == nil {
		return nil, fmt.Errorf("resolve: %s", res.Problem)
	}
	n := &op.Node{Name: c.Op, OpType: c.Op, Domain: c.Domain, Version: res.Version, Opset: c.Opset, Attrs: Attrs(c.Attrs), MaxBytes: MaxBytes}
	for i, t := range c.In {
		if t == nil {
			n.Inputs = append(n.Inputs, "")
		} else {
			n.Inputs = append(n.Inputs, fmt.Sprint("in", i))
		}
	}
	for i := 0; i < max(c.NOut, 1); i++ {
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
	ctx := &op.Context{MaxBytes: MaxBytes}
	switch k := k.(type) {
	case op.Kernel:
		return k.Run(ctx, c.In)
	case op.ValueKernel:
		vin := make([]tensor.Value, len(c.In))
		for i, t := range c.In {
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

// MustRun is Run that fails the test on an error.
func MustRun(t testing.TB, c Call) []*tensor.Tensor {
	t.Helper()
	outs, err := Run(c)
	if err != nil {
		t.Fatalf("%s-%d: %v", c.Op, c.Opset, err)
	}
	return outs
}

// Expect checks dtype, shape and values (floats within 1e-5 relative; NaN
// equals NaN; other dtypes exactly).
func Expect(t testing.TB, what string, got, want *tensor.Tensor) {
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
