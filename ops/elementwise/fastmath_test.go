package elementwise

import (
	"math"
	"math/rand"
	"os"
	"testing"
)

// ulpErr is |got - want| in units of the float32 ulp at want.
func ulpErr(got float32, want float64) float64 {
	w := float32(want)
	if w == 0 {
		return math.Abs(float64(got)-want) / math.SmallestNonzeroFloat32
	}
	w = abs32(w)
	ulp := float64(math.Nextafter32(w, float32(math.Inf(1))) - w)
	return math.Abs(float64(got)-want) / ulp
}

// sweep calls f on every stride-th float32 bit pattern from lo to hi
// (both non-negative) and on their negatives.
func sweep(lo, hi float32, stride uint32, f func(x float32)) {
	for u := math.Float32bits(lo); u <= math.Float32bits(hi); u += stride {
		x := math.Float32frombits(u)
		f(x)
		f(-x)
	}
}

func TestExp32Error(t *testing.T) {
	worst, at := 0.0, float32(0)
	sweep(0, -expMin, 331, func(x float32) {
		if x > 0 || x < expMin {
			return
		}
		if e := ulpErr(exp32(x), math.Exp(float64(x))); e > worst {
			worst, at = e, x
		}
	})
	t.Logf("exp32: max error %.3f ulp at %g", worst, at)
	if worst > 1 {
		t.Errorf("exp32: max error %.3f ulp at %g, want ≤ 1", worst, at)
	}
	for _, c := range []struct{ x, want float32 }{
		{0, 1}, {float32(math.Copysign(0, -1)), 1}, {expMin - 0.01, 0}, {-1e30, 0}, {float32(math.Inf(-1)), 0},
		{1, 1}, // positive arguments count as 0
	} {
		if got := exp32(c.x); got != c.want {
			t.Errorf("exp32(%g) = %g, want %g", c.x, got, c.want)
		}
	}
	if got := exp32(float32(math.NaN())); got == got {
		t.Errorf("exp32(NaN) = %g", got)
	}
}

func TestErf32Error(t *testing.T) {
	worst, at := 0.0, float32(0)
	check := func(x float32) {
		if e := ulpErr(erf32(x), math.Erf(float64(x))); e > worst {
			worst, at = e, x
		}
	}
	sweep(0, 6, 257, check)                               // dense over the whole non-trivial range
	sweep(math.SmallestNonzeroFloat32, 1e-3, 9973, check) // tiny and subnormal arguments
	t.Logf("erf32: max error %.3f ulp at %g", worst, at)
	if worst > 1.5 {
		t.Errorf("erf32: max error %.3f ulp at %g, want ≤ 1.5", worst, at)
	}
	inf := float32(math.Inf(1))
	for _, c := range []struct{ x, want float32 }{{0, 0}, {inf, 1}, {-inf, -1}, {10, 1}, {-1e30, -1}} {
		if got := erf32(c.x); got != c.want {
			t.Errorf("erf32(%g) = %g, want %g", c.x, got, c.want)
		}
	}
	if got := erf32(float32(math.Copysign(0, -1))); math.Float32bits(got) != 1<<31 {
		t.Errorf("erf32(-0) = %g, want -0", got)
	}
	if got := erf32(float32(math.NaN())); got == got {
		t.Errorf("erf32(NaN) = %g", got)
	}
}

// specialRow is a random row of length n mixing ordinary values with the
// edge cases (±0, ±Inf, NaN, far below expMin) when edges is set.
func specialRow(r *rand.Rand, n int, edges bool) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64() * 4)
		if edges && r.Intn(8) == 0 {
			s[i] = []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
				float32(math.NaN()), -200, 3.925, erfSplit}[r.Intn(8)]
		}
	}
	return s
}

func same32(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
}

// The slice kernels (SIMD128 in the wasm SIMD build) must equal the scalar
// functions bit for bit, at every length (vector body plus tail).
func TestRowKernelsMatchScalar(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for n := 1; n <= 37; n++ {
		for _, edges := range []bool{false, true} {
			s := specialRow(r, n, edges)
			d := make([]float32, n)
			erfF32(d, s)
			for i := range s {
				if !same32(d[i], erf32(s[i])) {
					t.Fatalf("n=%d: erfF32[%d](%g) = %g, erf32 = %g", n, i, s[i], d[i], erf32(s[i]))
				}
			}
			m := s[0]
			for _, v := range s {
				m = max(m, v)
			}
			if got := maxF32(s); !same32(got, m) {
				t.Fatalf("n=%d: maxF32 = %g, want %g", n, got, m)
			}
			if m != m || math.IsInf(float64(m), 1) {
				m = 1 // keep the exponentials finite for the sum check
			}
			var acc [4]float32
			var want float32
			for i, v := range s {
				e := exp32(v - m)
				if i < n&^3 {
					acc[i%4] += e
				} else {
					if i == n&^3 {
						want = (acc[0] + acc[1]) + (acc[2] + acc[3])
					}
					want += e
				}
			}
			if n%4 == 0 {
				want = (acc[0] + acc[1]) + (acc[2] + acc[3])
			}
			got := expSubSumF32(d, s, m)
			if !same32(got, want) {
				t.Fatalf("n=%d: expSubSumF32 sum = %g, want %g", n, got, want)
			}
			for i, v := range s {
				if !same32(d[i], exp32(v-m)) {
					t.Fatalf("n=%d: expSubSumF32[%d] = %g, want %g", n, i, d[i], exp32(v-m))
				}
			}
			c := append([]float32(nil), s...)
			scaleF32(c, 0.37)
			for i := range s {
				if !same32(c[i], s[i]*0.37) {
					t.Fatalf("n=%d: scaleF32[%d] = %g, want %g", n, i, c[i], s[i]*0.37)
				}
			}
		}
	}
	// In place (Erf may run over its own input).
	s := specialRow(r, 23, true)
	want := make([]float32, len(s))
	for i, v := range s {
		want[i] = erf32(v)
	}
	erfF32(s, s)
	for i := range s {
		if !same32(s[i], want[i]) {
			t.Fatalf("in place: erfF32[%d] = %g, want %g", i, s[i], want[i])
		}
	}
}

// TestFastMathExhaustive checks every float32 argument (exp32 on
// [expMin, 0], erf32 on [0, 7]; erf32 is odd by construction). It takes
// minutes, so it runs only with GORT_EXHAUSTIVE=1; its last run measured
// 0.982 ulp (exp32) and 1.257 ulp (erf32).
func TestFastMathExhaustive(t *testing.T) {
	if os.Getenv("GORT_EXHAUSTIVE") == "" {
		t.Skip("set GORT_EXHAUSTIVE=1 to run")
	}
	worst := 0.0
	for u := uint32(0); u <= math.Float32bits(-expMin); u++ {
		if x := -math.Float32frombits(u); x >= expMin {
			worst = max(worst, ulpErr(exp32(x), math.Exp(float64(x))))
		}
	}
	if t.Logf("exp32: %.4f ulp", worst); worst > 1 {
		t.Errorf("exp32: max error %.4f ulp, want ≤ 1", worst)
	}
	worst = 0
	for u := uint32(0); u <= math.Float32bits(7); u++ {
		x := math.Float32frombits(u)
		worst = max(worst, ulpErr(erf32(x), math.Erf(float64(x))))
	}
	if t.Logf("erf32: %.4f ulp", worst); worst > 1.5 {
		t.Errorf("erf32: max error %.4f ulp, want ≤ 1.5", worst)
	}
}

// arithRowF32 (SIMD128 in the wasm SIMD build) equals the generic row loop
// bit for bit for every op, row layout and length, in place too.
func TestArithRowF32(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for n := 1; n <= 37; n++ {
		a, b := specialRow(r, n, true), specialRow(r, n, true)
		for k := opAdd; k <= opMin; k++ {
			for _, l := range []struct{ a, b []float32 }{{a, b}, {a, b[:1]}, {a[:1], b}} {
				got, want := make([]float32, n), make([]float32, n)
				arithRowF32(k, got, l.a, l.b)
				arithRow(k, want, l.a, l.b)
				for i := range want {
					if !same32(got[i], want[i]) {
						t.Fatalf("op %d n=%d |a|=%d |b|=%d: [%d] = %g, want %g", k, n, len(l.a), len(l.b), i, got[i], want[i])
					}
				}
				if len(l.a) == n {
					in := append([]float32(nil), l.a...)
					arithRowF32(k, in, in, l.b)
					for i := range want {
						if !same32(in[i], want[i]) {
							t.Fatalf("op %d n=%d in place: [%d] = %g, want %g", k, n, i, in[i], want[i])
						}
					}
				}
			}
		}
	}
}
