package protoconv

import (
	"github.com/gort-dev/gort/runtime/errs"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// ValueKind says which protobuf message a serialized value is.
type ValueKind int

const (
	TensorValue ValueKind = iota
	SequenceValue
	OptionalValue
)

// DecodeValue decodes a serialized TensorProto, SequenceProto or OptionalProto
// (the formats of the ONNX test data files).
func DecodeValue(data []byte, kind ValueKind, maxBytes int64) (tensor.Value, error) {
	switch kind {
	case SequenceValue:
		sp := &pb.SequenceProto{}
		if err := pb.Unmarshal(data, sp); err != nil {
			return nil, errs.New(errs.BadModel, "bad SequenceProto: %v", err)
		}
		return sequence(sp, maxBytes)
	case OptionalValue:
		op := &pb.OptionalProto{}
		if err := pb.Unmarshal(data, op); err != nil {
			return nil, errs.New(errs.BadModel, "bad OptionalProto: %v", err)
		}
		return optional(op, maxBytes)
	}
	tp := &pb.TensorProto{}
	if err := pb.Unmarshal(data, tp); err != nil {
		return nil, errs.New(errs.BadModel, "bad TensorProto: %v", err)
	}
	return Tensor(tp, maxBytes)
}

func sequence(sp *pb.SequenceProto, maxBytes int64) (*tensor.Sequence, error) {
	seq := &tensor.Sequence{}
	for _, tp := range sp.GetTensorValues() {
		t, err := Tensor(tp, maxBytes)
		if err != nil {
			return nil, err
		}
		seq.Items = append(seq.Items, t)
		seq.Elem = t.DType()
	}
	if len(sp.GetSequenceValues()) > 0 || len(sp.GetMapValues()) > 0 || len(sp.GetOptionalValues()) > 0 {
		return nil, errs.New(errs.BadModel, "sequences of non-tensors are not supported")
	}
	return seq, nil
}

func optional(op *pb.OptionalProto, maxBytes int64) (*tensor.Optional, error) {
	switch {
	case op.GetTensorValue() != nil:
		t, err := Tensor(op.GetTensorValue(), maxBytes)
		if err != nil {
			return nil, err
		}
		return &tensor.Optional{Value: t}, nil
	case op.GetSequenceValue() != nil:
		s, err := sequence(op.GetSequenceValue(), maxBytes)
		if err != nil {
			return nil, err
		}
		return &tensor.Optional{Value: s}, nil
	}
	return &tensor.Optional{}, nil
}
