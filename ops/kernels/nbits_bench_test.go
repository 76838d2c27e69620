package kernels

import (
	"math/rand"
	"testing"
)

// BenchmarkMatMulNBits: one token (M=1) and a short prefill (M=16) times a
// 2048×2048 4-bit weight (block 32, packed zero points), beside the float32
// product of the same size with the weight packed once (MatMul's constant B).
func BenchmarkMatMulNBits(b *testing.B) {
	const k, n = 2048, 2048
	r := rand.New(rand.NewSource(1))
	q := randNBits(&testing.T{}, r, k, n, 4, 32, 1, false)
	w := make([]float32, k*n)
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	pb := PackB(false, k, n, w, n)
	for _, m := range []int{1, 16} {
		a := make([]float32, m*k)
		for i := range a {
			a[i] = float32(r.NormFloat64())
		}
		c := make([]float32, m*n)
		b.Run("nbits4/M="+itoa(m), func(b *testing.B) {
			for range b.N {
				MatMulNBits(m, a, k, q, nil, c, n)
			}
		})
		b.Run("f32/M="+itoa(m), func(b *testing.B) {
			for range b.N {
				SgemmPackedB(false, m, 1, a, k, pb, 0, c, n, nil)
			}
		})
	}
}

func itoa(v int) string {
	s := ""
	for ; v > 0 || s == ""; v /= 10 {
		s = string(rune('0'+v%10)) + s
	}
	return s
}
