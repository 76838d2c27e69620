package kernels

import "math"

// LRN across channels in float32, for the common exponent beta = 0.75
// (AlexNet's, GoogLeNet's, the default): each output is
// x / (bias + k·sum)^0.75, sum being the squares of the channel window's
// values added in ascending channel order, and the power r·√r for r = √b.
// Everything is float32, as in ONNX Runtime. One pass per output plane
// reads the window's planes and writes the output, with no sum buffer; it
// is vectorised in the SIMD build (lrn_simd.go), lrnPlaneScalar being the
// exact reference for the order of operations.

// LRN075 computes LRN with beta = 0.75 over one image: C planes of inner
// elements in x and y, the window of channel c being [c-lo, c+hi] clipped
// to [0, C); k is alpha/size.
func LRN075(y, x []float32, C, inner, lo, hi int, bias, k float32) {
	var buf [16][]float32
	for c := 0; c < C; c++ {
		planes := buf[:0]
		for cc := max(0, c-lo); cc <= min(C-1, c+hi); cc++ {
			planes = append(planes, x[cc*inner:(cc+1)*inner])
		}
		lrnPlane(y[c*inner:(c+1)*inner], x[c*inner:(c+1)*inner], planes, bias, k)
	}
}

// lrnPlaneScalar sets y[i] = x[i] / (r·√r), r = √(bias + k·Σ p[i]²) over
// the planes p in order; every plane is at least len(y) long.
func lrnPlaneScalar(y, x []float32, planes [][]float32, bias, k float32) {
	x = x[:len(y)]
	for i := range y {
		s := planes[0][i] * planes[0][i]
		for _, p := range planes[1:] {
			s += p[i] * p[i]
		}
		r := sqrt32(bias + k*s)
		y[i] = x[i] / (r * sqrt32(r))
	}
}

// sqrt32 is the correctly rounded float32 square root (rounding the float64
// root of a float32 to float32 is exact for sqrt), as f32x4.sqrt computes it.
func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }
