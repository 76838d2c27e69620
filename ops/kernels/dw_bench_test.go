package kernels

import (
	"fmt"
	"math/rand"
	"testing"
)

// BenchmarkConvMobile runs the convolution shapes of MobileNetV3 and
// ShuffleNet (depthwise 3×3/5×5 at strides 1 and 2, grouped and small 1×1,
// the 3-channel stem), bias and an activation fused as in the models.
func BenchmarkConvMobile(b *testing.B) {
	for _, cb := range []convBench{
		{3, 16, 224, 224, 3, 2, 1},
		{16, 16, 112, 112, 3, 2, 16},
		{16, 72, 56, 56, 1, 1, 1},
		{72, 72, 56, 56, 3, 2, 72},
		{72, 24, 28, 28, 1, 1, 1},
		{88, 88, 28, 28, 3, 1, 88},
		{96, 96, 28, 28, 5, 2, 96},
		{240, 240, 14, 14, 5, 1, 240},
		{288, 288, 14, 14, 5, 2, 288},
		{576, 576, 7, 7, 5, 1, 576},
		{24, 112, 56, 56, 1, 1, 4},
		{112, 112, 56, 56, 3, 2, 112},
		{136, 136, 28, 28, 1, 1, 4},
		{136, 136, 28, 28, 3, 1, 136},
		{272, 272, 14, 14, 1, 1, 4},
		{272, 272, 14, 14, 3, 1, 272},
		{544, 544, 7, 7, 1, 1, 4},
		{544, 544, 7, 7, 3, 1, 544},
		{16, 16, 56, 56, 1, 1, 1},
		{24, 88, 28, 28, 1, 1, 1},
		{88, 24, 28, 28, 1, 1, 1},
		{40, 240, 14, 14, 1, 1, 1},
		{240, 40, 14, 14, 1, 1, 1},
		{48, 288, 14, 14, 1, 1, 1},
		{96, 576, 7, 7, 1, 1, 1},
		{576, 96, 7, 7, 1, 1, 1},
		{576, 144, 1, 1, 1, 1, 1},
		{144, 576, 1, 1, 1, 1, 1},
	} {
		b.Run(fmt.Sprintf("c%d-m%d-%dx%d-k%d-s%d-g%d", cb.c, cb.m, cb.h, cb.w, cb.k, cb.s, cb.group), func(b *testing.B) {
			r := rand.New(rand.NewSource(1))
			g := cb.geom()
			kdim := cb.c / cb.group * cb.k * cb.k
			y := make([]float32, cb.m*g.OutSize())
			cw := NewConvWeights(randSlice(r, cb.m*kdim), cb.m, cb.group, kdim, true)
			args := &ConvArgs{N: 1, C: cb.c, Geom: g, X: randSlice(r, cb.c*cb.h*cb.w), Bias: randSlice(r, cb.m), Y: y, Act: ActRelu}
			b.ResetTimer()
			cpu0 := cpuMicros()
			for i := 0; i < b.N; i++ {
				if err := Conv(cw, args); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuMicros()-cpu0)/float64(b.N), "cpu-µs/op")
			macs := float64(cb.m) * float64(g.OutSize()) * float64(kdim)
			b.ReportMetric(macs*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
		})
	}
}
