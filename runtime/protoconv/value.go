package protoconv

import (
	"errors"

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
		if err := Unmarshal(data, sp, "SequenceProto", maxBytes); err != nil {
			return nil, err
		}
		return sequence(sp, maxBytes)
	case OptionalValue:
		op := &pb.OptionalProto{}
		if err := Unmarshal(data, op, "OptionalProto", maxBytes); err != nil {
			return nil, err
		}
		return optional(op, maxBytes)
	}
	tp := &pb.TensorProto{}
	if err := Unmarshal(data, tp, "TensorProto", maxBytes); err != nil {
		return nil, err
	}
	return Tensor(tp, maxBytes)
}

// Unmarshal decodes serialized message data (what names it in errors)
// within a memory budget for its message structs (none when maxBytes ≤ 0):
// GORT_TOO_LARGE past the budget, GORT_BAD_MODEL for invalid bytes.
func Unmarshal(data []byte, m pb.Decodable, what string, maxBytes int64) error {
	budget := maxBytes
	if budget <= 0 {
		budget = -1
	}
	if err := pb.UnmarshalWithin(data, m, budget); err != nil {
		if errors.Is(err, pb.ErrBudget) {
			return errs.New(errs.TooLarge, "%s of %d bytes would decode into more than the memory budget of %d bytes (%v)", what, len(data), maxBytes, err)
		}
		return errs.New(errs.BadModel, "not a valid %s (%d bytes): %v", what, len(data), err)
	}
	return nil
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
