package kernels

import (
	"fmt"
	"math/rand"
	"testing"
)

// BenchmarkIm2col packs a whole im2col matrix block by block, as the
// convolution's GEMM asks for it, without the GEMM: the share of a
// convolution's time spent gathering its input.
func BenchmarkIm2col(b *testing.B) {
	for _, cb := range []convBench{
		{3, 96, 224, 224, 11, 4, 1}, // AlexNet conv1 (pads 5 here)
		{48, 128, 26, 26, 5, 1, 1},  // AlexNet conv2, one group
		{3, 64, 224, 224, 3, 2, 1},  // SqueezeNet conv1 (pads 1 here)
		{16, 64, 55, 55, 3, 1, 1},   // SqueezeNet fire2 expand 3×3
		{3, 64, 224, 224, 7, 2, 1},  // ResNet-50 conv1
	} {
		b.Run(fmt.Sprintf("c%d-%dx%d-k%d-s%d", cb.c, cb.h, cb.w, cb.k, cb.s), func(b *testing.B) {
			r := rand.New(rand.NewSource(1))
			g := cb.geom()
			kdim := cb.c * cb.k * cb.k
			x := randSlice(r, cb.c*cb.h*cb.w)
			im := im2colB{x: x, g: g, rows: im2colRows(g, cb.c, nil)}
			os := g.OutSize()
			dst := make([]float32, sgemmKC*sgemmNC)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j := 0; j < os; j += sgemmNC {
					for p := 0; p < kdim; p += sgemmKC {
						im.block(p, min(sgemmKC, kdim-p), j, min(sgemmNC, os-j), dst)
					}
				}
			}
			b.ReportMetric(float64(kdim*os)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
		})
	}
}
