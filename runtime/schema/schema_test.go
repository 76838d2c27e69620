package schema_test

import (
	"slices"
	"testing"

	_ "github.com/gort-dev/gort/ops"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/schema"
)

// TestEveryRegistrationHasASchema: each (domain, op, version) that package ops
// registers is a version the spec defines, so the checker can hold any node
// gort runs to a schema. The exception is onnxruntime's contrib op that it
// registers in the default domain (docs/contrib.md).
func TestEveryRegistrationHasASchema(t *testing.T) {
	n := 0
	for _, d := range schema.Domains() {
		for _, o := range op.Default.Ops(d) {
			if d == "" && o == "SimplifiedLayerNormalization" {
				continue
			}
			for _, v := range op.Default.Versions(d, o) {
				n++
				s := schema.Get(d, o, v)
				if s == nil {
					t.Errorf("%q %s-%d is registered but has no schema (spec versions %v)", d, o, v, schema.Versions(d, o))
					continue
				}
				if s.MinInputs > s.MaxInputs && s.MaxInputs != schema.Unbounded {
					t.Errorf("%s-%d: inputs %d-%d", o, v, s.MinInputs, s.MaxInputs)
				}
				// The schema's required inputs agree with the table the
				// loader uses (generated separately by tools/genspec).
				req := op.SpecRequiredInputs(d, o, v)
				for i, name := range req {
					if name == "" {
						continue
					}
					if p := s.Input(i); p == nil || p.Name != name || p.Optional {
						t.Errorf("%s-%d input %d: loader requires %q, schema has %+v", o, v, i, name, p)
					}
				}
			}
		}
	}
	if n < 500 {
		t.Fatalf("only %d registrations seen; is package ops linked?", n)
	}
	// Registered versions equal the spec's version list for the ops that
	// the spec defines (the table the registry consults).
	for _, d := range schema.Domains() {
		for _, o := range schema.Ops(d) {
			if !slices.Equal(schema.Versions(d, o), op.SpecVersions(d, o)) {
				t.Errorf("%q %s: schema versions %v, version table %v", d, o, schema.Versions(d, o), op.SpecVersions(d, o))
			}
		}
	}
}

// TestKnownSchemas checks a few schemas against the changelog text, read by hand.
func TestKnownSchemas(t *testing.T) {
	conv := schema.Resolve("", "Conv", 13)
	if conv == nil || conv.Version != 11 || conv.MinInputs != 2 || conv.MaxInputs != 3 || !conv.Inputs[2].Optional {
		t.Fatalf("Conv at opset 13: %+v", conv)
	}
	if a := conv.Attr("group"); a == nil || a.Type != "INT" || a.Default != "1" || a.Required {
		t.Errorf("Conv group: %+v", a)
	}
	if a := conv.Attr("auto_pad"); a == nil || a.Type != "STRING" || a.Default != "NOTSET" {
		t.Errorf("Conv auto_pad: %+v", a)
	}
	if got := conv.AllowedTypes(&conv.Inputs[0]); !slices.Equal(got, []string{"tensor(float16)", "tensor(float)", "tensor(double)"}) {
		t.Errorf("Conv T: %v", got)
	}
	concat := schema.Get("", "Concat", 13)
	if concat == nil || concat.MaxInputs != schema.Unbounded || concat.MinInputs != 1 || !concat.Inputs[0].Variadic {
		t.Fatalf("Concat-13: %+v", concat)
	}
	if a := concat.Attr("axis"); a == nil || !a.Required || a.Type != "INTS" && a.Type != "INT" {
		t.Errorf("Concat axis: %+v", a)
	}
	if p := concat.Input(5); p == nil || p.Name != "inputs" {
		t.Errorf("Concat input 5: %+v", p)
	}
	loop := schema.Get("", "Loop", 16)
	if loop == nil || loop.Attr("body") == nil || loop.Attr("body").Type != "GRAPH" || !loop.Inputs[2].Heterogeneous {
		t.Fatalf("Loop-16: %+v", loop)
	}
	reshape := schema.Get("", "Reshape", 14)
	if reshape.Inputs[1].Type != "tensor(int64)" || reshape.Attr("allowzero").Default != "0" {
		t.Errorf("Reshape-14: %+v", reshape)
	}
	if s := schema.Resolve("", "Resize", 9); s != nil {
		t.Errorf("Resize exists from opset 10, got %d", s.Version)
	}
	if s := schema.Get("", "Upsample", 10); s == nil || !s.Deprecated {
		t.Errorf("Upsample-10 is deprecated: %+v", s)
	}
	if s := schema.Get("ai.onnx.ml", "LabelEncoder", 2); s == nil || s.Attr("keys_strings") == nil {
		t.Errorf("LabelEncoder-2: %+v", s)
	}
	if schema.Get("ai.onnx", "Add", 14) == nil {
		t.Error("ai.onnx is the default domain")
	}
}
