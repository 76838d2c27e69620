package kernels

import (
	"math/rand"
	"testing"
)

// BenchmarkMaxPool2D is SqueezeNet's first MaxPool (3×3, stride 2) on one
// batch of 64 planes of 111×111.
func BenchmarkMaxPool2D(bm *testing.B) {
	g := &ConvGeom{In: []int{111, 111}, Out: []int{55, 55}, Kernel: []int{3, 3}, Strides: []int{2, 2}, Dilations: []int{1, 1}, PadsBegin: []int{0, 0}}
	const planes = 64
	r := rand.New(rand.NewSource(1))
	x, y := randSlice(r, planes*g.InSize()), make([]float32, planes*g.OutSize())
	bm.ResetTimer()
	for i := 0; i < bm.N; i++ {
		for p := 0; p < planes; p++ {
			MaxPool2D(x[p*g.InSize():(p+1)*g.InSize()], y[p*g.OutSize():(p+1)*g.OutSize()], g)
		}
	}
}
