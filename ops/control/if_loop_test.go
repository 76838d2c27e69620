package control_test

import (
	"context"
	"testing"
	"time"

	"github.com/gort-dev/gort/runtime/errs"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// ifModel: y = If(c) then x + one (one: a main-graph initializer read from
// the branch) else x * x; z = If(c) then x (an outer value returned directly)
// else k (the branch's own initializer).
func ifModel() *pb.GraphProto {
	thenB := graph("then", []*pb.NodeProto{tnode("Add", []string{"x", "one"}, []string{"t"})}, nil,
		[]*pb.ValueInfoProto{tvi("t", tensor.Float, 3)})
	elseB := graph("else", []*pb.NodeProto{tnode("Mul", []string{"x", "x"}, []string{"e"})}, nil,
		[]*pb.ValueInfoProto{tvi("e", tensor.Float, 3)})
	thenZ := graph("thenz", nil, nil, []*pb.ValueInfoProto{tvi("x", tensor.Float, 3)})
	elseZ := graph("elsez", nil, nil, []*pb.ValueInfoProto{tvi("k", tensor.Float, 3)},
		init1("k", f32([]int{3}, 7, 8, 9)))
	return graph("main", []*pb.NodeProto{
		node("If", []string{"c"}, []string{"y"}, gattr("then_branch", thenB), gattr("else_branch", elseB)),
		node("If", []string{"c"}, []string{"z"}, gattr("then_branch", thenZ), gattr("else_branch", elseZ)),
	}, []*pb.ValueInfoProto{tvi("c", tensor.Bool), tvi("x", tensor.Float, 3)},
		[]*pb.ValueInfoProto{tvi("y", tensor.Float, 3), tvi("z", tensor.Float, 3)},
		init1("one", tensor.Scalar(float32(1))))
}

func TestIf(t *testing.T) {
	for _, opset := range []int64{11, 13, 16, 21, 25} {
		s := load(t, ifModel(), opset)
		x := f32([]int{3}, 1, 2, 3)
		for _, tc := range []struct {
			c    bool
			y, z *tensor.Tensor
		}{
			{true, f32([]int{3}, 2, 3, 4), x},
			{false, f32([]int{3}, 1, 4, 9), f32([]int{3}, 7, 8, 9)},
		} {
			out := run(t, s, map[string]tensor.Value{"c": tensor.Scalar(tc.c), "x": x})
			expectTensor(t, "y", out["y"], tc.y)
			expectTensor(t, "z", out["z"], tc.z)
		}
	}
}

// nestedLoopModel: a Loop whose body holds an If; the If's branches read a
// main-graph input (a), a body input (s_in) and a body initializer (two).
// s doubles after two additions: with a=1, M=4: 1, 2, 4, 8.
func nestedLoopModel() *pb.GraphProto {
	thenB := graph("then", []*pb.NodeProto{tnode("Add", []string{"s_in", "a"}, []string{"t"})}, nil,
		[]*pb.ValueInfoProto{tvi("t", tensor.Float)})
	elseB := graph("else", []*pb.NodeProto{tnode("Mul", []string{"s_in", "two"}, []string{"e"})}, nil,
		[]*pb.ValueInfoProto{tvi("e", tensor.Float)})
	body := graph("body", []*pb.NodeProto{
		tnode("Less", []string{"i", "two_i"}, []string{"early"}),
		node("If", []string{"early"}, []string{"s_out"}, gattr("then_branch", thenB), gattr("else_branch", elseB)),
	}, []*pb.ValueInfoProto{tvi("i", tensor.Int64), tvi("cond_in", tensor.Bool), tvi("s_in", tensor.Float)},
		// cond_in passes straight through; s_out is both state and scan output.
		[]*pb.ValueInfoProto{tvi("cond_in", tensor.Bool), tvi("s_out", tensor.Float), tvi("s_out", tensor.Float)},
		init1("two", tensor.Scalar(float32(2))), init1("two_i", tensor.Scalar(int64(2))))
	return graph("main", []*pb.NodeProto{
		node("Loop", []string{"M", "c", "s0"}, []string{"s_final", "s_all"}, gattr("body", body)),
	}, []*pb.ValueInfoProto{tvi("M", tensor.Int64), tvi("c", tensor.Bool), tvi("s0", tensor.Float), tvi("a", tensor.Float)},
		[]*pb.ValueInfoProto{tvi("s_final", tensor.Float), tvi("s_all", tensor.Float, -1)})
}

func TestLoopNested(t *testing.T) {
	s := load(t, nestedLoopModel(), 13)
	for _, tc := range []struct {
		name  string
		m     int64
		c     bool
		final float32
		all   *tensor.Tensor
	}{
		{"four", 4, true, 8, f32([]int{4}, 1, 2, 4, 8)},
		{"one", 1, true, 1, f32([]int{1}, 1)},
		{"cond false", 4, false, 0, f32([]int{0})},
		{"zero trips", 0, true, 0, f32([]int{0})},
		{"negative trips", -3, true, 0, f32([]int{0})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := run(t, s, map[string]tensor.Value{
				"M": tensor.Scalar(tc.m), "c": tensor.Scalar(tc.c),
				"s0": tensor.Scalar(float32(0)), "a": tensor.Scalar(float32(1)),
			})
			expectTensor(t, "s_final", out["s_final"], tensor.Scalar(tc.final))
			expectTensor(t, "s_all", out["s_all"], tc.all)
		})
	}
}

// whileModel: no trip count; x += 3 while x < limit (limit from the outer
// scope); the iteration number is a scan output taken from a body input.
func whileModel() *pb.GraphProto {
	body := graph("body", []*pb.NodeProto{
		tnode("Add", []string{"x_in", "three"}, []string{"x_out"}),
		tnode("Less", []string{"x_out", "limit"}, []string{"go"}),
	}, []*pb.ValueInfoProto{tvi("i", tensor.Int64), tvi("cond_in", tensor.Bool), tvi("x_in", tensor.Float)},
		[]*pb.ValueInfoProto{tvi("go", tensor.Bool), tvi("x_out", tensor.Float), tvi("i", tensor.Int64), tvi("x_in", tensor.Float, 2)},
		init1("three", tensor.Scalar(float32(3))))
	return graph("main", []*pb.NodeProto{
		node("Loop", []string{"", "c", "x0"}, []string{"x", "iters", "xs"}, gattr("body", body)),
	}, []*pb.ValueInfoProto{tvi("c", tensor.Bool), tvi("x0", tensor.Float, 2), tvi("limit", tensor.Float)},
		[]*pb.ValueInfoProto{tvi("x", tensor.Float, 2), tvi("iters", tensor.Int64, -1), tvi("xs", tensor.Float, -1, 2)})
}

func TestLoopWhile(t *testing.T) {
	s := load(t, whileModel(), 16)
	out := run(t, s, map[string]tensor.Value{"c": tensor.Scalar(true), "x0": f32([]int{2}, 0, 1), "limit": tensor.Scalar(float32(10))})
	// x[0]: 3, 6, 9, 12 (stops once 12 ≥ 10).
	expectTensor(t, "x", out["x"], f32([]int{2}, 12, 13))
	expectTensor(t, "iters", out["iters"], tensor.Of([]int{4}, []int64{0, 1, 2, 3}))
	expectTensor(t, "xs", out["xs"], f32([]int{4, 2}, 0, 1, 3, 4, 6, 7, 9, 10))
	// Zero iterations: the scan outputs take the body's declared element shape.
	out = run(t, s, map[string]tensor.Value{"c": tensor.Scalar(false), "x0": f32([]int{2}, 0, 1), "limit": tensor.Scalar(float32(10))})
	expectTensor(t, "x", out["x"], f32([]int{2}, 0, 1))
	expectTensor(t, "xs", out["xs"], f32([]int{0, 2}))
}

// seqLoopModel carries a sequence through the loop (Loop-13+): each
// iteration appends the outer value x; the result is concatenated.
func seqLoopModel() *pb.GraphProto {
	body := graph("body", []*pb.NodeProto{
		node("SequenceInsert", []string{"seq_in", "x"}, []string{"seq_out"}),
	}, []*pb.ValueInfoProto{tvi("i", tensor.Int64), tvi("cond_in", tensor.Bool), svi("seq_in", tensor.Float)},
		[]*pb.ValueInfoProto{tvi("cond_in", tensor.Bool), svi("seq_out", tensor.Float)})
	return graph("main", []*pb.NodeProto{
		node("SequenceEmpty", nil, []string{"empty"}),
		node("Loop", []string{"M", "", "empty"}, []string{"seq"}, gattr("body", body)),
		node("SequenceLength", []string{"seq"}, []string{"len"}),
		node("ConcatFromSequence", []string{"seq"}, []string{"cat"}, iattr("axis", 0), iattr("new_axis", 1)),
	}, []*pb.ValueInfoProto{tvi("M", tensor.Int64), tvi("x", tensor.Float, 2)},
		[]*pb.ValueInfoProto{tvi("len", tensor.Int64), tvi("cat", tensor.Float, -1, 2)})
}

func TestLoopSequenceState(t *testing.T) {
	s := load(t, seqLoopModel(), 13)
	out := run(t, s, map[string]tensor.Value{"M": tensor.Scalar(int64(3)), "x": f32([]int{2}, 5, 6)})
	expectTensor(t, "len", out["len"], tensor.Scalar(int64(3)))
	expectTensor(t, "cat", out["cat"], f32([]int{3, 2}, 5, 6, 5, 6, 5, 6))
}

// A trip count of 1e12 must stop promptly once the caller cancels.
func TestLoopAbort(t *testing.T) {
	body := graph("body", []*pb.NodeProto{tnode("Add", []string{"x_in", "one"}, []string{"x_out"})},
		[]*pb.ValueInfoProto{tvi("i", tensor.Int64), tvi("cond_in", tensor.Bool), tvi("x_in", tensor.Float)},
		[]*pb.ValueInfoProto{tvi("cond_in", tensor.Bool), tvi("x_out", tensor.Float)},
		init1("one", tensor.Scalar(float32(1))))
	g := graph("main", []*pb.NodeProto{node("Loop", []string{"M", "", "x0"}, []string{"x"}, gattr("body", body))},
		[]*pb.ValueInfoProto{tvi("x0", tensor.Float)}, []*pb.ValueInfoProto{tvi("x", tensor.Float)},
		init1("M", tensor.Scalar(int64(1e12))))
	s := load(t, g, 16)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.Run(ctx, map[string]tensor.Value{"x0": tensor.Scalar(float32(0))})
	if errs.CodeOf(err) != errs.Aborted {
		t.Fatalf("got %v, want %s", err, errs.Aborted)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("abort took %v", d)
	}
}

// Loop bodies must return a condition and one value per carried state; a
// body that does not is refused at load.
func TestLoopBadBody(t *testing.T) {
	body := graph("body", nil,
		[]*pb.ValueInfoProto{tvi("i", tensor.Int64), tvi("cond_in", tensor.Bool), tvi("x_in", tensor.Float)},
		[]*pb.ValueInfoProto{tvi("cond_in", tensor.Bool)})
	g := graph("main", []*pb.NodeProto{node("Loop", []string{"", "c", "x0"}, []string{"x"}, gattr("body", body))},
		[]*pb.ValueInfoProto{tvi("c", tensor.Bool), tvi("x0", tensor.Float)}, []*pb.ValueInfoProto{tvi("x", tensor.Float)})
	if _, err := loadErr(g, 16); errs.CodeOf(err) != errs.BadModel {
		t.Fatalf("got %v, want %s", err, errs.BadModel)
	}
}
