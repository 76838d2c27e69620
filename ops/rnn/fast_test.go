package rnn_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/gort-dev/gort/ops/rnn"
	"github.com/gort-dev/gort/runtime"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// rnnCase is one recurrent problem with the default activations, solved
// by both kernels (float32 path on and off) and by ref.
type rnnCase struct {
	kind                   string // LSTM, GRU, RNN
	dir                    string
	layout                 int
	seq, batch, input, hid int
	lens                   []int32 // nil: all seq
	bias, h0, c0, peep     bool
	inputForget, lbr       bool
	feeds                  bool // W, R, B given as feeds, not initializers
}

func (c rnnCase) String() string {
	return fmt.Sprintf("%s/%s/layout%d/T%dB%dI%dH%d/lens%v/b%vh%vc%vp%v/if%v/lbr%v/feeds%v",
		c.kind, c.dir, c.layout, c.seq, c.batch, c.input, c.hid, c.lens, c.bias, c.h0, c.c0, c.peep, c.inputForget, c.lbr, c.feeds)
}

func (c rnnCase) gates() int { return map[string]int{"LSTM": 4, "GRU": 3, "RNN": 1}[c.kind] }

func (c rnnCase) dirs() int {
	if c.dir == "bidirectional" {
		return 2
	}
	return 1
}

func randT(r *rand.Rand, scale float32, shape ...int) *tensor.Tensor {
	n := 1
	for _, d := range shape {
		n *= d
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = scale * (2*r.Float32() - 1)
	}
	return tensor.Of(shape, v)
}

// inputs returns the node's eight inputs (nil = omitted).
func (c rnnCase) inputs(seed uint64) []*tensor.Tensor {
	r := rand.New(rand.NewPCG(seed, 7))
	D, G, H := c.dirs(), c.gates(), c.hid
	in := make([]*tensor.Tensor, 8)
	if c.layout == 0 {
		in[0] = randT(r, 2, c.seq, c.batch, c.input)
	} else {
		in[0] = randT(r, 2, c.batch, c.seq, c.input)
	}
	ws := float32(1.5 / math.Sqrt(float64(c.input+H)))
	in[1] = randT(r, ws, D, G*H, c.input)
	in[2] = randT(r, ws, D, G*H, H)
	if c.bias {
		in[3] = randT(r, 0.5, D, 2*G*H)
	}
	if c.lens != nil {
		in[4] = tensor.Of([]int{c.batch}, c.lens)
	}
	state := func() *tensor.Tensor {
		if c.layout == 0 {
			return randT(r, 1, D, c.batch, H)
		}
		return randT(r, 1, c.batch, D, H)
	}
	if c.h0 {
		in[5] = state()
	}
	if c.kind == "LSTM" && c.c0 {
		in[6] = state()
	}
	if c.kind == "LSTM" && c.peep {
		in[7] = randT(r, 0.5, D, 3*H)
	}
	return in
}

func (c rnnCase) attrs() []*pb.AttributeProto {
	a := []*pb.AttributeProto{integer("hidden_size", int64(c.hid)), str("direction", c.dir), integer("layout", int64(c.layout))}
	if c.inputForget {
		a = append(a, integer("input_forget", 1))
	}
	if c.lbr {
		a = append(a, integer("linear_before_reset", 1))
	}
	return a
}

func (c rnnCase) outputs() int {
	if c.kind == "LSTM" {
		return 3
	}
	return 2
}

// run runs the node and returns its outputs.
func (c rnnCase) run(t *testing.T, in []*tensor.Tensor) []*tensor.Tensor {
	t.Helper()
	s, feeds := c.session(t, in)
	res, err := s.Run(context.Background(), feeds)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*tensor.Tensor, c.outputs())
	for i := range out {
		out[i] = res[fmt.Sprintf("out%d", i)].(*tensor.Tensor)
	}
	return out
}

// session loads a model of the one node: X and the states are feeds, W, R,
// B and P initializers unless c.feeds.
func (c rnnCase) session(t testing.TB, in []*tensor.Tensor) (*runtime.Session, map[string]tensor.Value) {
	t.Helper()
	nOut := c.outputs()
	g := &pb.GraphProto{Name: "g"}
	names := make([]string, len(in))
	feeds := map[string]tensor.Value{}
	for i, v := range in {
		if v == nil {
			continue
		}
		names[i] = fmt.Sprintf("in%d", i)
		if i == 1 || i == 2 || i == 3 || i == 7 {
			if !c.feeds {
				g.Initializer = append(g.Initializer, protoconv.Proto(names[i], v))
				continue
			}
		}
		feeds[names[i]] = v
		var dims []*pb.TensorShapeProto_Dimension
		for _, d := range v.Shape() {
			dims = append(dims, &pb.TensorShapeProto_Dimension{Value: &pb.TensorShapeProto_Dimension_DimValue{DimValue: int64(d)}})
		}
		g.Input = append(g.Input, &pb.ValueInfoProto{Name: names[i], Type: &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: &pb.TypeProto_Tensor{
			ElemType: int32(v.DType()), Shape: &pb.TensorShapeProto{Dim: dims}}}}})
	}
	for len(names) > 0 && names[len(names)-1] == "" {
		names = names[:len(names)-1]
	}
	var outs []string
	for i := 0; i < nOut; i++ {
		o := fmt.Sprintf("out%d", i)
		outs = append(outs, o)
		g.Output = append(g.Output, &pb.ValueInfoProto{Name: o, Type: &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: &pb.TypeProto_Tensor{ElemType: int32(tensor.Float)}}}})
	}
	g.Node = []*pb.NodeProto{{OpType: c.kind, Input: names, Output: outs, Attribute: c.attrs()}}
	data, err := proto.Marshal(&pb.ModelProto{IrVersion: 9, OpsetImport: []*pb.OperatorSetIdProto{{Version: 14}}, Graph: g})
	if err != nil {
		t.Fatal(err)
	}
	s, err := runtime.Load(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, feeds
}

func sig(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// ref solves c straight from the ONNX equations in float64, one unit at a
// time, with its own indexing of both layouts. It returns Y, Y_h, Y_c as
// flat arrays in c's layout.
func (c rnnCase) ref(in []*tensor.Tensor) (y, yh, yc []float64) {
	D, G, H, T, B, I := c.dirs(), c.gates(), c.hid, c.seq, c.batch, c.input
	get := func(i int) []float32 {
		if in[i] == nil {
			return nil
		}
		return in[i].F32()
	}
	at := func(v []float32, i int) float64 {
		if v == nil {
			return 0
		}
		return float64(v[i])
	}
	X, W, R, Bs, h0, c0, P := get(0), get(1), get(2), get(3), get(5), get(6), get(7)
	xAt := func(t, b, k int) float64 {
		if c.layout == 0 {
			return float64(X[(t*B+b)*I+k])
		}
		return float64(X[(b*T+t)*I+k])
	}
	yIdx := func(t, d, b, j int) int {
		if c.layout == 0 {
			return ((t*D+d)*B+b)*H + j
		}
		return ((b*T+t)*D+d)*H + j
	}
	sIdx := func(d, b, j int) int {
		if c.layout == 0 {
			return (d*B+b)*H + j
		}
		return (b*D+d)*H + j
	}
	y, yh, yc = make([]float64, T*D*B*H), make([]float64, D*B*H), make([]float64, D*B*H)
	for d := 0; d < D; d++ {
		// xg(t, b, gate, j) = X·Wᵀ + Wb; hg(h, gate, j) = h·Rᵀ + Rb.
		xg := func(t, b, gate, j int) float64 {
			row := d*G*H + gate*H + j
			s := at(Bs, d*2*G*H+gate*H+j)
			for k := 0; k < I; k++ {
				s += xAt(t, b, k) * float64(W[row*I+k])
			}
			return s
		}
		hg := func(h []float64, gate, j int) float64 {
			row := d*G*H + gate*H + j
			s := at(Bs, d*2*G*H+G*H+gate*H+j)
			for k := 0; k < H; k++ {
				s += h[k] * float64(R[row*H+k])
			}
			return s
		}
		for b := 0; b < B; b++ {
			h, cs := make([]float64, H), make([]float64, H)
			for j := range h {
				h[j], cs[j] = at(h0, sIdx(d, b, j)), at(c0, sIdx(d, b, j))
			}
			L := T
			if c.lens != nil {
				L = int(c.lens[b])
			}
			for k := 0; k < L; k++ {
				t := k
				if c.dir == "reverse" || d == 1 {
					t = L - 1 - k
				}
				nh, nc := make([]float64, H), make([]float64, H)
				for j := 0; j < H; j++ {
					switch c.kind {
					case "RNN":
						nh[j] = math.Tanh(xg(t, b, 0, j) + hg(h, 0, j))
					case "GRU":
						z := sig(xg(t, b, 0, j) + hg(h, 0, j))
						r := sig(xg(t, b, 1, j) + hg(h, 1, j))
						var pre float64
						if c.lbr {
							pre = xg(t, b, 2, j) + r*hg(h, 2, j)
						} else {
							rh := make([]float64, H)
							for q := range rh {
								rh[q] = sig(xg(t, b, 1, q)+hg(h, 1, q)) * h[q]
							}
							pre = xg(t, b, 2, j) + hg(rh, 2, j)
						}
						nh[j] = (1-z)*math.Tanh(pre) + z*h[j]
					case "LSTM":
						pi, po, pf := at(P, d*3*H+j), at(P, d*3*H+H+j), at(P, d*3*H+2*H+j)
						i := sig(xg(t, b, 0, j) + hg(h, 0, j) + pi*cs[j])
						f := sig(xg(t, b, 2, j) + hg(h, 2, j) + pf*cs[j])
						if c.inputForget {
							f = 1 - i
						}
						nc[j] = f*cs[j] + i*math.Tanh(xg(t, b, 3, j)+hg(h, 3, j))
						o := sig(xg(t, b, 1, j) + hg(h, 1, j) + po*nc[j])
						nh[j] = o * math.Tanh(nc[j])
					}
				}
				h, cs = nh, nc
				for j := 0; j < H; j++ {
					y[yIdx(t, d, b, j)] = h[j]
				}
			}
			for j := 0; j < H; j++ {
				yh[sIdx(d, b, j)], yc[sIdx(d, b, j)] = h[j], cs[j]
			}
		}
	}
	return y, yh, yc
}

func rnnCases() []rnnCase {
	var cs []rnnCase
	i := 0
	for _, kind := range []string{"LSTM", "GRU", "RNN"} {
		for _, dir := range []string{"forward", "reverse", "bidirectional"} {
			for layout := 0; layout < 2; layout++ {
				for _, lens := range [][]int32{nil, {5, 2, 0}} {
					i++
					cs = append(cs, rnnCase{
						kind: kind, dir: dir, layout: layout,
						seq: 5, batch: 3, input: 7, hid: []int{6, 9, 37}[i%3], lens: lens,
						bias: i%4 != 0, h0: i%3 != 1, c0: i%2 == 0, peep: i%3 == 0,
						inputForget: kind == "LSTM" && i%5 == 0, lbr: kind == "GRU" && i%2 == 1,
						feeds: i%4 == 2,
					})
				}
			}
		}
	}
	// One larger case per op crosses the GEMV's 32-column blocks several
	// times and runs more steps.
	for _, kind := range []string{"LSTM", "GRU", "RNN"} {
		cs = append(cs, rnnCase{kind: kind, dir: "bidirectional", seq: 17, batch: 2, input: 40, hid: 64, bias: true, h0: true, c0: true})
	}
	return cs
}

// TestFloat32PathMatchesReference runs every case with the float32 path on
// and off (the float64 driver) against the naive reference.
func TestFloat32PathMatchesReference(t *testing.T) {
	for n, c := range rnnCases() {
		t.Run(c.String(), func(t *testing.T) {
			in := c.inputs(uint64(n))
			y, yh, yc := c.ref(in)
			for _, on := range []bool{true, false} {
				old := rnn.SetFast(on)
				out := c.run(t, in)
				rnn.SetFast(old)
				what := fmt.Sprintf("fast=%v", on)
				near(t, what+" Y", out[0], y)
				near(t, what+" Y_h", out[1], yh)
				if c.kind == "LSTM" {
					near(t, what+" Y_c", out[2], yc)
				}
			}
		})
	}
}

func near(t *testing.T, what string, got *tensor.Tensor, want []float64) {
	t.Helper()
	g := got.F32()
	if len(g) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(g), len(want))
	}
	for i, w := range want {
		if d := math.Abs(float64(g[i]) - w); !(d <= 2e-5*(1+math.Abs(w))) {
			t.Fatalf("%s[%d] = %v, want %v (error %.3g)", what, i, g[i], w, d)
		}
	}
}

// BenchmarkLSTM runs the shape of the VAD bench model's LSTMs (256 steps,
// input and hidden 64, batch 1) with the float32 path on and off.
func BenchmarkLSTM(b *testing.B) {
	c := rnnCase{kind: "LSTM", dir: "forward", seq: 256, batch: 1, input: 64, hid: 64, bias: true, h0: true, c0: true}
	in := c.inputs(1)
	for _, on := range []bool{true, false} {
		b.Run(fmt.Sprintf("fast=%v", on), func(b *testing.B) {
			defer rnn.SetFast(rnn.SetFast(on))
			s, feeds := c.session(b, in)
			for b.Loop() {
				if _, err := s.Run(context.Background(), feeds); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBadConstantR checks that a constant R of the wrong shape is reported
// as an error (the float32 path packs constant weights when the kernel is
// built, and must not trip over it first).
func TestBadConstantR(t *testing.T) {
	g := &pb.GraphProto{Name: "g",
		Initializer: []*pb.TensorProto{
			protoconv.Proto("x", f32([]int{1, 1, 1}, 1)),
			protoconv.Proto("w", f32([]int{1, 4, 1}, 1, 1, 1, 1)),
			protoconv.Proto("r", f32([]int{1, 3, 1}, 1, 1, 1)),
		},
		Node:   []*pb.NodeProto{{OpType: "LSTM", Input: []string{"x", "w", "r"}, Output: []string{"y"}}},
		Output: []*pb.ValueInfoProto{{Name: "y", Type: &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: &pb.TypeProto_Tensor{ElemType: int32(tensor.Float)}}}}},
	}
	data, err := proto.Marshal(&pb.ModelProto{IrVersion: 9, OpsetImport: []*pb.OperatorSetIdProto{{Version: 14}}, Graph: g})
	if err != nil {
		t.Fatal(err)
	}
	s, err := runtime.Load(data, nil)
	if err == nil {
		_, err = s.Run(context.Background(), nil)
	}
	if err == nil {
		t.Fatal("no error for R of shape [1 3 1]")
	}
	t.Log(err)
}

// TestFloat32PathAllocations checks that the float32 path allocates per run,
// not per step: a run of 64 steps allocates no more than one of 4.
func TestFloat32PathAllocations(t *testing.T) {
	allocs := func(seq int) float64 {
		c := rnnCase{kind: "LSTM", dir: "bidirectional", seq: seq, batch: 2, input: 5, hid: 12, bias: true, h0: true, c0: true}
		s, feeds := c.session(t, c.inputs(3))
		return testing.AllocsPerRun(20, func() {
			if _, err := s.Run(context.Background(), feeds); err != nil {
				t.Fatal(err)
			}
		})
	}
	if short, long := allocs(4), allocs(64); long > short {
		t.Errorf("%v allocations per run of 64 steps, %v for 4", long, short)
	}
}
