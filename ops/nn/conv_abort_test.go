package nn

import (
	"context"
	"math/rand"
	"testing"

	"github.com/gort-dev/gort/runtime/errs"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestConvCheckpoints checks that a large Conv gives the host turns while it
// runs (several GEMM blocks, one checkpoint each) and stops with GORT_ABORTED
// as soon as its run is cancelled, instead of finishing the node.
func TestConvCheckpoints(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	x := randT(r, 1, 64, 40, 50) // 2000 output pixels with 64×64×3×3 weights: several blocks
	w := randT(r, 64, 64, 3, 3)
	res := op.Default.Resolve("", "Conv", 22)
	k, err := res.Builder(&op.Node{Name: "conv", OpType: "Conv", Version: res.Version, Opset: 22,
		Inputs: []string{"x", "w"}, Outputs: []string{"y"},
		Attrs: map[string]*pb.AttributeProto{"pads": {Name: "pads", Type: pb.AttributeProto_INTS, Ints: []int64{1, 1, 1, 1}}}})
	if err != nil {
		t.Fatal(err)
	}

	yields := 0
	ctx := &op.Context{Ctx: context.Background(), YieldFunc: func() { yields++ }}
	if _, err := k.(op.Kernel).Run(ctx, []*tensor.Tensor{x, w}); err != nil {
		t.Fatal(err)
	}
	if yields < 2 {
		t.Errorf("a 74 M multiply-add Conv yielded %d times, want several (one per block of output pixels)", yields)
	}

	cctx, cancel := context.WithCancel(context.Background())
	yields = 0
	ctx = &op.Context{Ctx: cctx, YieldFunc: func() { yields++; cancel() }} // the abort arrives during the first turn
	_, err = k.(op.Kernel).Run(ctx, []*tensor.Tensor{x, w})
	if errs.CodeOf(err) != errs.Aborted {
		t.Fatalf("cancelled Conv returned %v, want GORT_ABORTED", err)
	}
	if yields != 1 {
		t.Errorf("cancelled Conv yielded %d times, want 1", yields)
	}
}
