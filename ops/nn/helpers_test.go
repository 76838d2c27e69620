package nn

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"testing"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// attrs maps attribute names to int, []int, float32 or string values.
type attrs map[string]any

// runOp builds opType at the given opset through the default registry (so
// the registration itself is exercised) and runs it once.
func runOp(t *testing.T, opType string, opset int, at attrs, nOut int, in ...*tensor.Tensor) []*tensor.Tensor {
	t.Helper()
	res := op.Default.Resolve("", opType, opset)
	if res.Builder == nil {
		t.Fatalf("resolve %s-%d: %s", opType, opset, res.Problem)
	}
	n := &op.Node{Name: opType, OpType: opType, Version: res.Version, Opset: opset, Attrs: map[string]*pb.AttributeProto{}}
	for i := range in {
		n.Inputs = append(n.Inputs, fmt.Sprint("in", i))
	}
	for i := 0; i < nOut; i++ {
		n.Outputs = append(n.Outputs, fmt.Sprint("out", i))
	}
	for k, v := range at {
		a := &pb.AttributeProto{Name: k}
		switch v := v.(type) {
		case int:
			a.Type, a.I = pb.AttributeProto_INT, int64(v)
		case []int:
			a.Type = pb.AttributeProto_INTS
			for _, x := range v {
				a.Ints = append(a.Ints, int64(x))
			}
		case float32:
			a.Type, a.F = pb.AttributeProto_FLOAT, v
		case string:
			a.Type, a.S = pb.AttributeProto_STRING, []byte(v)
		default:
			t.Fatalf("attribute %s: unsupported %T", k, v)
		}
		n.Attrs[k] = a
	}
	k, err := res.Builder(n)
	if err != nil {
		t.Fatalf("build %s: %v", opType, err)
	}
	out, err := k.(op.Kernel).Run(&op.Context{Ctx: context.Background()}, in)
	if err != nil {
		t.Fatalf("run %s: %v", opType, err)
	}
	return out
}

func randT(r *rand.Rand, shape ...int) *tensor.Tensor {
	n := tensor.MustSize(shape)
	d := make([]float32, n)
	for i := range d {
		d[i] = float32(r.Intn(17)-8) / 4 // small dyadic values keep sums exact-ish
	}
	return tensor.Of(shape, d)
}

func assertClose(t *testing.T, got *tensor.Tensor, wantShape []int, want []float32, tol float64) {
	t.Helper()
	if fmt.Sprint(got.Shape()) != fmt.Sprint(wantShape) {
		t.Fatalf("shape %v, want %v", got.Shape(), wantShape)
	}
	g := got.F32()
	for i := range want {
		if d := math.Abs(float64(g[i] - want[i])); d > tol*(1+math.Abs(float64(want[i]))) || math.IsNaN(float64(g[i])) {
			t.Fatalf("element %d = %v, want %v", i, g[i], want[i])
		}
	}
}
