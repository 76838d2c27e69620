package tensorops

import (
	"testing"

	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestTooBigToFill: the ConstantOfShape pre-check refuses only shapes it can
// read and whose product is over the limit; everything else (empty, negative,
// non-int64, missing) is left to the kernel, which decides as before.
func TestTooBigToFill(t *testing.T) {
	i64 := func(v ...int64) *shapes.Info { return &shapes.Info{Const: tensor.Of([]int{len(v)}, v)} }
	const limit = 100
	cases := []struct {
		name  string
		shape *shapes.Info
		want  bool
	}{
		{"under", i64(4, 5, 5), false},           // 100 = limit
		{"over", i64(3, 7, 5), true},             // 105
		{"over by one dim", i64(101), true},      //
		{"overflow", i64(1<<40, 1<<40, 3), true}, // product overflows int64
		{"zero after big", i64(1<<40, 1<<40, 0), false},
		{"negative", i64(1000, -1), false},
		{"scalar shape", &shapes.Info{Const: tensor.Of([]int{}, []int64{500})}, true},
		{"int32 shape", &shapes.Info{Const: tensor.Of([]int{2}, []int32{100, 100})}, false},
		{"unknown", &shapes.Info{}, false},
		{"no input", nil, false},
	}
	for _, c := range cases {
		if got := tooBigToFill(c.shape, limit); got != c.want {
			t.Errorf("%s: tooBigToFill = %v, want %v", c.name, got, c.want)
		}
	}
}
