package training

import (
	"math"
	"testing"

	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

func TestAdamBiasCorrection(t *testing.T) {
	// T=2 with alpha 0.5, beta 0.75: rate = 0.1·sqrt(1-0.75²)/(1-0.5²).
	x, g := []float32{1, -2}, []float32{0.5, 1}
	v, h := []float32{0.2, 0}, []float32{0.1, 0.3}
	rate := 0.1 * math.Sqrt(1-0.75*0.75) / (1 - 0.5*0.5)
	wantX, wantV, wantH := make([]float32, 2), make([]float32, 2), make([]float32, 2)
	for i := range x {
		gr := 0.01*float64(x[i]) + float64(g[i])
		vn := 0.5*float64(v[i]) + 0.5*gr
		hn := 0.75*float64(h[i]) + 0.25*gr*gr
		wantX[i] = float32(0.9 * (float64(x[i]) - rate*vn/(math.Sqrt(hn)+1e-3)))
		wantV[i], wantH[i] = float32(vn), float32(hn)
	}
	got := optest.MustRun(t, optest.Call{Domain: Domain, Op: "Adam", Opset: 1, NOut: 3,
		Attrs: optest.A{"alpha": float32(0.5), "beta": float32(0.75), "epsilon": float32(1e-3), "norm_coefficient": float32(0.01), "norm_coefficient_post": float32(0.1)},
		In:    []*tensor.Tensor{tensor.Scalar(float32(0.1)), tensor.Scalar(int64(2)), tensor.Of([]int{2}, x), tensor.Of([]int{2}, g), tensor.Of([]int{2}, v), tensor.Of([]int{2}, h)}})
	optest.Expect(t, "X", got[0], tensor.Of([]int{2}, wantX))
	optest.Expect(t, "V", got[1], tensor.Of([]int{2}, wantV))
	optest.Expect(t, "H", got[2], tensor.Of([]int{2}, wantH))
}

func TestMomentumAndAdagrad(t *testing.T) {
	in := []*tensor.Tensor{tensor.Scalar(float32(0.5)), tensor.Scalar(int64(3)), tensor.Of([]int{1}, []float32{2}), tensor.Of([]int{1}, []float32{1}), tensor.Of([]int{1}, []float32{4})}
	// T>0 so beta applies: V = 0.5·4 + 0.25·1 = 2.25; X = 2 - 0.5·2.25 = 0.875.
	got := optest.MustRun(t, optest.Call{Domain: Domain, Op: "Momentum", Opset: 1, NOut: 2, Attrs: optest.A{"alpha": float32(0.5), "beta": float32(0.25), "mode": "standard"}, In: in})
	optest.Expect(t, "momentum X", got[0], tensor.Of([]int{1}, []float32{0.875}))
	optest.Expect(t, "momentum V", got[1], tensor.Of([]int{1}, []float32{2.25}))
	// Adagrad: rate 0.5/(1+3·1)=0.125; H = 4+1 = 5; X = 2 - 0.125·1/sqrt(5).
	got = optest.MustRun(t, optest.Call{Domain: Domain, Op: "Adagrad", Opset: 1, NOut: 2, Attrs: optest.A{"decay_factor": float32(1)}, In: in})
	optest.Expect(t, "adagrad X", got[0], tensor.Of([]int{1}, []float32{float32(2 - 0.125/math.Sqrt(5))}))
	optest.Expect(t, "adagrad H", got[1], tensor.Of([]int{1}, []float32{5}))
}
