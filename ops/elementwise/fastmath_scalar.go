//go:build !(wasm && goexperiment.simd)

package elementwise

// Scalar forms of the float32 row kernels (fastmath_simd.go has the SIMD128
// ones). Sums run in four interleaved partial sums, combined as
// (s0+s1)+(s2+s3) before the tail, exactly as the vector code adds its lanes,
// so both builds return the same bits.

// erfF32 stores erf(src[i]) into dst[i] (dst may be src).
func erfF32(dst, src []float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = erf32(v)
	}
}

// maxF32 returns the largest element of s (NaN if any is NaN); s is not empty.
func maxF32(s []float32) float32 {
	m := s[0]
	for _, v := range s {
		m = max(m, v)
	}
	return m
}

// expSubSumF32 stores e^(s[i]-m) into d[i] and returns their sum.
func expSubSumF32(d, s []float32, m float32) float32 {
	d = d[:len(s)]
	var acc [4]float32
	n4 := len(s) &^ 3
	for i := 0; i < n4; i += 4 {
		for l := range acc {
			e := exp32(s[i+l] - m)
			d[i+l] = e
			acc[l] += e
		}
	}
	sum := (acc[0] + acc[1]) + (acc[2] + acc[3])
	for i := n4; i < len(s); i++ {
		e := exp32(s[i] - m)
		d[i] = e
		sum += e
	}
	return sum
}

// scaleF32 multiplies every element of d by f.
func scaleF32(d []float32, f float32) {
	for i := range d {
		d[i] *= f
	}
}

// arithRowF32 is arithRow for float32 (the SIMD build vectorises it).
func arithRowF32(k arithOp, d, a, b []float32) { arithRow(k, d, a, b) }
