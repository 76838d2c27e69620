package graph_test

import (
	"reflect"
	"testing"

	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/graph"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

func externalTensor(name string, dims []int64, kv ...string) *pb.TensorProto {
	tp := &pb.TensorProto{Name: name, DataType: int32(tensor.Int32), Dims: dims, DataLocation: pb.TensorProto_EXTERNAL}
	for i := 0; i+1 < len(kv); i += 2 {
		tp.ExternalData = append(tp.ExternalData, &pb.StringStringEntryProto{Key: kv[i], Value: kv[i+1]})
	}
	return tp
}

// file holds int32 1, 2, 3, 4 little-endian.
var file = []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0}

func TestExternalData(t *testing.T) {
	cases := []struct {
		name  string
		tp    *pb.TensorProto
		files map[string][]byte
		want  []int32
		code  errs.Code
		msg   string
	}{
		{"not provided", externalTensor("w", []int64{2}, "location", "weights.bin"), nil, nil, errs.ExternalData, `"weights.bin"`},
		{"other file provided", externalTensor("w", []int64{2}, "location", "weights.bin"), map[string][]byte{"x.bin": file}, nil, errs.ExternalData, `"weights.bin"`},
		{"whole file", externalTensor("w", []int64{4}, "location", "weights.bin"), map[string][]byte{"weights.bin": file}, []int32{1, 2, 3, 4}, "", ""},
		{"offset and length", externalTensor("w", []int64{2}, "location", "weights.bin", "offset", "4", "length", "8"),
			map[string][]byte{"weights.bin": file}, []int32{2, 3}, "", ""},
		{"offset to the end", externalTensor("w", []int64{1}, "location", "weights.bin", "offset", "12"),
			map[string][]byte{"weights.bin": file}, []int32{4}, "", ""},
		{"offset past the end", externalTensor("w", []int64{1}, "location", "weights.bin", "offset", "20", "length", "4"),
			map[string][]byte{"weights.bin": file}, nil, errs.ExternalData, "outside"},
		{"length past the end", externalTensor("w", []int64{4}, "location", "weights.bin", "offset", "4", "length", "16"),
			map[string][]byte{"weights.bin": file}, nil, errs.ExternalData, "outside"},
		{"negative offset", externalTensor("w", []int64{1}, "location", "weights.bin", "offset", "-4"),
			map[string][]byte{"weights.bin": file}, nil, errs.ExternalData, "outside"},
		{"offset overflowing", externalTensor("w", []int64{1}, "location", "weights.bin", "offset", "9223372036854775807", "length", "4"),
			map[string][]byte{"weights.bin": file}, nil, errs.ExternalData, "outside"},
		{"offset not a number", externalTensor("w", []int64{1}, "location", "weights.bin", "offset", "4x"),
			map[string][]byte{"weights.bin": file}, nil, errs.ExternalData, "offset"},
		{"no location", externalTensor("w", []int64{1}), map[string][]byte{"weights.bin": file}, nil, errs.ExternalData, "location"},
		{"length does not match dims", externalTensor("w", []int64{3}, "location", "weights.bin", "length", "8"),
			map[string][]byte{"weights.bin": file}, nil, errs.BadModel, "raw_data has 8 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := tm.New(13)
			m.InitProto(c.tp)
			m.Output("w", tensor.Int32)
			g, err := graph.Load(m.Bytes(), graph.Options{Registry: tm.Registry(nil), ExternalData: c.files})
			if c.code != "" {
				wantErr(t, err, c.code, "", "w", c.msg)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := g.Graph.Initializers["w"].I32(); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestExternalDataInAttribute covers a Constant-like node whose value
// attribute is stored externally.
func TestExternalDataInAttribute(t *testing.T) {
	build := func() *tm.Model {
		m := tm.New(13)
		m.Opset(tm.Domain, 1)
		n := m.Node("Const", nil, []string{"c"}, tm.TensorProto("value", externalTensor("cval", []int64{2}, "location", "c.bin", "offset", "8")))
		n.Domain, n.Name = tm.Domain, "const"
		m.Output("c", tensor.Int32, 2)
		return m
	}
	_, err := loadAndPlan(build().Bytes(), graph.Options{Registry: tm.Registry(nil)})
	wantErr(t, err, errs.ExternalData, "const", "cval", `"c.bin"`)

	g, err := graph.Load(build().Bytes(), graph.Options{Registry: tm.Registry(nil), ExternalData: map[string][]byte{"c.bin": file}})
	if err != nil {
		t.Fatal(err)
	}
	if g.Graph.Nodes[0].Builder == nil {
		t.Fatal(g.Graph.Nodes[0].Problem)
	}
	if a := g.Graph.Nodes[0].Attrs["value"].GetT(); a.GetDataLocation() == pb.TensorProto_EXTERNAL || len(a.GetRawData()) != 8 {
		t.Errorf("attribute not resolved: %v", a)
	}

	_, err = loadAndPlan(build().Bytes(), graph.Options{Registry: tm.Registry(nil), ExternalData: map[string][]byte{"c.bin": file[:4]}})
	wantErr(t, err, errs.ExternalData, "const", "cval", "outside")
}
