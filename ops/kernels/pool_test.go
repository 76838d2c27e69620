package kernels

import (
	"fmt"
	"math"
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
		MaxPool2D(x, y, planes, g)
	}
}

// TestPoolRowHelpers checks the build's pooling row functions (SIMD or
// scalar) against plain loops, bit for bit, on lengths with and without a
// partial vector, NaNs included for the maxima.
func TestPoolRowHelpers(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	nan := float32(math.NaN())
	for _, n := range []int{1, 3, 4, 5, 8, 9, 13, 30} {
		for _, nrows := range []int{1, 2, 3, 5} {
			// nrows rows of n at a stride of n+3, from offset 2.
			step, off := n+3, 2
			x := randSlice(r, off+nrows*step)
			for j := range x {
				if r.Intn(6) == 0 {
					x[j] = nan
				}
			}
			got, want := make([]float32, n), make([]float32, n)
			maxRows(got, x, off, step, nrows)
			for i := range want {
				m := x[off+i]
				for j := 1; j < nrows; j++ {
					if v := x[off+j*step+i]; !(m >= v || v != v) {
						m = v
					}
				}
				want[i] = m
			}
			sameF32(t, fmt.Sprint("maxRows/", n, "/", nrows), got, want)
			// The window scan across columns, NaNs included: x is the
			// column maxima, first the first row (a NaN there wins).
			for _, kw := range []int{1, 2, 3, 4} {
				for _, dw := range []int{1, 2} {
					xs, first := randSlice(r, n+(kw-1)*dw), randSlice(r, n)
					for j := range xs {
						if r.Intn(5) == 0 {
							xs[j] = nan
						}
						if j < n && r.Intn(7) == 0 {
							first[j] = nan
						}
					}
					maxWindowS1(got, xs, first, kw, dw)
					for i := range want {
						m := xs[i]
						for k := 1; k < kw; k++ {
							if v := xs[i+k*dw]; v > m {
								m = v
							}
						}
						if f := first[i]; f != f {
							m = f
						}
						want[i] = m
					}
					sameF32(t, fmt.Sprint("maxWindowS1/", n, "/", kw, "/", dw), got, want)
				}
			}
			for j, v := range x {
				if v != v {
					x[j] = r.Float32()
				}
			}
			sumRows(got, x, off, step, nrows)
			for i := range want {
				s := x[off+i]
				for j := 1; j < nrows; j++ {
					s += x[off+j*step+i]
				}
				want[i] = s
			}
			sameF32(t, fmt.Sprint("sumRows/", n, "/", nrows), got, want)
			for _, kw := range []int{1, 2, 3} {
				for _, dw := range []int{1, 2} {
					x := randSlice(r, n+(kw-1)*dw)
					sumRows(got, x, 0, dw, kw) // the window form AvgPool2D uses
					for i := range want {
						s := x[i]
						for k := 1; k < kw; k++ {
							s += x[i+k*dw]
						}
						want[i] = s
					}
					sameF32(t, fmt.Sprint("sumRows window/", n, "/", kw, "/", dw), got, want)
				}
			}
			copy(want, got)
			divAll(got, 3)
			for i := range want {
				want[i] /= 3
			}
			sameF32(t, fmt.Sprint("divAll/", n), got, want)
		}
	}
}

// BenchmarkAvgPool2D is Inception v2's 3×3, stride 1, pad 1 AveragePool
// over 192 planes of 28×28.
func BenchmarkAvgPool2D(bm *testing.B) {
	g := &ConvGeom{In: []int{28, 28}, Out: []int{28, 28}, Kernel: []int{3, 3}, Strides: []int{1, 1}, Dilations: []int{1, 1}, PadsBegin: []int{1, 1}}
	const planes = 192
	r := rand.New(rand.NewSource(1))
	x, y := randSlice(r, planes*g.InSize()), make([]float32, planes*g.OutSize())
	bm.ResetTimer()
	for i := 0; i < bm.N; i++ {
		AvgPool2D(x, y, planes, g, []int{1, 1}, false)
	}
}
