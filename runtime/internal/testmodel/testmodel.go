// Package testmodel builds small ONNX ModelProtos for tests, so that loader
// and session tests can state the model they exercise in a few lines instead
// of depending on binary fixtures.
//
//	m := testmodel.New(13)
//	m.Input("x", tensor.Float, 2, "N")
//	m.Node("Add", []string{"x", "w"}, []string{"y"})
//	m.Init("w", tensor.Of([]int{2}, []float32{1, 2}))
//	m.Output("y", tensor.Float, 2, "N")
//	data := m.Bytes()
package testmodel

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Graph wraps a GraphProto with helpers that append to it.
type Graph struct{ *pb.GraphProto }

// NewGraph returns an empty graph (for subgraph attributes).
func NewGraph(name string) *Graph { return &Graph{&pb.GraphProto{Name: name}} }

// Model wraps a ModelProto; its main graph's helpers are promoted.
type Model struct {
	*Graph
	Proto *pb.ModelProto
}

// New returns a model with IR version 8 importing the default domain at opset.
func New(opset int) *Model {
	g := NewGraph("main")
	mp := &pb.ModelProto{
		IrVersion:   8,
		OpsetImport: []*pb.OperatorSetIdProto{{Domain: "", Version: int64(opset)}},
		Graph:       g.GraphProto,
	}
	return &Model{Graph: g, Proto: mp}
}

// Opset adds an opset_import entry.
func (m *Model) Opset(domain string, version int) *Model {
	m.Proto.OpsetImport = append(m.Proto.OpsetImport, &pb.OperatorSetIdProto{Domain: domain, Version: int64(version)})
	return m
}

// Bytes serializes the model.
func (m *Model) Bytes() []byte {
	b, err := proto.Marshal(m.Proto)
	if err != nil {
		panic(err)
	}
	return b
}

// Function adds a model-local function and returns it for further edits.
func (m *Model) Function(domain, name string, inputs, outputs []string, nodes ...*pb.NodeProto) *pb.FunctionProto {
	f := &pb.FunctionProto{Domain: domain, Name: name, Input: inputs, Output: outputs, Node: nodes,
		OpsetImport: m.Proto.OpsetImport}
	m.Proto.Functions = append(m.Proto.Functions, f)
	return f
}

// TensorType returns a tensor TypeProto. Each dim is an int (dim_value), a
// string (dim_param) or nil (unknown). With no dims at all the shape is
// rank 0; use UnrankedType for an absent shape.
func TensorType(dt tensor.DType, dims ...any) *pb.TypeProto {
	shape := &pb.TensorShapeProto{Dim: []*pb.TensorShapeProto_Dimension{}}
	for _, d := range dims {
		dim := &pb.TensorShapeProto_Dimension{}
		switch v := d.(type) {
		case int:
			dim.Value = &pb.TensorShapeProto_Dimension_DimValue{DimValue: int64(v)}
		case int64:
			dim.Value = &pb.TensorShapeProto_Dimension_DimValue{DimValue: v}
		case string:
			dim.Value = &pb.TensorShapeProto_Dimension_DimParam{DimParam: v}
		case nil:
		default:
			panic(fmt.Sprintf("testmodel: dim %v of type %T", d, d))
		}
		shape.Dim = append(shape.Dim, dim)
	}
	return &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: &pb.TypeProto_Tensor{ElemType: int32(dt), Shape: shape}}}
}

// UnrankedType is a tensor type without a shape.
func UnrankedType(dt tensor.DType) *pb.TypeProto {
	return &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: &pb.TypeProto_Tensor{ElemType: int32(dt)}}}
}

// Input declares a graph input.
func (g *Graph) Input(name string, dt tensor.DType, dims ...any) *Graph {
	g.GraphProto.Input = append(g.GraphProto.Input, &pb.ValueInfoProto{Name: name, Type: TensorType(dt, dims...)})
	return g
}

// Output declares a graph output.
func (g *Graph) Output(name string, dt tensor.DType, dims ...any) *Graph {
	g.GraphProto.Output = append(g.GraphProto.Output, &pb.ValueInfoProto{Name: name, Type: TensorType(dt, dims...)})
	return g
}

// Init adds an initializer (encoded with raw_data by protoconv.Proto).
func (g *Graph) Init(name string, t *tensor.Tensor) *Graph {
	g.Initializer = append(g.Initializer, protoconv.Proto(name, t))
	return g
}

// InitProto adds a hand-made initializer.
func (g *Graph) InitProto(tp *pb.TensorProto) *Graph {
	g.Initializer = append(g.Initializer, tp)
	return g
}

// Node appends a node and returns it.
func (g *Graph) Node(opType string, inputs, outputs []string, attrs ...*pb.AttributeProto) *pb.NodeProto {
	n := NodeProto(opType, inputs, outputs, attrs...)
	g.GraphProto.Node = append(g.GraphProto.Node, n)
	return n
}

// NodeProto builds a node without adding it to a graph (for function bodies).
func NodeProto(opType string, inputs, outputs []string, attrs ...*pb.AttributeProto) *pb.NodeProto {
	return &pb.NodeProto{OpType: opType, Input: inputs, Output: outputs, Attribute: attrs}
}

// Named sets a node's name and domain and returns it.
func Named(n *pb.NodeProto, name, domain string) *pb.NodeProto {
	n.Name, n.Domain = name, domain
	return n
}

// Int is an INT attribute.
func Int(name string, v int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INT, I: v}
}

// Ints is an INTS attribute.
func Ints(name string, v ...int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INTS, Ints: v}
}

// Float is a FLOAT attribute.
func Float(name string, v float32) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_FLOAT, F: v}
}

// String is a STRING attribute.
func String(name, v string) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_STRING, S: []byte(v)}
}

// Tensor is a TENSOR attribute.
func Tensor(name string, t *tensor.Tensor) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_TENSOR, T: protoconv.Proto("", t)}
}

// TensorProto is a TENSOR attribute with a hand-made TensorProto.
func TensorProto(name string, tp *pb.TensorProto) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_TENSOR, T: tp}
}

// GraphAttr is a GRAPH attribute.
func GraphAttr(name string, g *Graph) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_GRAPH, G: g.GraphProto}
}

// Ref is an attribute of a function body node that refers to the calling
// node's attribute ref (ref_attr_name).
func Ref(name, ref string, typ pb.AttributeProto_AttributeType) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, RefAttrName: ref, Type: typ}
}
