//go:build !(wasm && goexperiment.simd)

package kernels

// dot is Σ a[i]·b[i] in the SIMD build's order: eight interleaved partial
// sums p (p[j] takes the i ≡ j mod 8, the last four-aligned block going to
// p[0:4]), folded to four as p[j] + p[j+4] and then to one as
// (q0+q1)+(q2+q3), then the tail.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var p [8]float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		for j := range p {
			p[j] += a[i+j] * b[i+j]
		}
	}
	if i+4 <= len(a) {
		for j := 0; j < 4; j++ {
			p[j] += a[i+j] * b[i+j]
		}
		i += 4
	}
	sum := ((p[0] + p[4]) + (p[1] + p[5])) + ((p[2] + p[6]) + (p[3] + p[7]))
	for ; i < len(a); i++ {
		sum += a[i] * b[i]
	}
	return sum
}
