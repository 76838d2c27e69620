package kernels

import (
	"fmt"
	"math/rand"
	"testing"
)

// convBench is a ResNet-50-like layer: c→m channels, h×w input, k×k kernel.
type convBench struct{ c, m, h, w, k, s, group int }

func (cb convBench) geom() *ConvGeom {
	p := cb.k / 2
	oh := (cb.h+2*p-cb.k)/cb.s + 1
	ow := (cb.w+2*p-cb.k)/cb.s + 1
	return &ConvGeom{In: []int{cb.h, cb.w}, Out: []int{oh, ow}, Kernel: []int{cb.k, cb.k},
		Strides: []int{cb.s, cb.s}, Dilations: []int{1, 1}, PadsBegin: []int{p, p}}
}

func BenchmarkConv(b *testing.B) {
	for _, cb := range []convBench{
		{3, 64, 224, 224, 7, 2, 1},
		{64, 64, 56, 56, 3, 1, 1},
		{64, 256, 56, 56, 1, 1, 1},
		{256, 64, 56, 56, 1, 1, 1},
		{128, 128, 28, 28, 3, 1, 1},
		{256, 256, 14, 14, 3, 1, 1},
		{1024, 256, 14, 14, 1, 1, 1},
		{512, 512, 7, 7, 3, 1, 1},
		{256, 512, 56, 56, 1, 2, 1},
		{128, 128, 56, 56, 3, 1, 128},
	} {
		for _, packed := range []bool{false, true} {
			b.Run(fmt.Sprintf("c%d-m%d-%dx%d-k%d-s%d-g%d-packed=%v", cb.c, cb.m, cb.h, cb.w, cb.k, cb.s, cb.group, packed), func(b *testing.B) {
				r := rand.New(rand.NewSource(1))
				g := cb.geom()
				kdim := cb.c / cb.group * cb.k * cb.k
				x := randSlice(r, cb.c*cb.h*cb.w)
				w := randSlice(r, cb.m*kdim)
				bias := randSlice(r, cb.m)
				y := make([]float32, cb.m*g.OutSize())
				cw := NewConvWeights(w, cb.m, cb.group, kdim, packed)
				args := &ConvArgs{N: 1, C: cb.c, Geom: g, X: x, Bias: bias, Y: y, Act: ActRelu}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := Conv(cw, args); err != nil {
						b.Fatal(err)
					}
				}
				flops := 2 * float64(cb.m) * float64(g.OutSize()) * float64(kdim)
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
