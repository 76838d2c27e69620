// Package modeltest is test support for running one operator the way a user
// does: as a one-node ONNX model, serialized, loaded by runtime.Load (with
// its validation, required-input checks and planning) and run through the
// Session API. optest runs a builder directly instead; this package is
// separate because it imports runtime (loading, planning, the session),
// which optest's users need not link. It registers no operator: a model runs
// only the ops its test binary has registered.
package modeltest

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/gort-dev/gort/runtime"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Node describes the one-node model.
type Node struct {
	Domain string // "" is the default domain
	Op     string
	Opset  int // of Domain
	// DefaultOpset is the default domain's opset when Domain is another
	// one (21 when zero).
	DefaultOpset int
	Attrs        []*pb.AttributeProto
	// In are the inputs, nil for an omitted one (an empty name). The first
	// Fed of them are graph inputs fed at run time, the rest initializers
	// (constants the loader may use at build time).
	In   []*tensor.Tensor
	Fed  int
	NOut int // outputs (default 1), declared without a type
	// MaxTensorBytes is the session budget (runtime's default when zero).
	MaxTensorBytes int64
}

// Build returns the serialized model, its feeds and its output names.
func Build(n Node) ([]byte, map[string]tensor.Value, []string, error) {
	g := &pb.GraphProto{Name: "modeltest"}
	feeds := map[string]tensor.Value{}
	names := make([]string, len(n.In))
	for i, t := range n.In {
		if t == nil {
			continue
		}
		names[i] = fmt.Sprintf("x%d", i)
		if i < n.Fed {
			g.Input = append(g.Input, &pb.ValueInfoProto{Name: names[i], Type: &pb.TypeProto{Value: &pb.TypeProto_TensorType{
				TensorType: &pb.TypeProto_Tensor{ElemType: int32(t.DType())}}}})
			feeds[names[i]] = t
		} else {
			g.Initializer = append(g.Initializer, protoconv.Proto(names[i], t))
		}
	}
	outs := make([]string, max(n.NOut, 1))
	for i := range outs {
		outs[i] = fmt.Sprintf("y%d", i)
		g.Output = append(g.Output, &pb.ValueInfoProto{Name: outs[i]})
	}
	g.Node = []*pb.NodeProto{{Name: "n", Domain: n.Domain, OpType: n.Op, Input: names, Output: outs, Attribute: n.Attrs}}
	opsets := []*pb.OperatorSetIdProto{{Version: int64(n.Opset)}}
	if n.Domain != "" && n.Domain != "ai.onnx" {
		def := n.DefaultOpset
		if def == 0 {
			def = 21
		}
		opsets = []*pb.OperatorSetIdProto{{Version: int64(def)}, {Domain: n.Domain, Version: int64(n.Opset)}}
	}
	data, err := proto.Marshal(&pb.ModelProto{IrVersion: 10, OpsetImport: opsets, Graph: g})
	return data, feeds, outs, err
}

// Run builds, loads and runs the model and returns its outputs as tensors.
func Run(n Node) ([]*tensor.Tensor, error) {
	data, feeds, outs, err := Build(n)
	if err != nil {
		return nil, err
	}
	s, err := runtime.Load(data, &runtime.Options{MaxTensorBytes: n.MaxTensorBytes})
	if err != nil {
		return nil, err
	}
	res, err := s.Run(context.Background(), feeds)
	if err != nil {
		return nil, err
	}
	out := make([]*tensor.Tensor, len(outs))
	for i, o := range outs {
		t, ok := res[o].(*tensor.Tensor)
		if !ok {
			return nil, fmt.Errorf("output %s is a %T, not a tensor", o, res[o])
		}
		out[i] = t
	}
	return out, nil
}
