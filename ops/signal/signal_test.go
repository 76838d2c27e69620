package signal

import (
	"math"
	"testing"

	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

// naiveDFT is the textbook sum with angles computed directly, independent of
// the kernel's twiddle table.
func naiveDFT(re, im []float64, inverse bool) ([]float64, []float64) {
	n := len(re)
	sign := -1.0
	if inverse {
		sign = 1
	}
	or, oi := make([]float64, n), make([]float64, n)
	for k := 0; k < n; k++ {
		for j := 0; j < n; j++ {
			ang := sign * 2 * math.Pi * float64(k*j) / float64(n)
			c, s := math.Cos(ang), math.Sin(ang)
			or[k] += re[j]*c - im[j]*s
			oi[k] += re[j]*s + im[j]*c
		}
		if inverse {
			or[k] /= float64(n)
			oi[k] /= float64(n)
		}
	}
	return or, oi
}

func seq(n int, f func(i int) float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = f(i)
	}
	return v
}

// TestDFT transforms a [2, 5, 3, C] tensor along axis 1 (so the transformed
// dim is neither first nor last), for real and complex input, forward,
// inverse, one-sided and with padding/truncation.
func TestDFT(t *testing.T) {
	const B, L, I = 2, 5, 3
	cases := []struct {
		name                     string
		comps, length            int
		inverse, onesided, opset int
	}{
		{"real forward", 1, 5, 0, 0, 20},
		{"complex forward", 2, 5, 0, 0, 17},
		{"complex inverse", 2, 5, 1, 0, 20},
		{"real onesided", 1, 5, 0, 1, 20},
		{"padded to 7", 2, 7, 0, 0, 20},
		{"truncated to 4", 1, 4, 0, 1, 20},
	}
	for _, c := range cases {
		x := tensor.Of([]int{B, L, I, c.comps}, seq(B*L*I*c.comps, func(i int) float32 { return float32((i*7)%11) - 4.5 }))
		outLen := c.length
		if c.onesided == 1 {
			outLen = c.length/2 + 1
		}
		want := make([]float32, B*outLen*I*2)
		xs := x.F32()
		for b := 0; b < B; b++ {
			for i := 0; i < I; i++ {
				re, im := make([]float64, c.length), make([]float64, c.length)
				for k := 0; k < min(L, c.length); k++ {
					p := ((b*L+k)*I + i) * c.comps
					re[k] = float64(xs[p])
					if c.comps == 2 {
						im[k] = float64(xs[p+1])
					}
				}
				or, oi := naiveDFT(re, im, c.inverse == 1)
				for k := 0; k < outLen; k++ {
					p := ((b*outLen+k)*I + i) * 2
					want[p], want[p+1] = float32(or[k]), float32(oi[k])
				}
			}
		}
		in := []*tensor.Tensor{x, tensor.Scalar(int64(c.length))}
		at := optest.A{"inverse": c.inverse, "onesided": c.onesided}
		if c.opset >= 20 {
			in = append(in, tensor.Scalar(int64(1)))
		} else {
			at["axis"] = 1
		}
		got := optest.MustRun(t, optest.Call{Op: "DFT", Opset: c.opset, Attrs: at, In: in})
		optest.Expect(t, c.name, got[0], tensor.Of([]int{B, outLen, I, 2}, want))
	}
}

// TestIRFFTRoundTrip: the inverse one-sided transform of a real signal's
// one-sided spectrum gives back the signal (even and odd lengths).
func TestIRFFTRoundTrip(t *testing.T) {
	for _, n := range []int{6, 7} {
		x := tensor.Of([]int{2, n, 1}, seq(2*n, func(i int) float32 { return float32(i*i%5) - 1 }))
		spec := optest.MustRun(t, optest.Call{Op: "DFT", Opset: 20, Attrs: optest.A{"onesided": 1}, In: []*tensor.Tensor{x, nil, tensor.Scalar(int64(-2))}})[0]
		back := optest.MustRun(t, optest.Call{Op: "DFT", Opset: 20, Attrs: optest.A{"onesided": 1, "inverse": 1}, In: []*tensor.Tensor{spec, tensor.Scalar(int64(n)), tensor.Scalar(int64(1))}})[0]
		optest.Expect(t, "round trip", back, x)
	}
}

func TestWindows(t *testing.T) {
	s := math.Sqrt(2) / 2
	cases := []struct {
		op       string
		periodic int
		size     int32
		want     []float64
	}{
		// Hann periodic N=4: 0.5-0.5cos(2πk/4).
		{"HannWindow", 1, 4, []float64{0, 0.5, 1, 0.5}},
		// Symmetric N=5 uses denominator 4.
		{"HannWindow", 0, 5, []float64{0, 0.5, 1, 0.5, 0}},
		{"HammingWindow", 1, 4, []float64{4.0 / 46, 25.0 / 46, 1, 25.0 / 46}},
		// Blackman periodic N=8: k=1 is 0.42-0.5·cos(π/4)+0.08·cos(π/2), k=2 is 0.42-0+0.08·cos(π).
		{"BlackmanWindow", 1, 8, []float64{0, 0.42 - 0.5*s, 0.34, 0.42 + 0.5*s, 1, 0.42 + 0.5*s, 0.34, 0.42 - 0.5*s}},
	}
	for _, c := range cases {
		got := optest.MustRun(t, optest.Call{Op: c.op, Opset: 17, Attrs: optest.A{"periodic": c.periodic, "output_datatype": int(tensor.Double)}, In: []*tensor.Tensor{tensor.Scalar(c.size)}})
		optest.Expect(t, c.op, got[0], tensor.Of([]int{len(c.want)}, c.want))
	}
}

// TestSTFT frames a real [2, 9] signal with step 3 and a length-4 window and
// compares with a direct DFT of each windowed frame.
func TestSTFT(t *testing.T) {
	const B, L, F, S = 2, 9, 4, 3
	x := tensor.Of([]int{B, L, 1}, seq(B*L, func(i int) float32 { return float32(i%4) + float32(i)/10 }))
	win := []float32{0.25, 1, 0.75, 0.5}
	frames, bins := (L-F)/S+1, F/2+1
	want := make([]float32, B*frames*bins*2)
	for b := 0; b < B; b++ {
		for f := 0; f < frames; f++ {
			re, im := make([]float64, F), make([]float64, F)
			for k := 0; k < F; k++ {
				re[k] = float64(x.F32()[b*L+f*S+k]) * float64(win[k])
			}
			or, oi := naiveDFT(re, im, false)
			for k := 0; k < bins; k++ {
				p := ((b*frames+f)*bins + k) * 2
				want[p], want[p+1] = float32(or[k]), float32(oi[k])
			}
		}
	}
	got := optest.MustRun(t, optest.Call{Op: "STFT", Opset: 17, In: []*tensor.Tensor{x, tensor.Scalar(int64(S)), tensor.Of([]int{F}, win)}})
	optest.Expect(t, "stft", got[0], tensor.Of([]int{B, frames, bins, 2}, want))
}

// TestMelWeightMatrix checks shape and the triangle property: each filter
// peaks at 1 and every column is non-negative.
func TestMelWeightMatrix(t *testing.T) {
	got := optest.MustRun(t, optest.Call{Op: "MelWeightMatrix", Opset: 17, In: []*tensor.Tensor{
		tensor.Scalar(int32(3)), tensor.Scalar(int32(32)), tensor.Scalar(int32(8000)), tensor.Scalar(float32(0)), tensor.Scalar(float32(4000)),
	}})[0]
	if s := got.Shape(); len(s) != 2 || s[0] != 17 || s[1] != 3 {
		t.Fatalf("shape %v, want [17 3]", s)
	}
	w := got.F32()
	for m := 0; m < 3; m++ {
		peak := float32(0)
		for k := 0; k < 17; k++ {
			if w[k*3+m] < 0 {
				t.Fatalf("negative weight at %d,%d", k, m)
			}
			peak = max(peak, w[k*3+m])
		}
		if peak != 1 {
			t.Errorf("filter %d peaks at %v, want 1", m, peak)
		}
	}
}
