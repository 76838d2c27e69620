package window

import (
	"slices"
	"strings"
	"testing"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
)

// TestForward checks the forward geometry against hand-computed cases with
// H ≠ W, every auto_pad and ceil_mode.
func TestForward(t *testing.T) {
	for _, c := range []struct {
		name        string
		a           Attrs
		in, kernel  []int
		out, pb, pe []int
	}{
		// H: out 3, total pad (3-1)·2+3-5 = 2 → 1,1; W: out 4, total 1 → 0,1.
		{"SAME_UPPER", Attrs{AutoPad: "SAME_UPPER", Strides: []int{2, 1}}, []int{5, 4}, []int{3, 2}, []int{3, 4}, []int{1, 0}, []int{1, 1}},
		{"SAME_LOWER", Attrs{AutoPad: "SAME_LOWER", Strides: []int{2, 1}}, []int{5, 4}, []int{3, 2}, []int{3, 4}, []int{1, 1}, []int{1, 0}},
		{"VALID ignores pads", Attrs{AutoPad: "VALID", Pads: []int{3, 3, 3, 3}}, []int{6, 5}, []int{3, 2}, []int{4, 4}, []int{0, 0}, []int{0, 0}},
		{"explicit pads, dilation", Attrs{AutoPad: "NOTSET", Pads: []int{1, 0, 2, 1}, Dilations: []int{2, 1}}, []int{7, 5}, []int{3, 3}, []int{6, 4}, []int{1, 0}, []int{2, 1}},
		// span 3: floor gives 2 windows, ceil 3 (the last starts inside).
		{"ceil_mode", Attrs{AutoPad: "NOTSET", Kernel: []int{2}, Strides: []int{2}, CeilMode: true}, []int{5}, nil, []int{3}, []int{0}, []int{0}},
		// in 4, pad end 1, k 1, s 2: ceil would add a window starting at 4, in the end padding: dropped.
		{"ceil_mode drops a window in the end padding", Attrs{AutoPad: "NOTSET", Kernel: []int{1}, Strides: []int{2}, Pads: []int{0, 1}, CeilMode: true}, []int{4}, nil, []int{2}, []int{0}, []int{1}},
	} {
		g, err := c.a.Forward(c.in, c.kernel)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !slices.Equal(g.Out, c.out) || !slices.Equal(g.PadsBegin, c.pb) || !slices.Equal(g.PadsEnd, c.pe) {
			t.Errorf("%s: out %v begin %v end %v, want %v %v %v", c.name, g.Out, g.PadsBegin, g.PadsEnd, c.out, c.pb, c.pe)
		}
	}
	if _, err := (&Attrs{AutoPad: "NOTSET"}).Forward([]int{2}, []int{3}); err == nil || !strings.Contains(err.Error(), "kernel extent 3 exceeds padded input 2") {
		t.Errorf("a kernel larger than the input: %v", err)
	}
	if _, err := (&Attrs{AutoPad: "NOTSET"}).Forward([]int{2}, nil); err == nil || !strings.Contains(err.Error(), "kernel_shape is required") {
		t.Errorf("no kernel: %v", err)
	}
}

// TestTranspose checks ConvTranspose's output dims and front crop.
func TestTranspose(t *testing.T) {
	for _, c := range []struct {
		name       string
		a          Attrs
		in, kernel []int
		out, pb    []int
	}{
		// 3·(4-1) + 1 + 2 = 12, minus pads 1 + 0 → 11.
		{"pads and output_padding", Attrs{AutoPad: "NOTSET", Strides: []int{3}, OutputPadding: []int{1}, Pads: []int{1, 0}}, []int{4}, []int{2}, []int{11}, []int{1}},
		// full 2·(3-1)+3 = 7, out 6, total 1: SAME_UPPER crops 0 at the front, SAME_LOWER 1.
		{"SAME_UPPER", Attrs{AutoPad: "SAME_UPPER", Strides: []int{2}}, []int{3}, []int{3}, []int{6}, []int{0}},
		{"SAME_LOWER", Attrs{AutoPad: "SAME_LOWER", Strides: []int{2}}, []int{3}, []int{3}, []int{6}, []int{1}},
		// X 2, W 3, stride 2: full 5, output_shape 4, total 1: version 11 crops it at the front, version 1 at the end.
		{"output_shape, odd total", Attrs{AutoPad: "NOTSET", Strides: []int{2}, OutputShape: []int{4}}, []int{2}, []int{3}, []int{4}, []int{1}},
		{"output_shape, odd total, version 1", Attrs{AutoPad: "NOTSET", Strides: []int{2}, OutputShape: []int{4}, OddPadAtEnd: true}, []int{2}, []int{3}, []int{4}, []int{0}},
		{"output_shape, surplus, version 1", Attrs{AutoPad: "NOTSET", Strides: []int{2}, OutputShape: []int{6}, OddPadAtEnd: true}, []int{2}, []int{3}, []int{6}, []int{0}},
		// output_shape as the full (N, C, H, W) shape; H: full 2·(3-1)+3 = 7 < 8, the surplus unit lands at the
		// end (nothing cropped at the front); W: full 4.
		{"output_shape with N and C", Attrs{AutoPad: "NOTSET", Strides: []int{2, 1}, OutputShape: []int{1, 2, 8, 4}}, []int{3, 4}, []int{3, 1}, []int{8, 4}, []int{0, 0}},
	} {
		g, err := c.a.Transpose(c.in, c.kernel)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !slices.Equal(g.Out, c.out) || !slices.Equal(g.PadsBegin, c.pb) {
			t.Errorf("%s: out %v begin %v, want %v %v", c.name, g.Out, g.PadsBegin, c.out, c.pb)
		}
	}
}

// TestParse reads every window attribute and rejects bad values with the
// attribute's name.
func TestParse(t *testing.T) {
	ints := func(name string, v ...int64) *pb.AttributeProto {
		return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INTS, Ints: v}
	}
	one := func(name string, v int64) *pb.AttributeProto {
		return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INT, I: v}
	}
	node := func(attrs ...*pb.AttributeProto) *op.Node {
		n := &op.Node{Name: "n", OpType: "Conv", Attrs: map[string]*pb.AttributeProto{}}
		for _, a := range attrs {
			n.Attrs[a.Name] = a
		}
		return n
	}
	a, err := Parse(node(ints("kernel_shape", 3, 2), ints("strides", 2, 1), ints("pads", 1, 0, 1, 0), one("group", 2),
		one("ceil_mode", 1), one("count_include_pad", 1), one("storage_order", 1), ints("output_padding", 1, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if a.AutoPad != "NOTSET" || !slices.Equal(a.Kernel, []int{3, 2}) || !slices.Equal(a.Strides, []int{2, 1}) || a.Dilations != nil ||
		a.Group != 2 || !a.CeilMode || !a.CountIncludePad || a.StorageOrder != 1 || !slices.Equal(a.OutputPadding, []int{1, 0}) {
		t.Errorf("parsed %+v", a)
	}
	for _, c := range []struct {
		attr *pb.AttributeProto
		want string
	}{
		{ints("strides", 1, 0), "strides must be positive"},
		{ints("dilations", -1), "dilations must be positive"},
		{ints("kernel_shape", 0), "kernel_shape must be positive"},
		{ints("pads", 0, -1), "pads must be non-negative"},
		{one("group", 0), "group must be positive"},
		{&pb.AttributeProto{Name: "auto_pad", Type: pb.AttributeProto_STRING, S: []byte("SAME")}, `unknown auto_pad "SAME"`},
	} {
		if _, err := Parse(node(c.attr)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.attr.Name, err, c.want)
		}
	}
}
