package kernels

import (
	"fmt"
	"math/rand"
	"testing"
)

// BenchmarkIm2colBlock packs one GEMM block of the im2col matrix (the conv
// path's B operand) for a strided 1×1 and a 7×7 stride-2 layer.
func BenchmarkIm2colBlock(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	for _, cb := range []convBench{{256, 512, 56, 56, 1, 2, 1}, {3, 64, 224, 224, 7, 2, 1}} {
		b.Run(fmt.Sprintf("c%d-%dx%d-k%d-s%d", cb.c, cb.h, cb.w, cb.k, cb.s), func(b *testing.B) {
			g := cb.geom()
			im := im2colB{x: randSlice(r, cb.c*cb.h*cb.w), g: g, rows: im2colRows(g, cb.c, nil)}
			kb, nb := min(sgemmKC, cb.c*cb.k*cb.k), min(sgemmNC, g.OutSize())
			dst := make([]float32, kb*roundUp(nb, NR))
			b.SetBytes(int64(4 * len(dst)))
			for i := 0; i < b.N; i++ {
				im.block(0, kb, 0, nb, dst)
			}
		})
	}
}
