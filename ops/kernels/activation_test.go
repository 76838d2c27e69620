package kernels

import (
	"math"
	"math/rand"
	"testing"
)

// TestActivateMatchesTable: Activate (the vector loops of the SIMD build
// for the piecewise-linear activations) gives, bit for bit, the table's
// float32 function applied one element at a time, and Activate64 its
// float64 function, over lengths around the vector width with NaN, ±0
// and ±Inf among the inputs.
func TestActivateMatchesTable(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	special := []float32{float32(math.NaN()), float32(math.Copysign(0, -1)), 0, float32(math.Inf(1)), float32(math.Inf(-1)), 1e30, -1e30}
	for act := range numActs {
		al, be := float32(0.2), float32(0.7)
		if act == ActClip {
			al, be = -0.5, 0.75
		}
		for _, n := range []int{1, 3, 4, 5, 8, 13, 64} {
			x := make([]float32, n)
			for i := range x {
				x[i] = 8*r.Float32() - 4
				if r.Intn(4) == 0 {
					x[i] = special[r.Intn(len(special))]
				}
			}
			got := append([]float32(nil), x...)
			Activate(got, act, al, be)
			got64 := make([]float64, n)
			for i, v := range x {
				got64[i] = float64(v)
			}
			Activate64(got64, act, al, be)
			for i, v := range x {
				want := act.F32(v, al, be)
				if math.Float32bits(got[i]) != math.Float32bits(want) && !(got[i] != got[i] && want != want) {
					t.Fatalf("%v n=%d: Activate(%v) = %v, the table's float32 form gives %v", act, n, v, got[i], want)
				}
				want64 := act.F64(float64(v), al, be)
				if math.Float64bits(got64[i]) != math.Float64bits(want64) && !(got64[i] != got64[i] && want64 != want64) {
					t.Fatalf("%v n=%d: Activate64(%v) = %v, the table's float64 form gives %v", act, n, v, got64[i], want64)
				}
			}
		}
	}
}

// TestActivationForms checks each row of the table against values
// computed independently of it (by hand, or with Python's math module for the transcendental ones),
// that names are unique and name their activation, and that every
// activation has a WGSL form.
func TestActivationForms(t *testing.T) {
	cases := []struct {
		act         Act
		alpha, beta float32
		x, want     float64
	}{
		{ActNone, 0, 0, -1.5, -1.5},
		{ActRelu, 0, 0, -1.5, 0},
		{ActRelu, 0, 0, 2.25, 2.25},
		{ActClip, -1, 0.5, 0.75, 0.5},
		{ActClip, -1, 0.5, -3, -1},
		{ActLeakyRelu, 0.25, 0, -2, -0.5},
		{ActSigmoid, 0, 0, 0, 0.5},
		{ActSigmoid, 0, 0, 2, 0.8807970779778823},
		{ActHardSigmoid, 0.25, 0.5, 1, 0.75},
		{ActHardSigmoid, 0.25, 0.5, 4, 1},
		{ActHardSwish, 0, 0, 1, 1 * (1.0/6 + 0.5)},
		{ActHardSwish, 0, 0, -4, 0},
		{ActTanh, 0, 0, 0.5, 0.46211715726000974},
		{ActGelu, 0, 0, 1, 0.8413447460685429}, // 0.5·x·(1 + erf(x/√2))
		{ActGelu, 0, 0, -2, -0.0455002638963584},
		{ActGeluTanh, 0, 0, 1, 0.8411919906082768}, // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
		{ActGeluTanh, 0, 0, -2, -0.04540230591222667},
	}
	for _, c := range cases {
		if got := c.act.F64(c.x, c.alpha, c.beta); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%v(%v) = %v in float64, want %v", c.act, c.x, got, c.want)
		}
		if got := c.act.F32(float32(c.x), c.alpha, c.beta); math.Abs(float64(got)-c.want) > 1e-6 {
			t.Errorf("%v(%v) = %v in float32, want %v", c.act, c.x, got, c.want)
		}
	}
	for act := range numActs {
		if got, ok := ActNamed(act.String()); !ok || got != act {
			t.Errorf("ActNamed(%q) = %v, %v; want %v", act.String(), got, ok, act)
		}
		if _, ok := act.WGSL(); !ok {
			t.Errorf("%v has no WGSL form", act)
		}
	}
	if _, ok := ActNamed("Softplus"); ok {
		t.Error("ActNamed accepts an activation the table does not have")
	}
}
