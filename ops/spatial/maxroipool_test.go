package spatial

import (
	"testing"

	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

func TestMaxRoiPool(t *testing.T) {
	// X[b, c, y, x] = 1000b + 100c + 5y + x on 2 images × 2 channels of 4×5 pixels.
	x := make([]float32, 2*2*4*5)
	for i := range x {
		b, c, y, xx := i/40, i/20%2, i/5%4, i%5
		x[i] = float32(1000*b + 100*c + 5*y + xx)
	}
	X := tensor.Of([]int{2, 2, 4, 5}, x)
	cases := []struct {
		name   string
		roi    []float32
		scale  float32
		pooled []int64
		want   []float32
	}{
		// ROI x 1..3, y 0..2 (3×3) in 2×2 bins of 1.5: rows {0,1},{1,2} × cols {1,2},{2,3}.
		{"image 1", []float32{1, 1, 0, 3, 2}, 1, []int64{2, 2}, []float32{1007, 1008, 1012, 1013, 1107, 1108, 1112, 1113}},
		// Scaled by 0.5: x 1..4, y 1..3 (3 high, 4 wide) in 1×2 bins: rows 1..3 × cols {1,2},{3,4}.
		{"scaled", []float32{0, 2, 2, 8, 6}, 0.5, []int64{1, 2}, []float32{17, 19, 117, 119}},
		// Outside the image: every bin is empty and gives 0.
		{"outside", []float32{0, 10, 10, 12, 12}, 1, []int64{1, 1}, []float32{0, 0}},
	}
	for _, c := range cases {
		got := optest.MustRun(t, optest.Call{Op: "MaxRoiPool", Opset: 22,
			Attrs: optest.A{"pooled_shape": c.pooled, "spatial_scale": c.scale},
			In:    []*tensor.Tensor{X, tensor.Of([]int{1, 5}, c.roi)}})
		optest.Expect(t, c.name, got[0], tensor.Of([]int{1, 2, int(c.pooled[0]), int(c.pooled[1])}, c.want))
	}
	if _, err := optest.Run(optest.Call{Op: "MaxRoiPool", Opset: 22, Attrs: optest.A{"pooled_shape": []int64{1, 1}},
		In: []*tensor.Tensor{X, tensor.Of([]int{1, 5}, []float32{2, 0, 0, 1, 1})}}); err == nil {
		t.Error("a batch index past the last image was accepted")
	}
}
