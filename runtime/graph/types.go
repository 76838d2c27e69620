package graph

import (
	"fmt"
	"github.com/gort-dev/gort/runtime/protoconv"
	"strings"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Kind is the kind of a graph value.
type Kind int

const (
	KindUnknown Kind = iota
	KindTensor
	KindSequence
	KindOptional
	KindMap
	KindSparseTensor
)

func (k Kind) String() string {
	return [...]string{"unknown", "tensor", "sequence", "optional", "map", "sparse_tensor"}[k]
}

// Dim is one dimension of a declared shape: a fixed Value (≥ 0), a symbolic
// Param name, or unknown (Value < 0 and Param == "").
type Dim struct {
	Value int64
	Param string
}

// Known reports whether the dim is a fixed number.
func (d Dim) Known() bool { return d.Param == "" && d.Value >= 0 }

func (d Dim) String() string {
	switch {
	case d.Param != "":
		return d.Param
	case d.Value >= 0:
		return fmt.Sprint(d.Value)
	}
	return "?"
}

// Type is the declared type of a value.
type Type struct {
	Kind Kind
	// Elem is the element type of a tensor (or of the tensors inside a sequence/optional).
	Elem tensor.DType
	// Shape is nil when the rank is unknown.
	Shape []Dim
	// Inner is the element type of a sequence or optional.
	Inner *Type
}

// ValueKind is the kind of protobuf value (TensorProto, SequenceProto,
// OptionalProto) that holds a value of this type, for decoding test data
// and feeds from files.
func (t Type) ValueKind() protoconv.ValueKind {
	switch t.Kind {
	case KindSequence:
		return protoconv.SequenceValue
	case KindOptional:
		return protoconv.OptionalValue
	}
	return protoconv.TensorValue
}

func (t Type) String() string {
	switch t.Kind {
	case KindTensor, KindSparseTensor:
		if t.Shape == nil {
			return t.Elem.String() + "[?]"
		}
		ds := make([]string, len(t.Shape))
		for i, d := range t.Shape {
			ds[i] = d.String()
		}
		return t.Elem.String() + "[" + strings.Join(ds, ",") + "]"
	case KindSequence, KindOptional:
		if t.Inner != nil {
			return t.Kind.String() + "(" + t.Inner.String() + ")"
		}
	}
	return t.Kind.String()
}

// ValueInfo names a graph input or output with its declared type.
type ValueInfo struct {
	Name string
	Type Type
}

func typeFromProto(tp *pb.TypeProto) Type {
	if tp == nil {
		return Type{}
	}
	switch v := tp.Value.(type) {
	case *pb.TypeProto_TensorType:
		return tensorType(KindTensor, v.TensorType.GetElemType(), v.TensorType.GetShape())
	case *pb.TypeProto_SparseTensorType:
		return tensorType(KindSparseTensor, v.SparseTensorType.GetElemType(), v.SparseTensorType.GetShape())
	case *pb.TypeProto_SequenceType:
		in := typeFromProto(v.SequenceType.GetElemType())
		return Type{Kind: KindSequence, Elem: in.Elem, Inner: &in}
	case *pb.TypeProto_OptionalType:
		in := typeFromProto(v.OptionalType.GetElemType())
		return Type{Kind: KindOptional, Elem: in.Elem, Inner: &in}
	case *pb.TypeProto_MapType:
		return Type{Kind: KindMap}
	}
	return Type{}
}

func tensorType(k Kind, elem int32, shape *pb.TensorShapeProto) Type {
	t := Type{Kind: k, Elem: tensor.DType(elem)}
	if shape != nil {
		t.Shape = make([]Dim, len(shape.GetDim()))
		for i, d := range shape.GetDim() {
			switch v := d.Value.(type) {
			case *pb.TensorShapeProto_Dimension_DimValue:
				t.Shape[i] = Dim{Value: v.DimValue}
			case *pb.TensorShapeProto_Dimension_DimParam:
				t.Shape[i] = Dim{Value: -1, Param: v.DimParam}
			default:
				t.Shape[i] = Dim{Value: -1}
			}
		}
	}
	return t
}

// TypeOfTensor is the type of a concrete tensor.
func TypeOfTensor(t *tensor.Tensor) Type {
	shape := make([]Dim, t.Rank())
	for i, d := range t.Shape() {
		shape[i] = Dim{Value: int64(d)}
	}
	return Type{Kind: KindTensor, Elem: t.DType(), Shape: shape}
}
