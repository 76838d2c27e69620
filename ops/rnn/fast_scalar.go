//go:build !(wasm && goexperiment.simd)

package rnn

// Scalar loops of the float32 path, for every build but WebAssembly with
// GOEXPERIMENT=simd (fast_simd.go computes the same values four lanes at a
// time, in the same order).

// gemvAcc adds v·M[:, c0:c0+len(out)] to out, M having rows of ld values
// (out[j] += Σₚ v[p]·M[p·ld + c0 + j], summed in order of p).
func gemvAcc(out, v, m []float32, ld, c0 int) {
	for p, vp := range v {
		row := m[p*ld+c0 : p*ld+c0+len(out)]
		for j, x := range row {
			out[j] += float32(vp * x)
		}
	}
}

// lstmGates finishes an LSTM step: g holds the pre-activations of the gates
// i, o, f, c (H values each, without peepholes), c and h the state, updated
// in place, p the peepholes i, o, f (zeros when absent).
func lstmGates(g, c, h, p []float32, inputForget bool) {
	H := len(h)
	for j := range h {
		c[j], h[j] = lstmUnit(g[j], g[H+j], g[2*H+j], g[3*H+j], c[j], p[j], p[H+j], p[2*H+j], inputForget)
	}
}

// tanhTo sets dst[i] = tanh32(src[i]).
func tanhTo(dst, src []float32) {
	for i, x := range src[:len(dst)] {
		dst[i] = tanh32(x)
	}
}

// sigmoidTo sets dst[i] = sigmoid32(src[i]).
func sigmoidTo(dst, src []float32) {
	for i, x := range src[:len(dst)] {
		dst[i] = sigmoid32(x)
	}
}
