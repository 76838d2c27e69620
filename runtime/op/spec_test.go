package op

import (
	"reflect"
	"testing"
)

func TestParseSpecTable(t *testing.T) {
	got := parseSpecTable("\ndomain \"\"\nAdd 1:A,B 7:A,B\nPad 2:data 11:data,pads 18:data,pads\nX 1 3:,B\ndomain \"ai.onnx.ml\"\nTreeEnsemble 5:X\n")
	want := map[string]map[string]specOp{
		"": {
			"Add": {versions: []int{1, 7}, required: map[int][]string{1: {"A", "B"}, 7: {"A", "B"}}},
			"Pad": {versions: []int{2, 11, 18}, required: map[int][]string{2: {"data"}, 11: {"data", "pads"}, 18: {"data", "pads"}}},
			"X":   {versions: []int{1, 3}, required: map[int][]string{3: {"", "B"}}},
		},
		"ai.onnx.ml": {"TreeEnsemble": {versions: []int{5}, required: map[int][]string{5: {"X"}}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{"Add 1\n", "domain \"\"\nAdd one\n", "domain ai\n"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%q: no panic for a corrupt table", bad)
				}
			}()
			parseSpecTable(bad)
		}()
	}
}

// The generated table, spot-checked against the ONNX changelog by hand.
func TestGeneratedSpec(t *testing.T) {
	tests := []struct {
		domain, op string
		versions   []int
		version    int
		required   []string
	}{
		{"", "Resize", []int{10, 11, 13, 18, 19}, 10, []string{"X", "scales"}},
		{"ai.onnx", "Resize", []int{10, 11, 13, 18, 19}, 13, []string{"X"}},
		{"", "Clip", []int{1, 6, 11, 12, 13}, 11, []string{"input"}},
		{"ai.onnx.ml", "LabelEncoder", []int{1, 2, 4}, 2, []string{"X"}},
		{"", "NoSuchOp", nil, 1, nil},
	}
	for _, tc := range tests {
		if got := SpecVersions(tc.domain, tc.op); !reflect.DeepEqual(got, tc.versions) {
			t.Errorf("SpecVersions(%q, %s) = %v, want %v", tc.domain, tc.op, got, tc.versions)
		}
		if got := SpecRequiredInputs(tc.domain, tc.op, tc.version); !reflect.DeepEqual(got, tc.required) {
			t.Errorf("SpecRequiredInputs(%q, %s, %d) = %q, want %q", tc.domain, tc.op, tc.version, got, tc.required)
		}
	}
	if n := len(SpecOps("")); n < 190 {
		t.Errorf("%d ops in the default domain, want the whole spec", n)
	}
}
