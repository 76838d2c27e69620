package loss_test

import (
	"context"
	"fmt"
	_ "github.com/gort-dev/gort/ops" // the operator set
	"math"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/gort-dev/gort/runtime"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

func iattr(name string, v int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INT, I: v}
}

func sattr(name, v string) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_STRING, S: []byte(v)}
}

func tryOp(opType string, opset int64, attrs []*pb.AttributeProto, ins []*tensor.Tensor, nOut int) ([]*tensor.Tensor, error) {
	g := &pb.GraphProto{Name: "g"}
	names := make([]string, len(ins))
	for i, in := range ins {
		if in == nil {
			continue
		}
		names[i] = fmt.Sprintf("in%d", i)
		g.Initializer = append(g.Initializer, protoconv.Proto(names[i], in))
	}
	var outs []string
	for i := 0; i < nOut; i++ {
		o := fmt.Sprintf("out%d", i)
		outs = append(outs, o)
		g.Output = append(g.Output, &pb.ValueInfoProto{Name: o})
	}
	g.Node = []*pb.NodeProto{{OpType: opType, Input: names, Output: outs, Attribute: attrs}}
	data, err := proto.Marshal(&pb.ModelProto{IrVersion: 8, OpsetImport: []*pb.OperatorSetIdProto{{Version: opset}}, Graph: g})
	if err != nil {
		return nil, err
	}
	s, err := runtime.Load(data, nil)
	if err != nil {
		return nil, err
	}
	res, err := s.Run(context.Background(), nil)
	if err != nil {
		return nil, err
	}
	out := make([]*tensor.Tensor, nOut)
	for i, o := range outs {
		out[i] = res[o].(*tensor.Tensor)
	}
	return out, nil
}

func expectClose(t *testing.T, name string, got *tensor.Tensor, shape []int, want []float64) {
	t.Helper()
	if fmt.Sprint(got.Shape()) != fmt.Sprint(shape) {
		t.Fatalf("%s: shape %v, want %v", name, got.Shape(), shape)
	}
	g, _ := got.Float64s()
	for i, w := range want {
		if math.IsNaN(w) != math.IsNaN(g[i]) || math.Abs(g[i]-w) > 1e-5*(1+math.Abs(w)) {
			t.Fatalf("%s: got %v, want %v", name, g, want)
		}
	}
}

// Input (N=2, C=3, d1=2) and targets with one ignored sample (-1).
var (
	x = []float32{
		1, 2, // n0 c0
		2, 2, // n0 c1
		3, 2, // n0 c2
		0, 1, // n1 c0
		2, 2, // n1 c1
		1, 2, // n1 c2
	}
	target = []int64{2, 1, 0, -1}
	weight = []float32{0.2, 0.3, 0.1}
)

// at returns x[n][c][d] of the (2, 3, 2) input.
func at(v []float64, n, c, d int) float64 { return v[(n*3+c)*2+d] }

// naive computes per-sample losses and the total applied weight from
// (log-)probabilities shaped like x, by plain indexing.
func naive(logp []float64, useWeight bool) (loss []float64, wsum float64) {
	loss = make([]float64, 4)
	for n := 0; n < 2; n++ {
		for d := 0; d < 2; d++ {
			c := target[n*2+d]
			if c == -1 {
				continue
			}
			w := 1.0
			if useWeight {
				w = float64(weight[c])
			}
			loss[n*2+d] = -at(logp, n, int(c), d) * w
			wsum += w
		}
	}
	return loss, wsum
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

func TestNegativeLogLikelihoodLoss(t *testing.T) {
	xf := make([]float64, len(x))
	for i, v := range x {
		xf[i] = float64(v)
	}
	for _, opset := range []int64{12, 13, 22} {
		for _, useWeight := range []bool{false, true} {
			l, ws := naive(xf, useWeight)
			for _, tc := range []struct {
				red   string
				shape []int
				want  []float64
			}{
				{"none", []int{2, 2}, l},
				{"sum", []int{}, []float64{sum(l)}},
				{"mean", []int{}, []float64{sum(l) / ws}},
			} {
				t.Run(fmt.Sprintf("opset%d/weight=%v/%s", opset, useWeight, tc.red), func(t *testing.T) {
					ins := []*tensor.Tensor{tensor.Of([]int{2, 3, 2}, x), tensor.Of([]int{2, 2}, target)}
					if useWeight {
						ins = append(ins, tensor.Of([]int{3}, weight))
					}
					got, err := tryOp("NegativeLogLikelihoodLoss", opset, []*pb.AttributeProto{sattr("reduction", tc.red), iattr("ignore_index", -1)}, ins, 1)
					if err != nil {
						t.Fatal(err)
					}
					expectClose(t, "loss", got[0], tc.shape, tc.want)
				})
			}
		}
	}
	// Spec example 3 (no ignored sample): weighted mean -1.57.
	got, err := tryOp("NegativeLogLikelihoodLoss", 13, nil, []*tensor.Tensor{tensor.Of([]int{2, 3, 2}, x),
		tensor.Of([]int{2, 2}, []int32{2, 1, 0, 2}), tensor.Of([]int{3}, weight)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	expectClose(t, "spec example", got[0], []int{}, []float64{-1.1 / 0.7})
	// -1 is out of range without ignore_index.
	if _, err := tryOp("NegativeLogLikelihoodLoss", 13, nil, []*tensor.Tensor{tensor.Of([]int{2, 3, 2}, x), tensor.Of([]int{2, 2}, target)}, 1); err == nil {
		t.Fatal("out-of-range target: expected an error")
	}
}

func TestSoftmaxCrossEntropyLoss(t *testing.T) {
	// Log-softmax over the class axis (axis 1), by hand.
	logp := make([]float64, len(x))
	for n := 0; n < 2; n++ {
		for d := 0; d < 2; d++ {
			z := 0.0
			for c := 0; c < 3; c++ {
				z += math.Exp(float64(x[(n*3+c)*2+d]))
			}
			for c := 0; c < 3; c++ {
				logp[(n*3+c)*2+d] = float64(x[(n*3+c)*2+d]) - math.Log(z)
			}
		}
	}
	for _, opset := range []int64{12, 13} {
		for _, useWeight := range []bool{false, true} {
			l, ws := naive(logp, useWeight)
			for _, tc := range []struct {
				red   string
				shape []int
				want  []float64
			}{
				{"none", []int{2, 2}, l},
				{"sum", []int{}, []float64{sum(l)}},
				{"mean", []int{}, []float64{sum(l) / ws}},
			} {
				t.Run(fmt.Sprintf("opset%d/weight=%v/%s", opset, useWeight, tc.red), func(t *testing.T) {
					ins := []*tensor.Tensor{tensor.Of([]int{2, 3, 2}, x), tensor.Of([]int{2, 2}, target)}
					if useWeight {
						ins = append(ins, tensor.Of([]int{3}, weight))
					}
					got, err := tryOp("SoftmaxCrossEntropyLoss", opset, []*pb.AttributeProto{sattr("reduction", tc.red), iattr("ignore_index", -1)}, ins, 2)
					if err != nil {
						t.Fatal(err)
					}
					expectClose(t, "loss", got[0], tc.shape, tc.want)
					expectClose(t, "log_prob", got[1], []int{2, 3, 2}, logp)
				})
			}
		}
	}
	// float64 scores stay float64; 2-D (N, C) input.
	got, err := tryOp("SoftmaxCrossEntropyLoss", 13, nil, []*tensor.Tensor{tensor.Of([]int{2, 2}, []float64{0, 0, 1000, 0}), tensor.Of([]int{2}, []int64{0, 1})}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].DType() != tensor.Double {
		t.Fatalf("dtype %s", got[0].DType())
	}
	expectClose(t, "large logits", got[0], []int{}, []float64{(math.Log(2) + 1000) / 2})
}
