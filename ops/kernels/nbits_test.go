package kernels

import (
	"math"
	"math/rand"
	"testing"
)

// randNBits draws a quantized K×N weight: random codes (padding included),
// scales, and the zero points of kind zk (0 none, 1 packed, 2 float).
func randNBits(t *testing.T, r *rand.Rand, k, n, bits, bs, zk int, gidx bool) *NBits {
	kb := (k + bs - 1) / bs
	data := make([]uint8, n*kb*bs*bits/8)
	for i := range data {
		data[i] = uint8(r.Intn(256))
	}
	scales := make([]float32, n*kb)
	for i := range scales {
		scales[i] = float32(r.Float64()*0.2 + 0.01)
	}
	var zp []uint8
	var zf []float32
	switch zk {
	case 1:
		zp = make([]uint8, n*((kb*bits+7)/8))
		for i := range zp {
			zp[i] = uint8(r.Intn(256))
		}
	case 2:
		zf = make([]float32, n*kb)
		for i := range zf {
			zf[i] = float32(r.Float64() * float64(int(1)<<bits))
		}
	}
	var g []int32
	if gidx {
		g = make([]int32, k)
		for i := range g {
			g[i] = int32(r.Intn(kb))
		}
	}
	q, err := NewNBits(k, n, bits, bs, data, scales, zp, zf, g)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestMatMulNBits: the dot-product path (m ≤ nbitsRowsMax) and the GEMM
// path with panel dequantization, against a float64 triple loop over the
// dequantized B, for 2/4/8 bits, block sizes 16–128, K not a multiple of
// the block size, every kind of zero point, g_idx, bias and strides.
func TestMatMulNBits(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, c := range []struct{ m, k, n, bits, bs, zk int }{
		{1, 32, 8, 4, 32, 0}, {1, 37, 5, 4, 16, 1}, {2, 100, 9, 4, 64, 2}, {1, 129, 3, 2, 128, 1}, {1, 20, 11, 2, 16, 0},
		{2, 70, 6, 8, 32, 1}, {1, 15, 4, 8, 16, 2}, {3, 64, 13, 4, 32, 1}, {7, 300, 17, 4, 128, 0}, {5, 45, 9, 2, 16, 2},
		{9, 260, 10, 8, 64, 0}, {4, 33, 8, 4, 32, 1}, {1, 513, 21, 4, 32, 1}, {6, 513, 40, 2, 64, 1},
	} {
		for _, gidx := range []bool{false, true} {
			q := randNBits(t, r, c.k, c.n, c.bits, c.bs, c.zk, gidx)
			lda, ldc := c.k+3, c.n+2
			a := make([]float32, c.m*lda)
			for i := range a {
				a[i] = float32(r.NormFloat64())
			}
			var bias []float32
			if c.m%2 == 1 {
				bias = make([]float32, c.n)
				for i := range bias {
					bias[i] = float32(r.NormFloat64())
				}
			}
			got := make([]float32, c.m*ldc)
			MatMulNBits(c.m, a, lda, q, bias, got, ldc)
			for i := range c.m {
				for j := range c.n {
					var s, mag float64
					for p := range c.k {
						v := float64(a[i*lda+p]) * float64(q.At(p, j))
						s += v
						mag += math.Abs(v)
					}
					if bias != nil {
						s += float64(bias[j])
					}
					if d := math.Abs(float64(got[i*ldc+j]) - s); d > 1e-5*(mag+1) {
						t.Fatalf("%+v gidx=%v: C[%d,%d] = %g, want %g", c, gidx, i, j, got[i*ldc+j], s)
					}
				}
			}
		}
	}
}

// TestNBitsPacking: the codes are read from the low bits up, and packed
// zero points likewise, per the layout MatMulNBits documents.
func TestNBitsPacking(t *testing.T) {
	// K=16, N=1, 4 bits: byte i holds elements 2i (low) and 2i+1 (high).
	data := make([]uint8, 8)
	data[0] = 0x21 // elements 0 → 1, 1 → 2
	data[7] = 0xf0 // element 14 → 0, 15 → 15
	q, err := NewNBits(16, 1, 4, 16, data, []float32{1}, []uint8{0x03}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[int]float32{0: -2, 1: -1, 14: -3, 15: 12, 5: -3} {
		if got := q.At(k, 0); got != want {
			t.Errorf("4-bit B(%d) = %g, want %g", k, got, want)
		}
	}
	// 2 bits, two blocks: zero points 1 and 2 packed in one byte.
	data = make([]uint8, 8)
	data[0] = 0b11100100 // elements 0..3 → 0, 1, 2, 3
	q, err = NewNBits(32, 1, 2, 16, data, []float32{1, 1}, []uint8{0b1001}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[int]float32{0: -1, 1: 0, 2: 1, 3: 2, 16: -2} {
		if got := q.At(k, 0); got != want {
			t.Errorf("2-bit B(%d) = %g, want %g", k, got, want)
		}
	}
}

// TestNBits4Twin: the 4-bit one-row kernel of the build (SIMD128 under
// wasm with GOEXPERIMENT=simd) and its scalar twin agree bit for bit, for
// one to four chunks per block, on every kind of input sign and size.
func TestNBits4Twin(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for _, c := range []struct{ k, bs int }{{32, 32}, {64, 32}, {200, 64}, {256, 128}, {96, 32}} {
		kb := (c.k + c.bs - 1) / c.bs
		x := make([]float32, c.k)
		for i := range x {
			x[i] = float32(r.NormFloat64() * math.Pow(10, float64(r.Intn(5)-2)))
		}
		xp := make([]float32, kb*c.bs)
		permuteNBits4(x, xp)
		colBytes := kb * c.bs / 2
		w := make([]uint8, 4*colBytes)
		for i := range w {
			w[i] = uint8(r.Intn(256))
		}
		sc := make([]float32, 4*kb)
		for i := range sc {
			sc[i] = float32(r.Float64()*0.2 + 0.01)
		}
		var got, want [4]float32
		nbits4Cols4(xp, w, colBytes, sc, c.bs/32, &got)
		nbits4Cols4Scalar(xp, w, colBytes, sc, c.bs/32, &want)
		if got != want {
			t.Errorf("K=%d block %d: %v, scalar twin %v", c.k, c.bs, got, want)
		}
		for col := range 4 {
			one := nbits4ColScalar(xp, w[col*colBytes:(col+1)*colBytes], sc[col*kb:(col+1)*kb], c.bs/32)
			if one != want[col] {
				t.Errorf("K=%d block %d column %d: one column %v, four %v", c.k, c.bs, col, one, want[col])
			}
		}
	}
}
