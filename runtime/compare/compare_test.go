package compare

import (
	"strings"
	"testing"

	"github.com/gort-dev/gort/runtime/tensor"
)

func f32(shape []int, vals ...float32) *tensor.Tensor {
	t := tensor.New(tensor.Float, shape...)
	copy(t.F32(), vals)
	return t
}

func TestCompare(t *testing.T) {
	nan := float32(0)
	nan = nan / nan
	tests := []struct {
		name      string
		got, want tensor.Value
		tol       Tolerance
		wantDiff  string // "" = match; else a substring of the description
	}{
		{"equal", f32([]int{2, 1}, 1, 2), f32([]int{2, 1}, 1, 2), DefaultTolerance, ""},
		{"within rtol", f32([]int{1}, 1000.5), f32([]int{1}, 1000), DefaultTolerance, ""},
		{"beyond rtol", f32([]int{1}, 1002), f32([]int{1}, 1000), DefaultTolerance, "element 0"},
		{"nan equals nan", f32([]int{1}, nan), f32([]int{1}, nan), DefaultTolerance, ""},
		{"shape differs", f32([]int{1, 2}, 1, 2), f32([]int{2, 1}, 1, 2), DefaultTolerance, "shape"},
		{"dtype differs", tensor.New(tensor.Int64, 1), f32([]int{1}, 0), DefaultTolerance, "dtype"},
		{"structure only ignores values", f32([]int{2, 3}, 1, 0, 1), f32([]int{2, 3}, 0, 1, 0), Tolerance{StructureOnly: true}, ""},
		{"structure only checks shape", f32([]int{3, 2}), f32([]int{2, 3}), Tolerance{StructureOnly: true}, "shape"},
		{"structure only checks dtype", tensor.New(tensor.Double, 2), f32([]int{2}), Tolerance{StructureOnly: true}, "dtype"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Compare(tc.got, tc.want, tc.tol)
			if tc.wantDiff == "" && d != "" {
				t.Fatalf("got difference %q, want a match", d)
			}
			if tc.wantDiff != "" && !strings.Contains(d, tc.wantDiff) {
				t.Fatalf("got %q, want a difference mentioning %q", d, tc.wantDiff)
			}
		})
	}
}
