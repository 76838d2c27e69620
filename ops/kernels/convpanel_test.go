package kernels

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestGatherPanel2: a panel wrapping from one row to the next, for every
// split n1 and a few row offsets, against the element-by-element gather.
func TestGatherPanel2(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	src := randSlice(r, 200)
	offs := []int{0, 37, 5, 60}
	const maxOff = 60
	for n1 := 1; n1 < NR; n1++ {
		for _, ab := range [][2]int{{3, 20}, {11, 23}, {40, 50 + n1}} {
			a, b := ab[0], ab[1]
			got, want := make([]float32, len(offs)*NR), make([]float32, len(offs)*NR)
			gatherPanel2(got, src, offs, a, b, n1, maxOff)
			for p, off := range offs {
				for l := 0; l < NR; l++ {
					if l < n1 {
						want[p*NR+l] = src[off+a+l]
					} else {
						want[p*NR+l] = src[off+b+l-n1]
					}
				}
			}
			sameF32(t, fmt.Sprint("gatherPanel2/", n1, "/", a, "/", b), got, want)
		}
	}
}
