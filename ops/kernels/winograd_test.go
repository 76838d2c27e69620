package kernels

import (
	"math"
	"math/rand"
	"testing"
)

// winoWeightsRef is the Winograd weight transform the plain way: U_ξ = G g Gᵀ
// per (m, c) into 16 unpacked M × C matrices, each then packed by PackA.
func winoWeightsRef(w []float32, m, c int) [16]*PackedA {
	G := [4][3]float64{{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}}
	u := make([][]float32, 16)
	for x := range u {
		u[x] = make([]float32, m*c)
	}
	for i := 0; i < m*c; i++ {
		g := w[i*9 : i*9+9]
		for r := 0; r < 4; r++ {
			for s := 0; s < 4; s++ {
				var v float64
				for a := 0; a < 3; a++ {
					for b := 0; b < 3; b++ {
						v += G[r][a] * float64(g[a*3+b]) * G[s][b]
					}
				}
				u[r*4+s][i] = float32(v)
			}
		}
	}
	var p [16]*PackedA
	for x := range p {
		p[x] = PackA(false, m, c, 1, u[x], c)
	}
	return p
}

// TestWinoWeights: the transform packed in place matches the reference,
// with fresh buffers and with pooled ones holding garbage (M not a multiple
// of MR, so the padding rows must be cleared).
func TestWinoWeights(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, d := range []struct{ m, c int }{{32, 32}, {35, 33}, {37, 5}, {1, 2}, {4, 1}} {
		w := randSlice(r, d.m*d.c*9)
		want := winoWeightsRef(w, d.m, d.c)
		var packs [16]PackedA
		for x := range packs {
			packs[x].data = make([]float32, roundUp(d.m, MR)*d.c+7)
			for i := range packs[x].data {
				packs[x].data[i] = float32(math.NaN())
			}
		}
		for _, got := range []*winoWeights{newWinoWeights(w, d.m, d.c, nil), newWinoWeights(w, d.m, d.c, &packs)} {
			for x := range want {
				g, e := got.u[x], want[x]
				if g.M != e.M || g.K != e.K || len(g.data) != len(e.data) {
					t.Fatalf("%+v ξ=%d: packed %d×%d (%d), want %d×%d (%d)", d, x, g.M, g.K, len(g.data), e.M, e.K, len(e.data))
				}
				for i := range e.data {
					if diff := math.Abs(float64(g.data[i] - e.data[i])); !(diff <= 1e-6*(1+math.Abs(float64(e.data[i])))) {
						t.Fatalf("%+v ξ=%d: data[%d] = %v, want %v", d, x, i, g.data[i], e.data[i])
					}
				}
			}
		}
	}
}
