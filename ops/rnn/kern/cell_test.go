package kern

import (
	"flag"
	"math"
	"testing"
)

var exhaustive = flag.Bool("exhaustive", false, "check tanh32 and sigmoid32 on every float32")

// Error bounds of the activations of the float32 path against float64
// math. The error is relative, absolute where |f(x)| < 1e-30.
//
// TestActivationBounds checks ~1M inputs spread over every exponent (zeros,
// infinities and NaN included); with -exhaustive (about six CPU minutes),
// all 2³² float32 values, which gave the maxima: tanh32 4.1e-7 at 5.827876
// (7 ulp of its result), sigmoid32 1.48e-7 at -16.636244 (2.5 ulp).
const (
	tanhMaxErr    = 4.2e-7
	sigmoidMaxErr = 1.5e-7
)

func relErr(got float32, want float64) float64 {
	return math.Abs(float64(got)-want) / max(math.Abs(want), 1e-30)
}

func sigmoid64(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func TestActivationBounds(t *testing.T) {
	step := uint64(4093)
	if *exhaustive {
		step = 1
	}
	var worstT, worstS float64
	var atT, atS float32
	buf, out := make([]float32, 0, 1024), make([]float32, 1024)
	flush := func() {
		// The vector forms must give the scalar results bit for bit.
		TanhTo(out[:len(buf)], buf)
		for i, x := range buf {
			if y := tanh32(x); math.Float32bits(out[i]) != math.Float32bits(y) {
				t.Fatalf("TanhTo(%v) = %v, tanh32 %v", x, out[i], y)
			}
		}
		SigmoidTo(out[:len(buf)], buf)
		for i, x := range buf {
			if y := sigmoid32(x); math.Float32bits(out[i]) != math.Float32bits(y) {
				t.Fatalf("SigmoidTo(%v) = %v, sigmoid32 %v", x, out[i], y)
			}
		}
		buf = buf[:0]
	}
	check := func(x float32) {
		if x != x {
			if y, z := tanh32(x), sigmoid32(x); y == y || z == z {
				t.Fatalf("tanh32(NaN) = %v, sigmoid32(NaN) = %v", y, z)
			}
			return
		}
		if e := relErr(tanh32(x), math.Tanh(float64(x))); !(e <= worstT) {
			worstT, atT = e, x
		}
		if e := relErr(sigmoid32(x), sigmoid64(float64(x))); !(e <= worstS) {
			worstS, atS = e, x
		}
		if buf = append(buf, x); len(buf) == cap(buf) {
			flush()
		}
	}
	for _, x := range []float32{0, 0x1p-149, 0x1p-126, 0x1p-20, 1, 128, math.MaxFloat32, float32(math.Inf(1)), float32(math.NaN())} {
		check(x)
		check(-x)
	}
	for b := uint64(0); b < 1<<32; b += step {
		check(math.Float32frombits(uint32(b)))
	}
	flush()
	t.Logf("tanh32 max error %.3g at %v, sigmoid32 %.3g at %v", worstT, atT, worstS, atS)
	if worstT > tanhMaxErr || worstS > sigmoidMaxErr {
		t.Fatalf("tanh32 max error %.3g at %v (bound %g), sigmoid32 %.3g at %v (bound %g)", worstT, atT, tanhMaxErr, worstS, atS, sigmoidMaxErr)
	}
}

// TestGemvAcc checks GemvAcc against the plain ordered sum, bit for bit, on
// widths with and without a partial last panel and row offsets.
func TestGemvAcc(t *testing.T) {
	for _, tc := range []struct{ k, n, rows, c0 int }{
		{0, 5, 5, 0}, {1, 1, 1, 0}, {3, 7, 9, 2}, {5, 32, 32, 0}, {4, 36, 40, 4},
		{64, 256, 256, 0}, {64, 64, 192, 128}, {7, 70, 71, 1}, {2, 33, 96, 63}, {5, 0, 3, 1},
		// 16-wide panels alone, then with a full 8-wide one and a partial
		// one, odd and even depths (gemv16's unrolled pairs and its tail).
		{1, 16, 16, 0}, {2, 48, 50, 1}, {3, 24, 24, 0}, {5, 20, 20, 0}, {9, 44, 45, 1},
		{20, 80, 80, 0}, {37, 148, 148, 0}, {100, 400, 401, 1}, {64, 192, 200, 7},
	} {
		r := make([]float32, tc.rows*tc.k) // rows of k values; M[p, j] = r[(c0+j)·k + p]
		v := make([]float32, tc.k)
		out := make([]float32, tc.n)
		for i := range r {
			r[i] = float32(math.Sin(float64(i)))
		}
		for i := range v {
			v[i] = float32(math.Cos(float64(3 * i)))
		}
		for i := range out {
			out[i] = float32(i%5) - 2
		}
		want := append([]float32(nil), out...)
		for j := range want {
			for p := range v {
				want[j] += float32(v[p] * r[(tc.c0+j)*tc.k+p])
			}
		}
		// m is packed over an earlier, larger packing, as a reused
		// scratch buffer is, whose values must all be overwritten.
		var m Panels
		big := make([]float32, (tc.n+17)*(tc.k+1))
		for i := range big {
			big[i] = 1e6
		}
		m.Pack(big, tc.k+1, 0, tc.n+17)
		m.Pack(r, tc.k, tc.c0, tc.n)
		GemvAcc(out, v, &m)
		for j := range want {
			if math.Float32bits(out[j]) != math.Float32bits(want[j]) {
				t.Fatalf("%+v: out[%d] = %v, want %v", tc, j, out[j], want[j])
			}
		}
	}
}

// TestLSTMGates checks LSTMGates (the SIMD build's phased vector form)
// against lstmUnit unit by unit, bit for bit, with vector tails.
func TestLSTMGates(t *testing.T) {
	for _, H := range []int{1, 4, 6, 37, 64} {
		for _, tc := range []struct{ inputForget, peep bool }{{false, true}, {true, true}, {false, false}} {
			inputForget := tc.inputForget
			r := func(i int) float32 { return float32(3 * math.Sin(float64(i)*1.7+float64(H))) }
			g, c, p := make([]float32, 4*H), make([]float32, H), make([]float32, 3*H)
			for i := range g {
				g[i] = 4 * r(i)
			}
			for i := range c {
				c[i] = r(1000 + i)
			}
			if !tc.peep && H > 1 { // an overflowed cell: no peephole product may make it NaN
				c[0], c[H-1] = float32(math.Inf(1)), float32(math.Inf(-1))
			}
			for i := range p {
				if tc.peep {
					p[i] = r(2000+i) / 3
				}
			}
			wantC, wantH := make([]float32, H), make([]float32, H)
			for j := range H {
				wantC[j], wantH[j] = lstmUnit(g[j], g[H+j], g[2*H+j], g[3*H+j], c[j], p[j], p[H+j], p[2*H+j], inputForget)
			}
			h := make([]float32, H)
			if !tc.peep {
				p = nil // the form without peepholes, against lstmUnit's with zeros
			}
			LSTMGates(g, c, h, p, inputForget)
			for j := range H {
				if math.Float32bits(c[j]) != math.Float32bits(wantC[j]) || math.Float32bits(h[j]) != math.Float32bits(wantH[j]) {
					t.Fatalf("H=%d %+v unit %d: c, h = %v, %v, want %v, %v", H, tc, j, c[j], h[j], wantC[j], wantH[j])
				}
			}
		}
	}
}
