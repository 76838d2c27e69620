//go:build !gortlite

package onnxpb_test

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The wire decoder is held to proto.Unmarshal: same success or failure, and
// equal messages (unknown fields aside, which it does not keep).

// kinds are the message types gort decodes from files.
var kinds = []func() proto.Message{
	func() proto.Message { return &pb.ModelProto{} },
	func() proto.Message { return &pb.TensorProto{} },
	func() proto.Message { return &pb.SequenceProto{} },
	func() proto.Message { return &pb.OptionalProto{} },
}

// agree decodes b as message kind k with both decoders and reports how they
// differ ("" when they agree).
func agree(b []byte, k func() proto.Message) string {
	want, got := k(), k()
	werr := proto.Unmarshal(b, want)
	gerr := pb.Unmarshal(b, got.(pb.Decodable))
	switch {
	case (werr == nil) != (gerr == nil):
		return "proto.Unmarshal error " + errString(werr) + ", wire decoder error " + errString(gerr)
	case werr != nil:
		return ""
	}
	discardUnknown(want.ProtoReflect())
	if !proto.Equal(got, want) {
		return "messages differ"
	}
	return ""
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func discardUnknown(m protoreflect.Message) {
	m.SetUnknown(nil)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() != protoreflect.MessageKind:
		case fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				discardUnknown(v.List().Get(i).Message())
			}
		default:
			discardUnknown(v.Message())
		}
		return true
	})
}

// testFiles lists every model and test value in testdata.
func testFiles(t *testing.T) []string {
	var files []string
	for _, pattern := range []string{"../../testdata/*/*/*/model.onnx", "../../testdata/*/*/model.onnx",
		"../../testdata/*/*/*/test_data_set_*/*.pb", "../../testdata/*/*/test_data_set_*/*.pb"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	if len(files) < 3000 {
		t.Fatalf("found only %d test files", len(files))
	}
	return files
}

// Every file decoded as every kind: models and values as themselves, and as
// the wrong kind, which exercises unknown fields and wire-type mismatches.
func TestUnmarshalAgreesOnTestdata(t *testing.T) {
	for _, f := range testFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range kinds {
			if d := agree(b, k); d != "" {
				t.Errorf("%s as kind %d: %s", f, i, d)
			}
		}
	}
}

// Truncations and byte corruptions of small models: hostile input.
func TestUnmarshalAgreesOnDamagedInput(t *testing.T) {
	files := testFiles(t)
	rng := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for _, f := range files {
		if !strings.HasSuffix(f, "model.onnx") {
			continue
		}
		b, _ := os.ReadFile(f)
		if len(b) > 600 || rng.IntN(4) != 0 {
			continue
		}
		checked++
		for n := 0; n < len(b); n++ {
			if d := agree(b[:n], kinds[0]); d != "" {
				t.Fatalf("%s cut to %d bytes: %s", f, n, d)
			}
		}
		for i := 0; i < 200; i++ {
			c := append([]byte(nil), b...)
			for j := 0; j < 1+rng.IntN(3); j++ {
				c[rng.IntN(len(c))] = byte(rng.IntN(256))
			}
			if d := agree(c, kinds[0]); d != "" {
				t.Fatalf("%s corrupted: %s", f, d)
			}
		}
	}
	t.Logf("%d models truncated and corrupted", checked)
	if checked < 50 {
		t.Fatalf("only %d models checked", checked)
	}
}

func TestUnmarshalErrors(t *testing.T) {
	tag := func(num protowire.Number, typ protowire.Type) []byte { return protowire.AppendTag(nil, num, typ) }
	graph := func(inner []byte) []byte { return protowire.AppendBytes(tag(7, protowire.BytesType), inner) }
	nested := tag(1, protowire.BytesType) // node, then a length past the end
	nested = protowire.AppendVarint(nested, 50)
	deep := []byte{}
	for i := 0; i < pb.MaxDepth+5; i++ { // GraphProto.node.attribute.g... nested by hand
		deep = protowire.AppendBytes(tag(6, protowire.BytesType), deep) // AttributeProto.g
		deep = protowire.AppendBytes(tag(5, protowire.BytesType), deep) // NodeProto.attribute
		deep = protowire.AppendBytes(tag(1, protowire.BytesType), deep) // GraphProto.node
	}
	tests := []struct {
		name  string
		b     []byte
		field string // the DecodeError's path
		want  string
	}{
		{"truncated varint", append(tag(1, protowire.VarintType), 0x80), "", "unexpected EOF"},
		{"field number 0", []byte{0x00}, "", "invalid field number"},
		{"truncated nested", graph(nested), "", "unexpected EOF"},
		{"bad utf-8 name", graph(protowire.AppendBytes(tag(2, protowire.BytesType), []byte{0xff})), "graph.name", "invalid UTF-8"},
		{"too deep", graph(deep), "", "nest more than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := pb.Unmarshal(tc.b, &pb.ModelProto{})
			var de *pb.DecodeError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want a DecodeError containing %q", err, tc.want)
			}
			if tc.field != "" && de.Field != tc.field {
				t.Fatalf("field %q, want %q", de.Field, tc.field)
			}
		})
	}
}

func TestCloneIsDeep(t *testing.T) {
	b, err := os.ReadFile("../../testdata/bench/test_squeezenet/model.onnx")
	if err != nil {
		t.Fatal(err)
	}
	m := &pb.ModelProto{}
	if err := pb.Unmarshal(b, m); err != nil {
		t.Fatal(err)
	}
	c := pb.Clone(m)
	if !proto.Equal(c, m) {
		t.Fatal("clone differs from the original")
	}
	c.Graph.Node[0].Input[0] = "changed"
	c.Graph.Node[0].Attribute[0].Ints = append(c.Graph.Node[0].Attribute[0].Ints[:0], 99)
	c.Graph.Initializer[0].RawData[0] ^= 0xff
	c.Graph.Input[0].Type.GetTensorType().Shape.Dim[0].Value = &pb.TensorShapeProto_Dimension_DimParam{DimParam: "N"}
	fresh := &pb.ModelProto{}
	if err := pb.Unmarshal(b, fresh); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(m, fresh) {
		t.Fatal("changing the clone changed the original")
	}
	if pb.Clone[*pb.NodeProto](nil) != nil {
		t.Fatal("clone of nil is not nil")
	}
}

func TestUnmarshalWithinBudget(t *testing.T) {
	b, err := os.ReadFile("../../testdata/bench/test_squeezenet/model.onnx")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		budget int64
		ok     bool
	}{{-1, true}, {1 << 20, true}, {0, false}, {2000, false}} {
		err := pb.UnmarshalWithin(b, &pb.ModelProto{}, tc.budget)
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, pb.ErrBudget)) {
			t.Errorf("budget %d: error %v", tc.budget, err)
		}
	}
}
