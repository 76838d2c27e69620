package kern

import (
	"fmt"
	"testing"
)

// The step kernels of the float32 path at the VAD bench model's size
// (hidden 64, so R·h is 256×64); run them in wasm with GOEXPERIMENT=simd.

// BenchmarkGemv is one step's h·Rᵀ.
func BenchmarkGemv(b *testing.B) {
	k, n := 64, 256
	m := make([]float32, k*n)
	v := make([]float32, k)
	out := make([]float32, n)
	for i := range m {
		m[i] = float32(i%7) * 0.01
	}
	var pm Panels
	pm.Pack(m, k, 0, n)
	for b.Loop() {
		GemvAcc(out, v, &pm)
	}
}

// BenchmarkLstmGates is one step's gate activations and state update,
// without peepholes (as in the VAD model) and with.
func BenchmarkLstmGates(b *testing.B) {
	H := 64
	g := make([]float32, 4*H)
	c, h := make([]float32, H), make([]float32, H)
	for _, p := range [][]float32{nil, make([]float32, 3*H)} {
		b.Run(fmt.Sprintf("peepholes=%v", p != nil), func(b *testing.B) {
			for b.Loop() {
				LSTMGates(g, c, h, p, false)
			}
		})
	}
}
