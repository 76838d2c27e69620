package kernels

import (
	"math/rand"
	"testing"
)

// TestGemmI16: the int32 GEMM (the SIMD build's 4×8 tiles and edges, or
// the scalar loop) and its scalar twin against the triple loop, bit for
// bit, on asymmetric shapes around the tile sizes, with row strides wider
// than the rows and values over the whole [-255, 255] range of
// zero-point-shifted int8/uint8 data.
func TestGemmI16(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for _, c := range []struct{ m, n, k, lda, ldb, ldc int }{
		{1, 1, 1, 1, 1, 1}, {3, 5, 7, 7, 5, 5}, {4, 9, 2, 3, 11, 10}, {17, 3, 64, 70, 3, 8}, {2, 33, 1, 1, 33, 40},
		{4, 8, 3, 3, 8, 8}, {9, 17, 5, 6, 19, 18}, {8, 16, 64, 64, 16, 16}, {5, 8, 1, 2, 9, 8}, {12, 24, 300, 301, 24, 25},
	} {
		a := randI16(r, c.m*c.lda)
		b := randI16(r, c.k*c.ldb)
		got := make([]int32, c.m*c.ldc)
		for i := range got {
			got[i] = int32(r.Intn(1000) - 500) // C is added to
		}
		want := append([]int32(nil), got...)
		for i := range c.m {
			for j := range c.n {
				s := want[i*c.ldc+j]
				for p := range c.k {
					s += int32(a[i*c.lda+p]) * int32(b[p*c.ldb+j])
				}
				want[i*c.ldc+j] = s
			}
		}
		twin := append([]int32(nil), got...)
		GemmI16(c.m, c.n, c.k, a, c.lda, b, c.ldb, got, c.ldc)
		gemmI16Scalar(c.m, c.n, c.k, a, c.lda, b, c.ldb, twin, c.ldc)
		for i := range got {
			if got[i] != want[i] || twin[i] != want[i] {
				t.Fatalf("%+v: C[%d] = %d (scalar twin %d), want %d", c, i, got[i], twin[i], want[i])
			}
		}
	}
}

// TestIm2colQ: every block of output positions, for 1-, 2- and 3-D
// geometries with H≠W, strides, dilations and padding, holds exactly the
// rows of the float im2col of x minus the zero point (0 in the padding).
func TestIm2colQ(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	for _, g := range []*ConvGeom{
		{In: []int{9}, Out: []int{4}, Kernel: []int{3}, Strides: []int{2}, Dilations: []int{1}, PadsBegin: []int{0}},
		{In: []int{5, 7}, Out: []int{5, 4}, Kernel: []int{3, 2}, Strides: []int{1, 2}, Dilations: []int{1, 1}, PadsBegin: []int{1, 0}},
		{In: []int{6, 5}, Out: []int{2, 3}, Kernel: []int{2, 2}, Strides: []int{2, 1}, Dilations: []int{2, 2}, PadsBegin: []int{0, 1}},
		{In: []int{3, 4, 5}, Out: []int{3, 2, 5}, Kernel: []int{1, 3, 2}, Strides: []int{1, 1, 1}, Dilations: []int{1, 1, 1}, PadsBegin: []int{0, 0, 1}},
	} {
		const channels = 3
		x := make([]uint8, channels*g.InSize())
		for i := range x {
			x[i] = uint8(r.Intn(256))
		}
		const zp = 131
		xf := make([]float64, len(x))
		for i, v := range x {
			xf[i] = float64(v) - zp
		}
		rows, os := channels*g.KernelSize(), g.OutSize()
		full := make([]float64, rows*os)
		Im2col(xf, channels, g, full)
		for _, nb := range []int{1, 3, os} {
			col := make([]int16, rows*nb)
			for o0 := 0; o0 < os; o0 += nb {
				n := min(nb, os-o0)
				Im2colQ(x, zp, channels, g, o0, n, col)
				for row := range rows {
					for o := range n {
						if got, want := col[row*n+o], full[row*os+o0+o]; float64(got) != want {
							t.Fatalf("In %v Out %v block [%d, %d): row %d position %d = %d, want %v", g.In, g.Out, o0, o0+n, row, o0+o, got, want)
						}
					}
				}
			}
		}
	}
}

func randI16(r *rand.Rand, n int) []int16 {
	v := make([]int16, n)
	for i := range v {
		v[i] = int16(r.Intn(511) - 255)
	}
	return v
}

// BenchmarkGemmI16 is a quantized 3×3 convolution's GEMM (64 output
// channels, 64·9 deep, 1024 output positions), by GemmI16 and by its
// scalar twin.
func BenchmarkGemmI16(b *testing.B) {
	r := rand.New(rand.NewSource(13))
	const m, n, k = 64, 1024, 576
	a, bb, c := randI16(r, m*k), randI16(r, k*n), make([]int32, m*n)
	for _, impl := range []struct {
		name string
		f    func(m, n, k int, a []int16, lda int, b []int16, ldb int, c []int32, ldc int)
	}{{"GemmI16", GemmI16}, {"scalar", gemmI16Scalar}} {
		b.Run(impl.name, func(b *testing.B) {
			for b.Loop() {
				impl.f(m, n, k, a, k, bb, n, c, n)
			}
			b.ReportMetric(float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gop/s")
		})
	}
}
