package elementwise

import (
	"math"
	"math/rand"
	"testing"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestReluF32 runs the float32 Relu op (SIMD and scalar builds) on every
// length modulo four, mixed signs and the special values, bit for bit
// against the definition: negatives (-Inf too) become +0, everything else
// (-0, NaN, +Inf) passes through with its bits.
func TestReluF32(t *testing.T) {
	res := op.Default.Resolve("", "Relu", 14)
	k, err := res.Builder(&op.Node{OpType: "Relu", Version: res.Version})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(7))
	nan := float32(math.NaN())
	special := []float32{float32(math.Copysign(0, -1)), 0, nan, float32(math.Inf(1)), float32(math.Inf(-1)), -1e-30, 1e-30}
	for n := 0; n <= 37; n++ {
		x := make([]float32, n)
		for i := range x {
			x[i] = r.Float32()*2 - 1
			if r.Intn(4) == 0 {
				x[i] = special[r.Intn(len(special))]
			}
		}
		out, err := k.(op.Kernel).Run(&op.Context{}, []*tensor.Tensor{f32([]int{1, n}, x...)})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range out[0].F32() {
			want := x[i]
			if want < 0 {
				want = 0
			}
			if math.Float32bits(v) != math.Float32bits(want) {
				t.Fatalf("n=%d: Relu(%v) = %v, want %v", n, x[i], v, want)
			}
		}
	}
}
