package nn

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/tensor"
)

// LayerNormalization and RMSNormalization against a float64 reference, on
// the float32 fast path (per-row Scale and B) and the general one
// (broadcast parameters, float64 input).
func TestAxisNormTable(t *testing.T) {
	cases := []struct {
		x          []int
		axis       int
		scale, b   []int // b nil: no bias input
		rms        bool
		dt         tensor.DType
		meanAndInv bool
		off, std   float64 // X's distribution (default 3, 1)
	}{
		{[]int{2, 3, 5}, -1, []int{5}, []int{5}, false, tensor.Float, true, 0, 0},
		{[]int{3, 7}, 1, []int{7}, nil, false, tensor.Float, false, 0, 0},
		{[]int{2, 3, 4, 5}, 2, []int{4, 5}, []int{4, 5}, false, tensor.Float, true, 0, 0},
		{[]int{2, 3, 4, 5}, 2, []int{5}, []int{1, 5}, false, tensor.Float, false, 0, 0}, // broadcast params
		{[]int{1, 9, 33}, -1, []int{33}, []int{33}, false, tensor.Float, false, 0, 0},
		{[]int{4, 6}, 0, []int{4, 6}, []int{6}, false, tensor.Float, true, 0, 0},
		{[]int{2, 3, 5}, -1, []int{5}, []int{5}, false, tensor.Double, true, 0, 0},
		{[]int{2, 3, 5}, -1, []int{5}, nil, true, tensor.Float, false, 0, 0},
		{[]int{3, 2, 6}, 1, []int{1, 6}, nil, true, tensor.Float, false, 0, 0},
		// |mean| ≫ deviation: x - mean must not lose the deviation.
		{[]int{5, 67}, -1, []int{67}, []int{67}, false, tensor.Float, true, 1000, 0.01},
		{[]int{5, 67}, -1, []int{67}, []int{67}, false, tensor.Float, true, -3e4, 1},
	}
	r := rand.New(rand.NewSource(7))
	for ci, c := range cases {
		t.Run(fmt.Sprint(ci), func(t *testing.T) {
			mk := func(shape []int, off, std float64) ([]float64, *tensor.Tensor) {
				v := make([]float64, opsutil.Product(shape))
				for i := range v {
					v[i] = float64(float32(off + std*r.NormFloat64()))
				}
				if c.dt == tensor.Double {
					return v, tensor.Of(shape, v)
				}
				f := make([]float32, len(v))
				for i := range v {
					f[i] = float32(v[i])
				}
				return v, tensor.Of(shape, f)
			}
			if c.std == 0 {
				c.off, c.std = 3, 1
			}
			xv, x := mk(c.x, c.off, c.std)
			sv, s := mk(c.scale, 0, 1)
			in := []*tensor.Tensor{x, s}
			var bv []float64
			if c.b != nil {
				var b *tensor.Tensor
				bv, b = mk(c.b, 0, 1)
				in = append(in, b)
			}
			ax := c.axis
			if ax < 0 {
				ax += len(c.x)
			}
			rows, d := opsutil.Product(c.x[:ax]), opsutil.Product(c.x[ax:])
			// Parameters broadcast against the trailing dims: index by the
			// position inside the row, right-aligned.
			param := func(p []float64, shape []int, j int) float64 {
				tail := c.x[len(c.x)-len(shape):]
				idx, q, stride := 0, j, 1
				for k := len(tail) - 1; k >= 0; k-- {
					if len(c.x)-len(tail)+k < ax {
						break
					}
					i := q % tail[k]
					q /= tail[k]
					if shape[k] != 1 {
						idx += i * stride
					}
					stride *= shape[k]
				}
				return p[idx]
			}
			want := make([]float64, len(xv))
			means, invs := make([]float64, rows), make([]float64, rows)
			for row := 0; row < rows; row++ {
				xr := xv[row*d : (row+1)*d]
				var mean, ss float64
				if !c.rms {
					for _, v := range xr {
						mean += v
					}
					mean /= float64(d)
				}
				for _, v := range xr {
					ss += (v - mean) * (v - mean)
				}
				inv := 1 / math.Sqrt(ss/float64(d)+1e-5)
				means[row], invs[row] = mean, inv
				for j, v := range xr {
					o := (v - mean) * inv * param(sv, c.scale, j)
					if bv != nil {
						o += param(bv, c.b, j)
					}
					want[row*d+j] = o
				}
			}
			op, nOut := "LayerNormalization", 1
			opset := 17
			if c.rms {
				op, opset = "RMSNormalization", 23
			}
			if c.meanAndInv {
				nOut = 3
			}
			out := runOp(t, op, opset, attrs{"axis": c.axis}, nOut, in...)
			check := func(name string, got *tensor.Tensor, want []float64) {
				g, _ := got.Float64s()
				if len(g) != len(want) {
					t.Fatalf("%s: %d values, want %d", name, len(g), len(want))
				}
				for i := range want {
					if math.Abs(g[i]-want[i]) > 1e-5*(1+math.Abs(want[i])) {
						t.Fatalf("%s[%d] = %v, want %v", name, i, g[i], want[i])
					}
				}
			}
			check("Y", out[0], want)
			if out[0].DType() != c.dt {
				t.Fatalf("Y dtype %v, want %v", out[0].DType(), c.dt)
			}
			if c.meanAndInv {
				check("Mean", out[1], means)
				check("InvStdDev", out[2], invs)
			}
		})
	}
}

// affineRowF32 (SIMD128 in the wasm SIMD build) equals the scalar float32
// formula bit for bit at every length, with and without bias.
func TestAffineRowF32(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for n := 1; n <= 37; n++ {
		x, s, b, y := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], s[i], b[i] = float32(r.NormFloat64()*5), float32(r.NormFloat64()), float32(r.NormFloat64())
		}
		hi, lo, inv := float32(0.7), float32(1e-8), float32(1.3)
		for _, bias := range [][]float32{nil, b} {
			affineRowF32(y, x, hi, lo, inv, s, bias)
			for j := range x {
				want := float32(float32(float32(x[j]-hi)-lo)*inv) * s[j]
				if bias != nil {
					want += bias[j]
				}
				if math.Float32bits(y[j]) != math.Float32bits(want) {
					t.Fatalf("n=%d bias=%v: y[%d] = %g, want %g", n, bias != nil, j, y[j], want)
				}
			}
		}
	}
}

// rowStatsF32's one-pass shifted sums against a two-pass float64 reference,
// including rows whose first element is far from the rest.
func TestRowStatsF32(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, c := range []struct {
		n        int
		off, std float64
		first    float64 // added to x[0]
	}{{1, 0, 1, 0}, {3, 2, 1, 0}, {256, 0, 1, 0}, {257, 1000, 0.01, 0}, {64, -3e4, 1, 0}, {300, 0, 1, 100}, {129, 5, 0.001, 10}} {
		x := make([]float32, c.n)
		for i := range x {
			x[i] = float32(c.off + c.std*r.NormFloat64())
		}
		x[0] += float32(c.first)
		var mean, ss, sq float64
		for _, v := range x {
			mean += float64(v)
			sq += float64(v) * float64(v)
		}
		mean /= float64(c.n)
		for _, v := range x {
			ss += (float64(v) - mean) * (float64(v) - mean)
		}
		wantInv := 1 / math.Sqrt(ss/float64(c.n)+1e-5)
		m, inv := rowStatsF32(x, 1e-5, false)
		if math.Abs(m-mean) > 1e-12*(1+math.Abs(mean)) || math.Abs(inv-wantInv) > 1e-9*wantInv {
			t.Errorf("n=%d off=%g std=%g first=%g: mean, inv = %v, %v; want %v, %v", c.n, c.off, c.std, c.first, m, inv, mean, wantInv)
		}
		wantRMS := 1 / math.Sqrt(sq/float64(c.n)+1e-5)
		if m, inv := rowStatsF32(x, 1e-5, true); m != 0 || math.Abs(inv-wantRMS) > 1e-12*wantRMS {
			t.Errorf("n=%d rms: %v, %v; want 0, %v", c.n, m, inv, wantRMS)
		}
	}
}
