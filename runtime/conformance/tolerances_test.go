package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gort-dev/gort/runtime/compare"
)

func TestReadTolerances(t *testing.T) {
	tests := []struct {
		name, text string
		want       map[string]compare.Tolerance
		wantErr    string
	}{
		{"numeric", "# header\n\ntest_a rtol=1e-2 atol=1e-6 # float32 noise\n",
			map[string]compare.Tolerance{"test_a": {Rtol: 1e-2, Atol: 1e-6}}, ""},
		{"random", "test_b random # numpy's global RNG\n",
			map[string]compare.Tolerance{"test_b": {StructureOnly: true}}, ""},
		{"numeric without reason", "test_a rtol=1e-2 atol=1e-6\n", nil, ":1:"},
		{"random without reason", "test_b random #  \n", nil, ":1:"},
		{"unknown word", "\ntest_c sometimes # why\n", nil, ":2:"},
		{"extra field", "test_d rtol=1 atol=1 x # why\n", nil, ":1:"},
		{"name only", "test_e # why\n", nil, ":1:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tolerances.txt")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := readTolerances(path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s: got %+v, want %+v", k, got[k], v)
				}
			}
		})
	}
}
