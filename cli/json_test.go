package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gort-dev/gort/runtime/check"
	"github.com/gort-dev/gort/runtime/compare"
	"github.com/gort-dev/gort/runtime/diverge"
	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/printer"
	"github.com/gort-dev/gort/runtime/protoconv"
)

// sameAsEncodingJSON fails unless encodeJSON(v) is what json.Encoder with
// SetIndent("", "  ") writes for v (or both fail).
func sameAsEncodingJSON(t *testing.T, name string, v any) {
	t.Helper()
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetIndent("", "  ")
	wantErr := enc.Encode(v)
	got, err := encodeJSON(v)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%s: error %v, encoding/json's %v", name, err, wantErr)
	}
	if err == nil && !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("%s: encodeJSON wrote\n%s\nencoding/json\n%s", name, got, want.Bytes())
	}
}

type embedded struct {
	Inner  int    `json:"inner"`
	Shadow string `json:"shadow"`
}

type edgeCases struct {
	embedded
	*compare.Stats `json:"stats"`
	Shadow         string `json:"shadow"`
	Untagged       float32
	Skipped        int `json:"-"`
	unexported     int
	Omit           []int             `json:"omit,omitempty"`
	OmitPtr        *int              `json:"omitPtr,omitempty"`
	OmitMap        map[string]int    `json:"omitMap,omitempty"`
	NilSlice       []string          `json:"nilSlice"`
	NilMap         map[string]any    `json:"nilMap"`
	EmptyMap       map[string]any    `json:"emptyMap"`
	IntKeys        map[int64]string  `json:"intKeys"`
	Any            any               `json:"any"`
	Arr            [2]uint8          `json:"arr"`
	Floats         []float64         `json:"floats"`
	Floats32       []float32         `json:"floats32"`
	Strings        []string          `json:"strings"`
	Specials       []compare.Float   `json:"specials"`
	Nested         map[string][]*int `json:"nested"`
}

func TestEncodeJSON(t *testing.T) {
	one := 1
	sameAsEncodingJSON(t, "edge cases", edgeCases{
		embedded: embedded{Inner: 3, Shadow: "lost"},
		Stats:    &compare.Stats{MaxAbs: compare.Float(math.NaN()), WorstIndex: []int{1, 2}},
		Shadow:   "kept", Untagged: 0.1, Skipped: 9, unexported: 1,
		NilSlice: nil, NilMap: nil, EmptyMap: map[string]any{}, IntKeys: map[int64]string{10: "a", 9: "b", -1: "c"},
		Any:      []any{nil, true, "x", 1.5, map[string]any{"b": 1, "a": []any{}}},
		Arr:      [2]uint8{7, 8},
		Floats:   []float64{0, -0.0, 1, -1.5, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789, 0.1 + 0.2, 5e-324, math.MaxFloat64, 1e-100},
		Floats32: []float32{0.1, 1e-7, 3.4e38, 1e21, 16777217, float32(math.Pi)},
		Strings:  []string{"", "a<b>&c", "quote\" back\\slash", "\x00\x01\b\f\n\r\t\x1f\x7f", "\u2028\u2029", "µ€😀", "bad\xffutf8\xc3"},
		Specials: []compare.Float{compare.Float(math.Inf(1)), compare.Float(math.Inf(-1)), 1e-7, 2.5},
		Nested:   map[string][]*int{"z": {&one, nil}, "a": nil},
	})
	sameAsEncodingJSON(t, "NaN", map[string]any{"x": math.NaN()})
	sameAsEncodingJSON(t, "empty struct", struct{}{})
	sameAsEncodingJSON(t, "all omitted", struct {
		A int `json:"a,omitempty"`
	}{})
	sameAsEncodingJSON(t, "nil", nil)

	// The documents of the verbs, for the ONNX node-suite models: printer
	// (print --json), check reports, capabilities (inspect --json).
	dirs, _ := filepath.Glob("../testdata/onnx-node/node/*/model.onnx")
	if testing.Short() && len(dirs) > 200 {
		dirs = dirs[:200]
	}
	if len(dirs) == 0 {
		t.Skip("no testdata/onnx-node models")
	}
	for _, p := range append(dirs, "../testdata/bench/test_squeezenet/model.onnx") {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		mp := &pb.ModelProto{}
		if err := protoconv.Unmarshal(b, mp, "ONNX model", graph.DefaultMaxTensorBytes); err != nil {
			continue
		}
		sameAsEncodingJSON(t, p+" print", printer.Build(mp, nil))
		rep := check.Model(mp, nil)
		sameAsEncodingJSON(t, p+" check", map[string]any{"model": p, "ok": rep.OK(), "findings": nonNil(rep.Findings)})
		sameAsEncodingJSON(t, p+" capabilities", check.CapabilitiesOf(mp, nil))
	}
	sameAsEncodingJSON(t, "divergence", map[string]any{"divergence": &diverge.Divergence{Node: "n", Outputs: []diverge.OutputComparison{{Name: "y", Stats: compare.Stats{Cosine: 0.5}}}}, "summary": diverge.Summary{Compared: 3}})
}

func TestParseJSON(t *testing.T) {
	for _, s := range []string{
		`{"x": [1, -2.5e-3, 0, 1E+2, 1e400], "y": {"type": "float32", "dims": [], "data": []}}`,
		`{"s": "a\"\\\/\b\f\n\r\tz\u00e9\ud83d\ude00\ud800x\udc00", "t": true, "f": false, "n": null, "u": "µ"}`,
		` [ ] `, `"str"`, `-0`, `{"a": 1, "a": 2}`, `{"a": 1} trailing`,
	} {
		dec := json.NewDecoder(bytes.NewReader([]byte(s)))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		got, err := parseJSON([]byte(s))
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if !reflect.DeepEqual(numbers(got), want) {
			t.Errorf("%s: parsed %#v, encoding/json %#v", s, got, want)
		}
	}
	for _, s := range []string{``, `{`, `[1,]`, `{"a" 1}`, `{a: 1}`, `01`, `1.`, `.5`, `+1`, `-`, `1e`, `"abc`, "\"a\x01\"", `"\x"`, `"\u12"`, `tru`, `nul`, `[1 2]`} {
		if _, err := parseJSON([]byte(s)); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}

// numbers turns jsonNumber into json.Number, for comparison.
func numbers(v any) any {
	switch v := v.(type) {
	case jsonNumber:
		return json.Number(v)
	case []any:
		for i := range v {
			v[i] = numbers(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = numbers(v[k])
		}
	}
	return v
}
