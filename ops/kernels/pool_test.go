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

// TestGlobalAvgPool checks the build's plane means against float64 sums,
// on plane sizes around the SIMD build's 16- and 4-float steps (and empty
// planes, whose mean is NaN), with NaN and infinities carried through.
func TestGlobalAvgPool(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, is := range []int{0, 1, 3, 4, 5, 15, 16, 17, 20, 33, 169} {
		for _, planes := range []int{1, 3} {
			x := randSlice(r, planes*is+1)[:planes*is] // one float past the end
			for i := range x {
				x[i] = x[i]*100 - 50
			}
			if is >= 5 {
				x[2], x[planes*is-1] = float32(math.NaN()), float32(math.Inf(-1))
			}
			y := make([]float32, planes+1)
			y[planes] = 7
			GlobalAvgPool(x, y[:planes], planes, is)
			if y[planes] != 7 {
				t.Fatalf("is %d: wrote past the planes", is)
			}
			for p := 0; p < planes; p++ {
				var s, mag float64
				for _, v := range x[p*is : (p+1)*is] {
					s += float64(v)
					mag += math.Abs(float64(v))
				}
				want := s / float64(is)
				got := float64(y[p])
				switch {
				case math.IsNaN(want) || math.IsInf(want, 0):
					if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
						t.Errorf("is %d plane %d: %v, want %v", is, p, got, want)
					}
				case math.Abs(got-want) > 1e-6*mag/float64(is)+1e-7:
					t.Errorf("is %d plane %d: %v, want %v", is, p, got, want)
				}
			}
		}
	}
}

// BenchmarkGlobalAvgPool is SqueezeNet 1.1's last pooling: 1000 planes of 13×13.
func BenchmarkGlobalAvgPool(bm *testing.B) {
	r := rand.New(rand.NewSource(1))
	x, y := randSlice(r, 1000*169), make([]float32, 1000)
	for i := 0; i < bm.N; i++ {
		GlobalAvgPool(x, y, 1000, 169)
	}
}
