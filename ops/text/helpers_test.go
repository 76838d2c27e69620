package text

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

// call describes one node run: domain, op, opset, attributes, number of
// outputs (default 1) and inputs (nil for an omitted optional input).
type call struct {
	domain string
	op     string
	opset  int
	attrs  A
	nOut   int
	in     []*tensor.Tensor
}

// run resolves the op at the opset as the loader does, builds and runs it,
// turning panics with *errs.Error into errors.
func run(c call) (outs []*tensor.Tensor, err error) {
	res := op.Default.Resolve(c.domain, c.op, c.opset)
	if res.Builder == nil {
		return nil, fmt.Errorf("resolve: %s", res.Problem)
	}
	n := &op.Node{Name: c.op, OpType: c.op, Domain: c.domain, Version: res.Version, Opset: c.opset, Attrs: attrs(c.attrs), MaxBytes: 1 << 30}
	for i, t := range c.in {
		if t == nil {
			n.Inputs = append(n.Inputs, "")
		} else {
			n.Inputs = append(n.Inputs, fmt.Sprint("in", i))
		}
	}
	for i := 0; i < max(c.nOut, 1); i++ {
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
	return k.(op.Kernel).Run(&op.Context{MaxBytes: 1 << 30}, c.in)
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
	if got.Len() == 0 {
		return
	}
	if got.DType().IsFloat() || got.DType() == tensor.Double {
		gf, _ := got.Float64s()
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
