//go:build !(wasm && goexperiment.simd)

package kern

// Scalar loops of the float32 path, for every build but WebAssembly with
// GOEXPERIMENT=simd (simd.go computes the same values four lanes at a
// time, in the same order).

// GemvAcc adds v·M to out (out[j] += Σₚ v[p]·M[p, j], summed in order of
// p); len(v) = m.k, len(out) = m.n.
func GemvAcc(out, v []float32, m *Panels) {
	k := m.k
	v, out = v[:k], out[:m.n]
	w16 := m.wide()
	for j0 := 0; j0 < len(out); {
		w := 16
		if j0 >= w16 {
			w = 8
		}
		panel := m.data[j0*k : (j0+w)*k]
		for c := range min(w, len(out)-j0) {
			acc := out[j0+c]
			for p, vp := range v {
				acc += float32(vp * panel[p*w+c])
			}
			out[j0+c] = acc
		}
		j0 += w
	}
}

// LSTMGates finishes an LSTM step: g holds the pre-activations of the gates
// i, o, f, c (H values each, without peepholes), c the cell state, updated
// in place, h the new hidden state (set, not read: the steps pass Y's row
// of the step), p the peepholes i, o, f (nil when absent).
func LSTMGates(g, c, h, p []float32, inputForget bool) {
	H := len(h)
	for j := range h {
		var pi, po, pf float32
		if p != nil {
			pi, po, pf = p[j], p[H+j], p[2*H+j]
		}
		c[j], h[j] = lstmUnit(g[j], g[H+j], g[2*H+j], g[3*H+j], c[j], pi, po, pf, inputForget)
	}
}

// TanhTo sets dst[i] = tanh32(src[i]).
func TanhTo(dst, src []float32) {
	for i, x := range src[:len(dst)] {
		dst[i] = tanh32(x)
	}
}

// SigmoidTo sets dst[i] = sigmoid32(src[i]).
func SigmoidTo(dst, src []float32) {
	for i, x := range src[:len(dst)] {
		dst[i] = sigmoid32(x)
	}
}
